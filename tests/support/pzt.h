/*
 * pzt.h - test support: build SMPs with libibmad, run them through an SMA on
 * an in-memory board, decode the answers.
 */
#ifndef PZ_TEST_PZT_H
#define PZ_TEST_PZT_H

#include <stdbool.h>
#include <stdint.h>

#include "board_mem.h"
#include "sma.h"

#define PZT_MAD 256
#define PZT_DATA 64

/* A switch (or CA) under test: in-memory board plus SMA. */
struct pzt_node {
    struct board_identity id;
    struct board_mem *bm;
    struct board *board;
    struct sma *sma;
    uint64_t tid;
};

/* Result of one SMP. */
struct pzt_result {
    enum mad_verdict verdict;
    struct mad_addr addr; /* where the SMA sends it */
    uint8_t mad[PZT_MAD]; /* what it sends */
    unsigned status;      /* MAD status (DR: without the D bit) */
    uint8_t *data;        /* = mad + 64 */
};

/* The MADs a test's send callback was handed (the first PZT_SENT_MAX of them kept). */
#define PZT_SENT_MAX 64
struct pzt_sent {
    uint8_t mad[PZT_SENT_MAX][PZT_MAD];
    struct mad_addr to[PZT_SENT_MAX];
    unsigned num; /* every MAD sent, also those not kept */
};

/* Record one sent MAD and where it goes. */
void pzt_sent_add(struct pzt_sent *s, const uint8_t *mad, const struct mad_addr *to);

/* A switch with num_ports ports and a manual clock at 1 s; customise id first via hook. */
struct pzt_node *pzt_switch_new(unsigned num_ports);

/* Same, with a caller-prepared identity. */
struct pzt_node *pzt_node_new(const struct board_identity *id);

/* A CA with num_ports ports. */
struct pzt_node *pzt_ca_new(unsigned num_ports);

void pzt_node_free(struct pzt_node *n);

/* Build a LID-routed SMP (class 0x01). */
void pzt_lid_smp(uint8_t mad[PZT_MAD], unsigned method, unsigned attr_id, uint32_t attr_mod,
                 uint64_t mkey, uint64_t tid);

/*
 * Build a directed-route SMP (class 0x81) as it arrives at the node: hop
 * count hc, hop pointer hp, initial path path[1..hc] (path[0] unused).
 */
void pzt_dr_smp(uint8_t mad[PZT_MAD], unsigned method, unsigned attr_id, uint32_t attr_mod,
                uint64_t mkey, uint64_t tid, unsigned hc, unsigned hp, const uint8_t *path,
                uint16_t drslid, uint16_t drdlid);

/* Feed a MAD into the node's SMA on in_port from slid; fill *r. */
void pzt_process(struct pzt_node *n, unsigned in_port, uint16_t slid, const uint8_t *mad,
                 struct pzt_result *r);

/*
 * LID-routed Get/Set of an attribute from port in_port with key mkey.
 * Returns the MAD status, or -1 if the SMA did not answer.  resp (64 bytes)
 * receives the response data when not NULL.
 */
int pzt_get(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod, uint8_t *resp);
int pzt_set(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod, const uint8_t *data,
            uint8_t *resp);
int pzt_get_key(struct pzt_node *n, unsigned in_port, uint64_t mkey, unsigned attr_id,
                uint32_t attr_mod, uint8_t *resp);
int pzt_set_key(struct pzt_node *n, unsigned in_port, uint64_t mkey, unsigned attr_id,
                uint32_t attr_mod, const uint8_t *data, uint8_t *resp);

/* Cable ports 1..n of the node (links train to Init). */
void pzt_connect_all(struct pzt_node *n);

/* Give the switch a LID and master SM LID (PortInfo Set on port 0). */
void pzt_assign_lid(struct pzt_node *n, uint16_t lid, uint16_t sm_lid, uint8_t subnet_timeout);

/* Drain sma_poll(): number of traps sent, the last one copied to *last if not NULL. */
unsigned pzt_poll_all(struct pzt_node *n, struct pzt_result *last);

/* The SMA's counters. */
struct sma_stats pzt_sma_stats(struct pzt_node *n);

/* The TID of a MAD the node sent (a trap). */
uint64_t pzt_tid(const struct pzt_result *t);

/* A TrapRepress(Notice) for tid from the SM at sm_lid (port 1): asserts it is never answered. */
void pzt_trap_repress(struct pzt_node *n, uint16_t sm_lid, uint64_t tid);

/* The big-endian value of the n (at most 8) bytes at p. */
uint64_t pzt_be(const uint8_t *p, unsigned n);

#endif /* PZ_TEST_PZT_H */
