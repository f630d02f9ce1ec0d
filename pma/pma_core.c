/*
 * pma_core.c - PMA instance, GMP reception, dispatch, status codes,
 * ClassPortInfo and response routing.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pma_internal.h"
#include "pma_vendor.h"

/* How the PMA answers one attribute (NULL set: read-only). */
struct pma_attr_entry {
    uint16_t id;
    pma_attr_fn *get;
    pma_attr_fn *set;
    bool uses_mod; /* takes a non-zero AttributeModifier */
};

static uint16_t pma_cpi_get(struct pma *pma, struct pma_req *req);

/* Attributes with handlers of their own; the array attributes are in pma_attrs.c. */
static const struct pma_attr_entry pma_attrs[] = {
    {CLASS_PORT_INFO, pma_cpi_get, NULL, false},
    {IB_GSI_PORT_SAMPLES_CONTROL, pma_psc_get, pma_psc_set, false},
    {IB_GSI_PORT_SAMPLES_RESULT, pma_psr_get, NULL, false},
    {IB_GSI_PORT_COUNTERS, pma_pc_get, pma_pc_set, false},
    {IB_GSI_PORT_COUNTERS_EXT, pma_pce_get, pma_pce_set, false},
    {PMA_ATTR_PORT_SAMPLES_RESULT_EXT, pma_psr_ext_get, NULL, false},
};

static const struct pma_attr_entry pma_block_entry = {0, pma_block_get, pma_block_set, false};

/* The vendor attribute, known only while a monitor is attached (pma_vendor.c). */
static const struct pma_attr_entry pma_vendor_entry = {PZ_ATTR_CONG_MONITOR, pma_vendor_get,
                                                       pma_vendor_set, true};

/* The table entry for attr_id on this node, or NULL (status 0x0C). */
static const struct pma_attr_entry *pma_find_attr(const struct pma *pma, unsigned attr_id)
{
    for (size_t i = 0; i < sizeof(pma_attrs) / sizeof(pma_attrs[0]); i++)
        if (pma_attrs[i].id == attr_id)
            return &pma_attrs[i];
    if (attr_id == PZ_ATTR_CONG_MONITOR)
        return pma->cong ? &pma_vendor_entry : NULL;
    return pma_block_attr_known(pma, attr_id) ? &pma_block_entry : NULL;
}

/* ClassPortInfo.CapabilityMask: what this PMA does. */
static unsigned pma_capmask(const struct pma *pma)
{
    unsigned cap = PMA_CAP_EXT_WIDTH | PMA_CAP_XMIT_WAIT | PMA_CAP_QP1_DROP;

    if (pma->is_switch)
        cap |= PMA_CAP_ALL_PORT_SELECT;
    return cap;
}

/* ClassPortInfo: no redirection, no traps. */
static uint16_t pma_cpi_get(struct pma *pma, struct pma_req *req)
{
    mad_set_field(req->out, 0, IB_CPI_BASEVER_F, 1);
    mad_set_field(req->out, 0, IB_CPI_CLASSVER_F, 1);
    mad_set_field(req->out, 0, IB_CPI_CAPMASK_F, pma_capmask(pma));
    mad_set_field(req->out, 0, IB_CPI_CAPMASK2_F, PMA_CAP2_ADDL_PORT_COUNTERS_EXT);
    mad_set_field(req->out, 0, IB_CPI_RESP_TIME_VALUE_F, PMA_RESP_TIME_VALUE);
    return MAD_STATUS_OK;
}

struct pma *pma_create(const struct board *board)
{
    struct pma *pma;

    if (!board || !board->id || !board->ops || board->id->num_ports == 0)
        return NULL;
    pma = calloc(1, sizeof(*pma));
    if (!pma)
        return NULL;
    pma->board = board;
    pma->is_switch = board->id->node_type == BOARD_NODE_SWITCH;
    pma->num_ports = board->id->num_ports;
    pma->ports = calloc(pma->num_ports + 1, sizeof(*pma->ports));
    if (!pma->ports) {
        free(pma);
        return NULL;
    }
    pma_counters_init(pma);
    pma_sampler_init(pma);
    pma->last_poll_ns = board_now_ns(board);
    return pma;
}

void pma_destroy(struct pma *pma)
{
    if (!pma)
        return;
    pma_counters_free(pma);
    free(pma->ports);
    free(pma);
}

/* Run the attribute handler for a request; returns the MAD status. */
static uint16_t pma_dispatch(struct pma *pma, struct pma_req *req, uint32_t attr_mod)
{
    const struct pma_attr_entry *e;

    if (req->method != IB_MAD_METHOD_GET && req->method != IB_MAD_METHOD_SET)
        return MAD_STATUS_BAD_METHOD;
    e = pma_find_attr(pma, req->attr_id);
    if (!e || (req->method == IB_MAD_METHOD_SET && !e->set))
        return MAD_STATUS_BAD_METHOD_ATTR;
    if (attr_mod != 0 && !e->uses_mod)
        return MAD_STATUS_BAD_FIELD; /* only the vendor attribute uses the modifier */
    req->attr_mod = attr_mod;
    return req->method == IB_MAD_METHOD_GET ? e->get(pma, req) : e->set(pma, req);
}

enum mad_verdict pma_process(struct pma *pma, const struct mad_addr *in_addr, const uint8_t *in,
                             size_t in_len, struct mad_addr *out_addr, uint8_t out[PMA_MAD_SIZE])
{
    int method = gmp_request_method(in, in_len, IB_PERFORMANCE_CLASS);
    struct pma_req req;
    uint16_t status;

    pma->stats.mads_received++;
    if (method < 0 || in_addr->port > pma->num_ports) {
        pma->stats.dropped++;
        return MAD_DROP;
    }
    memcpy(out, in, PMA_MAD_SIZE);
    memset(out + GMP_DATA_OFFS, 0, GMP_DATA_SIZE);
    req.method = (uint8_t)method;
    req.attr_id = (uint16_t)mad_get_field(out, 0, IB_MAD_ATTRID_F);
    req.in = in + GMP_DATA_OFFS;
    req.out = out + GMP_DATA_OFFS;
    if (mad_get_field(out, 0, IB_MAD_CLASSVER_F) != 1)
        status = MAD_STATUS_BAD_VERSION;
    else
        status = pma_dispatch(pma, &req, mad_get_field(out, 0, IB_MAD_ATTRMOD_F));
    if (status != MAD_STATUS_OK)
        memcpy(out + GMP_DATA_OFFS, in + GMP_DATA_OFFS, GMP_DATA_SIZE); /* echo the request */
    gmp_make_response(out, status);
    gmp_reply_addr(in_addr, pma->board->id, out_addr);
    pma->stats.responses_sent++;
    return MAD_SEND;
}

void pma_poll(struct pma *pma)
{
    uint64_t now = board_now_ns(pma->board);

    pma_refresh_all(pma);
    pma->last_poll_ns = now;
    pma_sampler_advance(pma, now);
}

/*
 * The sampling engine's next deadline and, when the hardware counters can
 * wrap, the next wrap-protection poll.  64-bit hardware counters never wrap:
 * the deltas a read adds telescope, so reading them when asked gives the
 * same totals as reading them every second, and no periodic poll is due.
 */
uint64_t pma_next_deadline(const struct pma *pma)
{
    uint64_t next = pma->last_poll_ns + PMA_POLL_INTERVAL_NS;
    uint64_t sample = pma_sampler_deadline(pma);

    if (pma->hw_mask == UINT64_MAX)
        return sample;
    return sample < next ? sample : next;
}

void pma_get_stats(const struct pma *pma, struct pma_stats *stats)
{
    *stats = pma->stats;
}
