/*
 * node.c - one switch: its parts, MADs in through its router, the poll that
 * runs its timed work, and the deadline of that work (see node.h).
 */
#include "node_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "cc_agent.h"
#include "pma.h"
#include "sma.h"

void node_default_config(struct node_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cong_monitor_default_config(&cfg->mon);
    cfg->notices = true;
}

void node_log(const struct node *n, enum node_log_level level, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    if (!n->hooks.log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    n->hooks.log(n->hooks.arg, level, msg);
}

/* Router agent: the SMA serves the two SMI classes. */
static enum mad_verdict node_route_sma(void *arg, const struct mad_addr *from, const uint8_t *in,
                                       struct mad_addr *to, uint8_t *out)
{
    return sma_process(arg, from, in, IB_MAD_SIZE, to, out);
}

/* Router agent: the PMA. */
static enum mad_verdict node_route_pma(void *arg, const struct mad_addr *from, const uint8_t *in,
                                       struct mad_addr *to, uint8_t *out)
{
    return pma_process(arg, from, in, IB_MAD_SIZE, to, out);
}

/* Router agent: the Congestion Control agent. */
static enum mad_verdict node_route_cc(void *arg, const struct mad_addr *from, const uint8_t *in,
                                      struct mad_addr *to, uint8_t *out)
{
    return cc_process(arg, from, in, IB_MAD_SIZE, to, out);
}

/* Router client: the answers to discovery SMPs. */
static void node_route_discovery(void *arg, const uint8_t *mad, size_t len)
{
    (void)len; /* an SMP */
    node_discovery_take(arg, mad);
}

/* Who gets which MAD: the agents their classes' requests, discovery its answers; 0 or -1. */
static int node_setup_router(struct node *n)
{
    struct mad_router *r = &n->router;

    mad_router_init(r);
    if (mad_router_add_agent(r, IB_SMI_CLASS, node_route_sma, n->sma) ||
        mad_router_add_agent(r, IB_SMI_DIRECT_CLASS, node_route_sma, n->sma) ||
        mad_router_add_agent(r, IB_PERFORMANCE_CLASS, node_route_pma, n->pma) ||
        mad_router_add_agent(r, IB_CC_CLASS, node_route_cc, n->cc))
        return -1;
    if (n->cfg.discover &&
        mad_router_add_client(r, 0, NODE_DISC_TID_MASK, NODE_DISC_TID_TAG, node_route_discovery, n))
        return -1;
    return 0;
}

struct node *node_create(struct board *board, const struct node_config *cfg,
                         const struct node_hooks *hooks, char *err, size_t errlen)
{
    struct node *n = calloc(1, sizeof(*n));

    if (!n) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->board = board;
    n->cfg = *cfg;
    if (hooks)
        n->hooks = *hooks;
    n->num_ports = board->id->num_ports;
    n->ports = calloc(n->num_ports + 1, sizeof(*n->ports));
    n->sma = sma_create(board);
    n->pma = pma_create(board);
    n->cc = cc_create(board);
    if (!n->ports || !n->sma || !n->pma || !n->cc || node_setup_router(n)) {
        snprintf(err, errlen, "out of memory");
        node_destroy(n);
        return NULL;
    }
    node_discovery_reset(n);
    if (cfg->monitor && node_monitor_start(n, &cfg->mon)) {
        snprintf(err, errlen, "monitor: bad settings");
        node_destroy(n);
        return NULL;
    }
    return n;
}

void node_destroy(struct node *n)
{
    if (!n)
        return;
    node_monitor_stop(n); /* before the PMA it is attached to */
    sma_destroy(n->sma);
    pma_destroy(n->pma);
    cc_destroy(n->cc);
    free(n->ports);
    free(n);
}

enum mad_verdict node_process(struct node *n, const struct mad_addr *from, const uint8_t *in,
                              size_t len, struct mad_addr *to, uint8_t *out, enum mad_route *how)
{
    enum mad_route routed;

    return mad_router_dispatch(&n->router, from, in, len, to, out, how ? how : &routed);
}

int node_add_client(struct node *n, uint8_t mgmt_class, uint32_t tid_mask, uint32_t tid_tag,
                    mad_answer_fn fn, void *arg)
{
    return mad_router_add_client(&n->router, mgmt_class, tid_mask, tid_tag, fn, arg);
}

/*
 * The record carries the ingress port, which umad does not, and the MAD's
 * bytes 192-255, of which umad2sim does not deliver the last 32 (a DR
 * SMP's ReturnPath[32..63]; reserved, but echoed, in a LID-routed one).
 */
void node_take_rx_record(struct node *n, uint8_t *mad, struct mad_addr *from)
{
    unsigned mgmt_class = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);
    struct board_mad_rx rx;

    if ((mgmt_class != IB_SMI_CLASS && mgmt_class != IB_SMI_DIRECT_CLASS) ||
        mad_get_field(mad, 0, IB_MAD_RESPONSE_F) ||
        board_mad_rx(n->board, mad_get_field64(mad, 0, IB_MAD_TRID_F), &rx))
        return;
    from->port = rx.port;
    memcpy(mad + BOARD_MAD_TAIL_OFFS, rx.tail, BOARD_MAD_TAIL);
    if (mgmt_class == IB_SMI_DIRECT_CLASS)
        mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, rx.hop_ptr);
}

/*
 * The timed work that is due: the monitor first (it may queue notices for
 * the SMA to send), then the PMA's counter accumulation and sampling, only
 * when due (every port's counters cross the board: over board/sim, one
 * request per port).
 */
static void node_run_due(struct node *n)
{
    uint64_t now = board_now_ns(n->board);

    if (n->cfg.link_scan_ns)
        n->next_link_scan_ns = now + n->cfg.link_scan_ns;
    if (n->mon && n->cfg.discover)
        node_discovery_poll(n, now);
    node_monitor_poll(n, now);
    if (now >= pma_next_deadline(n->pma))
        pma_poll(n->pma);
}

enum mad_verdict node_poll(struct node *n, struct mad_addr *to, uint8_t *out)
{
    node_run_due(n);
    return sma_poll(n->sma, to, out);
}

uint64_t node_next_deadline(const struct node *n)
{
    uint64_t next = UINT64_MAX, t;

    if (n->cfg.link_scan_ns)
        next = n->next_link_scan_ns;
    if ((t = sma_next_deadline(n->sma)) < next)
        next = t;
    if ((t = pma_next_deadline(n->pma)) < next)
        next = t;
    if ((t = node_monitor_deadline(n)) < next)
        next = t;
    if (n->mon && n->cfg.discover && (t = node_discovery_deadline(n)) < next)
        next = t;
    return next;
}

struct board *node_board(const struct node *n)
{
    return n->board;
}

struct sma *node_sma(const struct node *n)
{
    return n->sma;
}

struct pma *node_pma(const struct node *n)
{
    return n->pma;
}

struct cc_agent *node_cc(const struct node *n)
{
    return n->cc;
}

struct cong_monitor *node_cong(const struct node *n)
{
    return n ? n->mon : NULL;
}
