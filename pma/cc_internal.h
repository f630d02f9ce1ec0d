/*
 * cc_internal.h - state and helpers shared by the Congestion Control agent's
 * source files.  Not part of the library's interface.
 */
#ifndef PZ_CC_INTERNAL_H
#define PZ_CC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cc_agent.h"
#include "gmp.h"

#define CC_CLASS_VERSION 2
#define CC_LOG_DATA_OFFS 32  /* CongestionLog data starts right after the CC_Key */
#define CC_LOG_EVENTS 15     /* switch CongestionLogEvents per CongestionLog */
#define CC_LOG_EVENT_OFFS 40 /* first event, in the log data */
#define CC_LOG_EVENT_SIZE 12
#define CC_LOG_TYPE_SWITCH 1
#define CC_LOG_TYPE_CA 2
#define CC_PORTS_PER_BLOCK 32 /* SwitchPortCongestionSetting elements per block */
#define CC_CCT_BLOCKS 2       /* CA CongestionControlTable: ControlTableCap */
#define CC_CCT_PER_BLOCK 64
#define CC_CCT_ENTRIES (CC_CCT_BLOCKS * CC_CCT_PER_BLOCK)

/* ClassPortInfo.RespTimeValue (same as the PMA: 4.096 us * 2^12). */
#define CC_RESP_TIME_VALUE 12

/* SwitchCongestionSetting.Control_Map bits: which components a Set applies. */
#define CC_CTRL_VICTIM_MASK 0x01
#define CC_CTRL_CREDIT_MASK 0x02
#define CC_CTRL_THRESHOLD 0x04 /* Threshold and Packet_Size */
#define CC_CTRL_CS 0x08        /* CS_Threshold and CS_ReturnDelay */
#define CC_CTRL_MARKING_RATE 0x10

/* One switch CongestionLogEvent. */
struct cc_log_entry {
    uint16_t slid;
    uint16_t dlid;
    uint8_t sl;
    uint32_t timestamp;
};

struct cc_agent {
    const struct board *board;
    bool is_switch;
    unsigned num_ports;

    /* CongestionKeyInfo. */
    uint64_t cc_key;
    bool protect;
    uint16_t lease_period; /* seconds, 0 = never expires */
    uint16_t violations;
    uint64_t lease_deadline_ns; /* 0 = lease timer not running */

    /* Switch settings. */
    struct cc_switch_setting sw;
    struct cc_port_setting *ports; /* num_ports + 1 */

    /* Switch CongestionLog, cleared by each read. */
    uint16_t log_events_counter;
    uint8_t port_map[CC_PORT_MASK_BYTES];
    struct cc_log_entry log[CC_LOG_EVENTS];
    unsigned log_next;  /* slot of the next event */
    unsigned log_count; /* events held */

    /* CA settings. */
    uint16_t ca_port_control;
    uint16_t ca_control_map;
    struct cc_ca_entry ca[CC_CA_SLS];
    uint16_t ccti_limit;
    uint16_t cct[CC_CCT_ENTRIES]; /* CCT_Shift(2) | CCT_Multiplier(14) */

    struct cc_stats stats;
};

/* One CC MAD being answered by an attribute handler. */
struct cc_req {
    uint8_t method;
    uint16_t attr_id;
    uint32_t attr_mod;
    bool hide_key;     /* Get with a wrong CC_Key while unprotected */
    const uint8_t *in; /* the request MAD, 256 bytes */
    uint8_t *out;      /* the response MAD; bytes 32-255 zeroed */
};

/*
 * An attribute handler: fills req->out, returns a MAD status.  The
 * handlers below are declared with this type, one line per attribute.
 */
typedef uint16_t cc_attr_fn(struct cc_agent *cc, struct cc_req *req);

/* Outcome of the CC_Key check. */
enum cc_key_verdict {
    CC_KEY_OK,
    CC_KEY_OK_HIDE,   /* answer, but do not reveal the CC_Key */
    CC_KEY_VIOLATION, /* drop */
};

/*
 * cc_key.c: check the CC_Key of a received MAD at board time now (expiring
 * the lease first); counts violations.
 */
enum cc_key_verdict cc_key_check(struct cc_agent *cc, const uint8_t *mad, unsigned method,
                                 uint64_t now);

/* cc_key.c: CongestionKeyInfo Get/Set handlers. */
cc_attr_fn cc_key_info_get, cc_key_info_set;

/* cc_log.c: CongestionLog Get handler (a switch's log is cleared by the read). */
cc_attr_fn cc_log_get;

/* cc_settings.c: Get/Set handlers of the switch and CA congestion settings. */
cc_attr_fn cc_switch_setting_get, cc_switch_setting_set;
cc_attr_fn cc_port_setting_get, cc_port_setting_set;
cc_attr_fn cc_ca_setting_get, cc_ca_setting_set;
cc_attr_fn cc_cct_get, cc_cct_set;

#endif /* PZ_CC_INTERNAL_H */
