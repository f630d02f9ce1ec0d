/*
 * fabric_errors.c - error injection (pzfabric-ctl error-inject): add a
 * number of errors of one kind to a port's hardware counters, exactly, so
 * perfquery and ibqueryerrors can be checked against it.
 *
 * A detail kind (PortRcvErrorDetails, PortXmitDiscardDetails) also counts
 * in the aggregate counter it details, as on hardware: a malformed packet is
 * a PortRcvErrors and a PortMalformedPacketErrors.  "rcv-errors" and
 * "xmit-discards" alone count only the aggregate (an unclassified error).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "fabric_internal.h"
#include "fabric_traffic.h"
#include "pzf_log.h"

#define ERR_NONE SIZE_MAX
#define ERR_CTR(field) offsetof(struct board_port_counters, field)

/* One kind: its name, the counter it adds to, and the aggregate it details (or ERR_NONE). */
struct err_kind {
    const char *name;
    size_t counter;
    size_t aggregate;
};

static const struct err_kind err_kinds[] = {
    {"symbol", ERR_CTR(symbol_errors), ERR_NONE},
    {"link-recovery", ERR_CTR(link_error_recovery), ERR_NONE},
    {"link-downed", ERR_CTR(link_downed), ERR_NONE},
    {"rcv-errors", ERR_CTR(rcv_errors), ERR_NONE},
    {"rcv-remote-phys", ERR_CTR(rcv_remote_phys_errors), ERR_NONE},
    {"rcv-switch-relay", ERR_CTR(rcv_switch_relay_errors), ERR_NONE},
    {"xmit-discards", ERR_CTR(xmit_discards), ERR_NONE},
    {"xmit-constraint", ERR_CTR(xmit_constraint_errors), ERR_NONE},
    {"rcv-constraint", ERR_CTR(rcv_constraint_errors), ERR_NONE},
    {"local-link-integrity", ERR_CTR(local_link_integrity_errors), ERR_NONE},
    {"excessive-buffer-overrun", ERR_CTR(excessive_buffer_overrun_errors), ERR_NONE},
    {"vl15-dropped", ERR_CTR(vl15_dropped), ERR_NONE},
    {"qp1-dropped", ERR_CTR(qp1_dropped), ERR_NONE},
    {"local-phy", ERR_CTR(local_phy_errors), ERR_CTR(rcv_errors)},
    {"malformed", ERR_CTR(malformed_pkt_errors), ERR_CTR(rcv_errors)},
    {"buffer-overrun", ERR_CTR(buffer_overrun_errors), ERR_CTR(rcv_errors)},
    {"dlid-mapping", ERR_CTR(dlid_mapping_errors), ERR_CTR(rcv_errors)},
    {"vl-mapping", ERR_CTR(vl_mapping_errors), ERR_CTR(rcv_errors)},
    {"looping", ERR_CTR(looping_errors), ERR_CTR(rcv_errors)},
    {"inactive-discard", ERR_CTR(inactive_discards), ERR_CTR(xmit_discards)},
    {"neighbor-mtu-discard", ERR_CTR(neighbor_mtu_discards), ERR_CTR(xmit_discards)},
    {"sw-lifetime-discard", ERR_CTR(sw_lifetime_limit_discards), ERR_CTR(xmit_discards)},
    {"hoq-discard", ERR_CTR(sw_hoq_lifetime_limit_discards), ERR_CTR(xmit_discards)},
};

#define ERR_NUM_KINDS (sizeof(err_kinds) / sizeof(err_kinds[0]))

const char *fabric_error_kinds(void)
{
    return "symbol link-recovery link-downed rcv-errors rcv-remote-phys rcv-switch-relay "
           "xmit-discards xmit-constraint rcv-constraint local-link-integrity "
           "excessive-buffer-overrun vl15-dropped qp1-dropped local-phy malformed "
           "buffer-overrun dlid-mapping vl-mapping looping inactive-discard "
           "neighbor-mtu-discard sw-lifetime-discard hoq-discard";
}

/* The kind named name, or NULL. */
static const struct err_kind *err_find(const char *name)
{
    for (size_t i = 0; i < ERR_NUM_KINDS; i++)
        if (!strcmp(err_kinds[i].name, name))
            return &err_kinds[i];
    return NULL;
}

/* Add count to the counter at byte offset off of c (wrapping at the board's width). */
static void err_add(struct fabric_node *n, struct board_port_counters *c, size_t off,
                    uint64_t count)
{
    board_mem_counter_add(n->bm, (uint64_t *)((char *)c + off), count);
}

int fabric_error_inject(struct fabric *f, size_t node, unsigned port, const char *kind,
                        uint64_t count)
{
    const struct err_kind *k = kind ? err_find(kind) : NULL;
    struct board_port_counters *c;
    struct fabric_node *n;

    if (node >= f->num_nodes || count == 0 || count > UINT32_MAX)
        return -EINVAL;
    n = &f->nodes[node];
    if (port > n->num_ports || (port == 0 && !n->is_switch))
        return -EINVAL;
    if (!k)
        return -ENOENT;
    c = board_mem_counters(n->bm, port);
    if (!c)
        return -EINVAL;
    err_add(n, c, k->counter, count);
    if (k->aggregate != ERR_NONE)
        err_add(n, c, k->aggregate, count);
    pzf_log(f->verbose, PZF_LOG_INFO, "injected %llu %s error(s) at %s[%u]",
            (unsigned long long)count, k->name, n->name, port);
    return 0;
}

void fabric_count_vl15_dropped(struct fabric *f, size_t node, unsigned port)
{
    struct board_port_counters *c;
    struct fabric_node *n;

    if (node >= f->num_nodes)
        return;
    n = &f->nodes[node];
    if (port > n->num_ports || !(c = board_mem_counters(n->bm, port)))
        return;
    err_add(n, c, ERR_CTR(vl15_dropped), 1);
}
