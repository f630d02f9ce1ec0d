/*
 * snmp_hold.c - notifications held while the path to their sink is down.
 *
 * A notification whose send fails (portzerod: lwIP has no route while the
 * IPoIB interface is down, e.g. during a rejoin after an SM change) is kept
 * and sent again, in order, once sending works; as a switch's trap queue
 * holds traps until the route to the trap host exists.  Held notifications
 * are bounded in number (the oldest is dropped for a new one) and in age
 * (PZ_SNMP_HOLD_NS), and a later notification to any sink waits behind
 * them, so a sink never sees a linkUp before the linkDown it follows.
 * Answers to requests are never held: the manager retries those itself.
 * Agent thread only.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snmp_internal.h"

/* Monotonic time in nanoseconds. */
static uint64_t hold_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The i-th held notification, oldest first. */
static struct snmp_held *hold_at(struct pz_snmp *s, unsigned i)
{
    return &s->held[(s->held_head + i) % PZ_SNMP_HOLD_LEN];
}

/* Forget the oldest held notification; counts it as dropped unless it was sent. */
static void hold_pop(struct pz_snmp *s, bool sent)
{
    struct snmp_held *h = hold_at(s, 0);

    free(h->buf);
    h->buf = NULL;
    s->held_head = (s->held_head + 1) % PZ_SNMP_HOLD_LEN;
    s->held_count--;
    if (!sent)
        s->stats.notifications_dropped++;
}

/* Keep a copy of a notification for `to`; the oldest gives way when full. */
static void hold_push(struct pz_snmp *s, const struct pz_snmp_peer *to, const void *buf, size_t len)
{
    struct snmp_held *h;
    uint8_t *copy = malloc(len ? len : 1);

    if (!copy) {
        s->stats.notifications_dropped++;
        return;
    }
    memcpy(copy, buf, len);
    if (s->held_count == PZ_SNMP_HOLD_LEN)
        hold_pop(s, false);
    h = hold_at(s, s->held_count++);
    h->to = *to;
    h->buf = copy;
    h->len = len;
    h->since_ns = hold_now_ns();
    s->stats.notifications_held++;
}

/* Send the held notifications in order until one fails; drops those too old. */
void snmp_hold_flush(struct pz_snmp *s)
{
    uint64_t now;

    if (!s->held_count)
        return;
    now = hold_now_ns();
    while (s->held_count) {
        struct snmp_held *h = hold_at(s, 0);

        if (now - h->since_ns > PZ_SNMP_HOLD_NS) {
            hold_pop(s, false);
            continue;
        }
        if (s->p.send(s->p.send_arg, &h->to, h->buf, h->len) != 0)
            return;
        s->stats.datagrams_out++;
        hold_pop(s, true);
    }
}

int snmp_hold_send(struct pz_snmp *s, const struct pz_snmp_peer *to, const void *buf, size_t len)
{
    snmp_hold_flush(s);
    if (!s->held_count && s->p.send(s->p.send_arg, to, buf, len) == 0) {
        s->stats.datagrams_out++;
        return 0;
    }
    hold_push(s, to, buf, len);
    return 0;
}

unsigned snmp_hold_count(const struct pz_snmp *s)
{
    return s->held_count;
}

void snmp_hold_free(struct pz_snmp *s)
{
    while (s->held_count)
        hold_pop(s, true);
}
