/*
 * ssh_backoff.c - per-source-address back-off after failed passwords (see
 * ssh_backoff.h).
 *
 * Once an address has failed `after` times, each attempt of it takes a turn:
 * turns are at least one delay apart (delay = base, doubled per further
 * failure, capped at max), and a failure pushes the next turn to at least one
 * delay after it.  So consecutive verdicts of one address are at least the
 * delay apart however many connections it opens, and an address waiting for
 * its turn costs no hashing.  A quiet address (no failure for forget_ms) and
 * a login forget its failures.  The table is a fixed array: a newcomer takes
 * a free entry or the least recently used one, so a flood of addresses
 * cannot grow memory (it can only make the table forget early).
 */
#include "ssh_backoff.h"

#include <stdlib.h>
#include <string.h>

struct backoff_entry {
    char addr[SSH_ADDR_MAX];
    bool used;
    uint32_t failures;
    uint64_t last_failure, next_turn, last_used;
};

struct ssh_backoff {
    struct ssh_backoff_config cfg;
    struct backoff_entry *e;
};

/* An empty table of cfg->table entries. */
struct ssh_backoff *ssh_backoff_new(const struct ssh_backoff_config *cfg)
{
    struct ssh_backoff *bo = calloc(1, sizeof(*bo));

    if (!bo)
        return NULL;
    bo->cfg = *cfg;
    if (!bo->cfg.table)
        bo->cfg.table = 1;
    bo->e = calloc(bo->cfg.table, sizeof(*bo->e));
    if (!bo->e) {
        free(bo);
        return NULL;
    }
    return bo;
}

/* Frees the table. */
void ssh_backoff_free(struct ssh_backoff *bo)
{
    if (!bo)
        return;
    free(bo->e);
    free(bo);
}

/* base_ms << (failures - after), capped at max_ms; 0 below the threshold. */
uint64_t ssh_backoff_delay(const struct ssh_backoff *bo, uint32_t failures)
{
    uint32_t steps;
    uint64_t d;

    if (failures < bo->cfg.after)
        return 0;
    steps = failures - bo->cfg.after;
    d = steps >= 32 ? UINT64_MAX : (uint64_t)bo->cfg.base_ms << steps;
    return d < bo->cfg.max_ms ? d : bo->cfg.max_ms;
}

/* addr's entry, or NULL; an entry quiet for forget_ms is cleared first. */
static struct backoff_entry *find(struct ssh_backoff *bo, const char *addr, uint64_t now)
{
    for (uint32_t i = 0; i < bo->cfg.table; i++) {
        struct backoff_entry *e = &bo->e[i];

        if (!e->used || strcmp(e->addr, addr) != 0)
            continue;
        if (now > e->last_failure && now - e->last_failure >= bo->cfg.forget_ms) {
            e->used = false;
            return NULL;
        }
        e->last_used = now;
        return e;
    }
    return NULL;
}

/* A new entry for addr: a free one, else the least recently used. */
static struct backoff_entry *make(struct ssh_backoff *bo, const char *addr, uint64_t now)
{
    struct backoff_entry *e = &bo->e[0];

    for (uint32_t i = 0; i < bo->cfg.table; i++) {
        if (!bo->e[i].used) {
            e = &bo->e[i];
            break;
        }
        if (bo->e[i].last_used < e->last_used)
            e = &bo->e[i];
    }
    memset(e, 0, sizeof(*e));
    e->used = true;
    strncpy(e->addr, addr, sizeof(e->addr) - 1);
    e->last_used = now;
    return e;
}

/* Takes addr's next turn: the wait until it, and the turn after it one delay later;
 * *turn (optional) is the turn's time, 0 outside back-off. */
uint64_t ssh_backoff_turn(struct ssh_backoff *bo, const char *addr, uint64_t now, uint64_t *turn)
{
    struct backoff_entry *e = find(bo, addr, now);
    uint64_t start;

    if (turn)
        *turn = 0;
    if (!e || e->failures < bo->cfg.after)
        return 0;
    start = e->next_turn > now ? e->next_turn : now;
    e->next_turn = start + ssh_backoff_delay(bo, e->failures);
    if (turn)
        *turn = start;
    return start - now;
}

/* Counts a failure; from the threshold on, the next turn is one delay after it at least. */
uint32_t ssh_backoff_failed(struct ssh_backoff *bo, const char *addr, uint64_t now)
{
    struct backoff_entry *e = find(bo, addr, now);
    uint64_t earliest;

    if (!e)
        e = make(bo, addr, now);
    if (e->failures < UINT32_MAX)
        e->failures++;
    e->last_failure = now;
    if (e->failures >= bo->cfg.after) {
        earliest = now + ssh_backoff_delay(bo, e->failures);
        if (e->next_turn < earliest)
            e->next_turn = earliest;
    }
    return e->failures;
}

/* Forgets addr. */
void ssh_backoff_success(struct ssh_backoff *bo, const char *addr)
{
    for (uint32_t i = 0; i < bo->cfg.table; i++)
        if (bo->e[i].used && strcmp(bo->e[i].addr, addr) == 0)
            bo->e[i].used = false;
}
