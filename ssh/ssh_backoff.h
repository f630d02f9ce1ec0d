/*
 * ssh_backoff.h - per-source-address back-off after failed passwords: a
 * bounded table of addresses (the least recently used forgotten first) with
 * each one's failure count and the time its next attempt may be verified.
 */
#ifndef PZ_SSH_BACKOFF_H
#define PZ_SSH_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

#define SSH_ADDR_MAX 48 /* an address as text, with its NUL (IPv6 fits) */

struct ssh_backoff_config {
    uint32_t after;     /* failures of one address before its attempts wait; UINT32_MAX: never */
    uint32_t base_ms;   /* the first wait; it doubles with each further failure */
    uint32_t max_ms;    /* up to this */
    uint32_t forget_ms; /* an address without a failure for this long starts afresh */
    uint32_t table;     /* addresses remembered */
};

struct ssh_backoff;

/* An empty table; NULL without memory. */
struct ssh_backoff *ssh_backoff_new(const struct ssh_backoff_config *cfg);
void ssh_backoff_free(struct ssh_backoff *bo);
/* The wait (ms) before the attempt that addr makes at now may be verified, and its
 * turn taken: the next attempt comes at least one more delay later.  0: at once.
 * *turn (if turn is not NULL): the turn's time when addr is in back-off (now when the
 * attempt came after it), else 0. */
uint64_t ssh_backoff_turn(struct ssh_backoff *bo, const char *addr, uint64_t now, uint64_t *turn);
/* A failed password from addr at now; returns the address's failure count (the
 * back-off starts when it reaches cfg->after). */
uint32_t ssh_backoff_failed(struct ssh_backoff *bo, const char *addr, uint64_t now);
/* A login from addr: its failures are forgotten. */
void ssh_backoff_success(struct ssh_backoff *bo, const char *addr);
/* The wait after failures failures (0 below cfg->after), for the log. */
uint64_t ssh_backoff_delay(const struct ssh_backoff *bo, uint32_t failures);

#endif
