/*
 * snmp_sink.c - the receive side of notification sinks: Responses to
 * informs, routed by the sender's address to the sessions of the sinks at
 * that address (see snmp_transport.c for why the address identifies them).
 *
 * The table belongs to the agent and holds no pointer into net-snmp: a sink
 * is known by its destination and the descriptor of its transport (an
 * eventfd of ours).  net-snmp may free a transport without closing it (a
 * failed session open); its row then keeps a descriptor that is never
 * closed, so the number is never reused, and Responses queued for it are
 * dropped once no session reads them (snmp_sink_drop_all).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "snmp_internal.h"

/* Datagrams one sink keeps for its session. */
#define SNMP_SINK_QUEUE 8

/* One sink: where its notifications go, its transport's descriptor, its queue. */
struct snmp_sink {
    struct pz_snmp_peer to;
    int fd; /* -1: a free row */
    unsigned head, count;
    struct snmp_dgram queue[SNMP_SINK_QUEUE];
};

/* Free the queued datagrams of one row (lock held). */
static void sink_drain(struct snmp_sink *k)
{
    while (k->count) {
        free(k->queue[k->head].buf);
        k->queue[k->head].buf = NULL;
        k->head = (k->head + 1) % SNMP_SINK_QUEUE;
        k->count--;
    }
}

/* The row of descriptor fd, NULL if none (lock held). */
static struct snmp_sink *sink_find(struct pz_snmp *s, int fd)
{
    for (size_t i = 0; i < s->num_sinks; i++)
        if (s->sinks[i].fd == fd)
            return &s->sinks[i];
    return NULL;
}

int snmp_sink_add(struct pz_snmp *s, const struct pz_snmp_peer *to, int fd)
{
    struct snmp_sink *k;
    int rc = 0;

    pthread_mutex_lock(&s->lock);
    k = sink_find(s, -1);
    if (!k) {
        struct snmp_sink *more = realloc(s->sinks, (s->num_sinks + 1) * sizeof(*more));

        if (more) {
            s->sinks = more;
            k = &s->sinks[s->num_sinks++];
        } else {
            rc = -ENOMEM;
        }
    }
    if (k) {
        memset(k, 0, sizeof(*k));
        k->to = *to;
        k->fd = fd;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void snmp_sink_remove(struct pz_snmp *s, int fd)
{
    struct snmp_sink *k;

    pthread_mutex_lock(&s->lock);
    k = fd >= 0 ? sink_find(s, fd) : NULL;
    if (k) {
        sink_drain(k);
        k->fd = -1;
    }
    pthread_mutex_unlock(&s->lock);
}

bool snmp_sink_pop(struct pz_snmp *s, int fd, struct snmp_dgram *d)
{
    struct snmp_sink *k;
    bool got = false;

    pthread_mutex_lock(&s->lock);
    k = fd >= 0 ? sink_find(s, fd) : NULL;
    if (k && k->count) {
        *d = k->queue[k->head];
        k->queue[k->head].buf = NULL;
        k->head = (k->head + 1) % SNMP_SINK_QUEUE;
        k->count--;
        got = true;
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

/* Queue a copy of buf on row k and wake its descriptor; false if dropped (lock held). */
static bool sink_queue(struct snmp_sink *k, const struct pz_snmp_peer *from, const void *buf,
                       size_t len)
{
    uint64_t one = 1;
    struct snmp_dgram *d;
    uint8_t *copy;

    if (k->count == SNMP_SINK_QUEUE)
        return false;
    copy = malloc(len ? len : 1);
    if (!copy)
        return false;
    memcpy(copy, buf, len);
    d = &k->queue[(k->head + k->count) % SNMP_SINK_QUEUE];
    d->from = *from;
    d->len = len;
    d->buf = copy;
    k->count++;
    if (write(k->fd, &one, sizeof(one)) < 0)
        one = 0; /* saturated: it polls readable anyway */
    return true;
}

int snmp_sink_push(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf, size_t len)
{
    int rc = -ENOENT;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->num_sinks; i++) {
        struct snmp_sink *k = &s->sinks[i];

        if (k->fd < 0 || !snmp_peer_equal(&k->to, from))
            continue;
        /* Every session of that address gets it: the one waiting for its request ID takes it. */
        if (sink_queue(k, from, buf, len))
            rc = 0;
        else if (rc != 0)
            rc = -ENOBUFS;
    }
    s->stats.datagrams_in += rc != -ENOENT;
    s->stats.datagrams_dropped += rc == -ENOBUFS;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

unsigned snmp_sink_fds(struct pz_snmp *s, void *fdset)
{
    netsnmp_large_fd_set *fds = fdset;
    unsigned queued = 0;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->num_sinks; i++)
        if (s->sinks[i].fd >= 0 && s->sinks[i].count) {
            netsnmp_large_fd_setfd(s->sinks[i].fd, fds);
            queued += s->sinks[i].count;
        }
    pthread_mutex_unlock(&s->lock);
    return queued;
}

unsigned snmp_sink_queued(struct pz_snmp *s)
{
    unsigned queued = 0;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->num_sinks; i++)
        queued += s->sinks[i].fd >= 0 ? s->sinks[i].count : 0;
    pthread_mutex_unlock(&s->lock);
    return queued;
}

void snmp_sink_drop_all(struct pz_snmp *s)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->num_sinks; i++) {
        s->stats.datagrams_dropped += s->sinks[i].count;
        sink_drain(&s->sinks[i]);
    }
    pthread_mutex_unlock(&s->lock);
}

void snmp_sink_free(struct pz_snmp *s)
{
    for (size_t i = 0; i < s->num_sinks; i++)
        sink_drain(&s->sinks[i]);
    free(s->sinks);
    s->sinks = NULL;
    s->num_sinks = 0;
}
