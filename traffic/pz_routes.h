/*
 * pz_routes.h - portzerod's route check: reads the SA's NodeRecords,
 * LinkRecords, LFTRecords and PortInfoRecords (the LMCs) through the agent's own umad port
 * (requests by mad_io, each a mad/mad_txn transaction, answers back through the MAD router by
 * TID tag, reassembled by the MAD layer) and runs traffic/route_check on them, as pz-routecheck
 * does from a host.  One check at a time; the last result is kept for the CLI (`route check`) and
 * the MIB.
 *
 * Runs on the agent loop's thread only.
 */
#ifndef PZ_ROUTES_H
#define PZ_ROUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The router tag of the check's SA requests ('r' in the top TID byte; mad_txn.h's layout). */
#define PZ_ROUTES_TID_MASK 0xFF000000u
#define PZ_ROUTES_TID_TAG 0x72000000u

struct mad_addr;
struct sma;

/* How a request MAD (IB_MAD_SIZE bytes) goes out: 0 or -1 (portzerod: mad_io_send). */
typedef int (*pz_routes_send_fn)(void *ctx, const uint8_t *mad, const struct mad_addr *to);

/* Where a check stands. */
enum pz_routes_state {
    PZ_ROUTES_IDLE,    /* never run */
    PZ_ROUTES_RUNNING, /* waiting for the SA */
    PZ_ROUTES_DONE,    /* the last check finished */
    PZ_ROUTES_FAILED,  /* the last check failed (pz_routes_error says why) */
};

/* The last finished check, for the MIB. */
struct pz_routes_summary {
    bool valid;
    int64_t when;            /* wall-clock seconds (time(NULL)) at its end */
    uint32_t switches;       /* switches in the SA's NodeRecords */
    uint32_t pairs;          /* switch-to-switch pairs */
    uint32_t unrouted;       /* of them without a route */
    uint32_t unrouted_total; /* every route without one (CA destinations too with all) */
    bool cycle;              /* a cycle in the channel dependency graph */
    uint32_t check_us;       /* the check itself */
};

struct pz_routes;

/* A checker sending through send(ctx, ...), reading the SM's LID from sma's port 0;
 * NULL without memory. */
struct pz_routes *pz_routes_create(pz_routes_send_fn send, void *ctx, struct sma *sma);
void pz_routes_destroy(struct pz_routes *rt);

/* MAD router client (mad_answer_fn): an SA answer carrying the check's tag. */
void pz_routes_take_mad(void *arg, const uint8_t *mad, size_t len);

/*
 * Start a check (all: CA destinations too) at now_ns (the loop's clock).
 * Returns 0, -EBUSY (one runs), -ENOENT (no SM known), -EIO (not sent).
 */
int pz_routes_start(struct pz_routes *rt, bool all, uint64_t now_ns);

/* Resend or give up what timed out by now_ns; returns the state. */
enum pz_routes_state pz_routes_poll(struct pz_routes *rt, uint64_t now_ns);

/* Why the last check failed. */
const char *pz_routes_error(const struct pz_routes *rt);

/* The last finished check's report (text or JSON); false when there is none. */
bool pz_routes_report(const struct pz_routes *rt, FILE *out, bool json);

/* The last finished check, for the MIB. */
struct pz_routes_summary pz_routes_last(const struct pz_routes *rt);

/*
 * Links on the live route from switch src_lid to dlid as the last finished
 * check read the tables (rc_route_hops); -1 when unrouted or no check ran.
 */
int pz_routes_hops(const struct pz_routes *rt, uint16_t src_lid, uint16_t dlid);

#endif
