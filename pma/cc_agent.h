/*
 * cc_agent.h - the Congestion Control agent (management class 0x21, class
 * version 2) of a switch (or of a CA, for the emulator), as a library.
 *
 * A request MAD and an instance go in; a response or nothing comes out.  The
 * agent holds the congestion settings the congestion manager (OpenSM)
 * programs, protects them with the CC_Key and keeps the switch's congestion
 * log, which the datapath (the emulator's fabric, an ASIC driver) feeds
 * through cc_log_event() and cc_log_port_marked().  No I/O, no global state.
 */
#ifndef PZ_CC_AGENT_H
#define PZ_CC_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define CC_MAD_SIZE 256
#define CC_PORT_MASK_BYTES 32 /* 256-bit port masks */
#define CC_CA_SLS 16

struct cc_agent;


/*
 * SwitchCongestionSetting as last programmed.  Port masks are 256-bit
 * big-endian integers: port p is bit p % 8 of byte 31 - p / 8.
 */
struct cc_switch_setting {
    uint32_t control_map; /* of the last Set: which components it applied */
    uint8_t victim_mask[CC_PORT_MASK_BYTES];
    uint8_t credit_mask[CC_PORT_MASK_BYTES];
    uint8_t threshold;   /* 4 bits */
    uint8_t packet_size; /* 64-byte units */
    uint8_t cs_threshold;
    uint16_t cs_return_delay;
    uint16_t marking_rate;
};

/* One SwitchPortCongestionSettingElement. */
struct cc_port_setting {
    bool valid;
    uint8_t control_type; /* 0 = congestion parameters, 1 = credit starvation */
    uint8_t threshold;
    uint8_t packet_size;
    uint16_t cong_parm; /* marking rate when control_type is 0 */
};

/* One CACongestionEntry (per SL). */
struct cc_ca_entry {
    uint16_t ccti_timer;
    uint8_t ccti_increase;
    uint8_t trigger_threshold;
    uint8_t ccti_min;
};

/* Counters the agent, CLI and SNMP report. */
struct cc_stats {
    uint64_t mads_received;
    uint64_t responses_sent;
    uint64_t dropped;         /* malformed, responses, traps */
    uint64_t key_violations;  /* MADs dropped for a bad CC_Key */
    uint64_t log_events;      /* cc_log_event() calls */
    uint64_t log_events_lost; /* overwritten before a CongestionLog read */
};

/* Create an agent for board (which must outlive it).  Returns NULL on OOM. */
struct cc_agent *cc_create(const struct board *board);

/* Destroy an agent created by cc_create(). */
void cc_destroy(struct cc_agent *cc);

/*
 * Handle one Congestion Control MAD received at this node.  Returns MAD_SEND
 * when out[0..255] must be transmitted as given by *out_addr (LID-routed back
 * to the requester), MAD_DROP otherwise (including a CC_Key violation).  in
 * and out may not overlap.
 */
enum mad_verdict cc_process(struct cc_agent *cc, const struct mad_addr *in_addr,
                           const uint8_t *in, size_t in_len, struct mad_addr *out_addr,
                           uint8_t out[CC_MAD_SIZE]);

/* The congestion TimeStamp now: board time in 1.024 us units, modulo 2^32. */
uint32_t cc_timestamp(const struct cc_agent *cc);

/*
 * Record that the switch marked a packet slid -> dlid on sl with FECN at
 * timestamp (cc_timestamp() units) in the CongestionLog.  The log keeps the
 * 15 most recent events until a CongestionLog Get reads and clears it.
 */
void cc_log_event(struct cc_agent *cc, uint16_t slid, uint16_t dlid, uint8_t sl,
                  uint32_t timestamp);

/* Record that port marked packets with FECN (CongestionLog.PortMap). */
void cc_log_port_marked(struct cc_agent *cc, unsigned port);

/* The SwitchCongestionSetting as programmed (the datapath's marking policy). */
void cc_get_switch_setting(const struct cc_agent *cc, struct cc_switch_setting *s);

/* The SwitchPortCongestionSetting of port; -EINVAL if there is no such port. */
int cc_get_port_setting(const struct cc_agent *cc, unsigned port, struct cc_port_setting *s);

/* The CACongestionSetting entry of sl (CA mode); -EINVAL if none. */
int cc_get_ca_entry(const struct cc_agent *cc, unsigned sl, struct cc_ca_entry *e);

/* A snapshot of the agent's counters. */
void cc_get_stats(const struct cc_agent *cc, struct cc_stats *stats);

#endif /* PZ_CC_AGENT_H */
