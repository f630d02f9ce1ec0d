/*
 * pma_samples.c - the sampling engine: PortSamplesControl (0x10),
 * PortSamplesResult (0x11) and PortSamplesResultExtended (0x1E).
 *
 * A Set of PortSamplesControl starts a session: after SampleStart ticks the
 * engine snapshots the selected counters (status Running), after a further
 * SampleInterval ticks it snapshots them again (status Done) and the results
 * are the differences.  A tick is PMA_SAMPLE_TICK_NS of board clock.  A Set
 * while a session is Started or Running abandons it and starts the new one;
 * a manager recognises a session by its Tag.  The snapshots are taken when
 * pma_poll() or a PMA request runs at or after the deadline, so the agent
 * calls pma_poll() at pma_next_deadline().
 */
#include <string.h>

#include <infiniband/mad.h>

#include "pma_internal.h"

/*
 * PortSamplesControl.Tick = 249: a tick of (Tick + 1) * 4 ns = 1 us, the
 * encoding the ipath/qib drivers document ("0 == 4 nsec ... 255 == 1020").
 */
#define PMA_SAMPLE_TICK 249
#define PMA_SAMPLE_TICK_NS 1000ull

/* PortSamplesControl.CounterWidth 4: the sample counters are 32 bits wide. */
#define PMA_SAMPLE_COUNTER_WIDTH 4

/*
 * CounterMasks: one 3-bit field per counter, 1 = the counter supports the
 * sampling mechanism; all 15 counters do.
 */
#define PMA_SAMPLE_MASK0 1u
#define PMA_SAMPLE_MASKS1TO9 0x01249249u
#define PMA_SAMPLE_MASKS10TO14 0x1249u

/* PortSamplesResultExtended.ExtendedWidth 2 (64-bit counters), bits 31-30 of bytes 4-7. */
#define PMA_PSRE_WIDTH_OFFS 4
#define PMA_PSRE_WIDTH_64 0x80
#define PMA_PSRE_COUNTER_OFFS 8

/* CounterSelect values the engine samples (IBA's mandatory set); 0 = unused. */
enum pma_sample_select {
    PMA_SAMPLE_NONE = 0x0000,
    PMA_SAMPLE_XMIT_DATA = 0x0001,
    PMA_SAMPLE_RCV_DATA = 0x0002,
    PMA_SAMPLE_XMIT_PKTS = 0x0003,
    PMA_SAMPLE_RCV_PKTS = 0x0004,
    PMA_SAMPLE_XMIT_WAIT = 0x0005,
};

/* The software counter a CounterSelect value samples; -1 if unsupported, -2 for none. */
static int pma_sample_ctr(unsigned select)
{
    switch (select) {
    case PMA_SAMPLE_NONE:
        return -2;
    case PMA_SAMPLE_XMIT_DATA:
        return (int)PMA_CTR(xmit_data);
    case PMA_SAMPLE_RCV_DATA:
        return (int)PMA_CTR(rcv_data);
    case PMA_SAMPLE_XMIT_PKTS:
        return (int)PMA_CTR(xmit_pkts);
    case PMA_SAMPLE_RCV_PKTS:
        return (int)PMA_CTR(rcv_pkts);
    case PMA_SAMPLE_XMIT_WAIT:
        return (int)PMA_CTR(xmit_wait);
    default:
        return -1;
    }
}

/* Read the current value of every selected counter into v[]. */
static void pma_sample_snapshot(struct pma *pma, uint64_t v[PMA_SAMPLE_COUNTERS])
{
    struct pma_sampler *s = &pma->sampler;

    pma_refresh(pma, s->port_select);
    for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++) {
        int ctr = pma_sample_ctr(s->select[i]);

        v[i] = ctr >= 0 ? pma_total_value(pma, s->port_select, (size_t)ctr) : 0;
    }
}

void pma_sampler_init(struct pma *pma)
{
    struct pma_sampler *s = &pma->sampler;

    memset(s, 0, sizeof(*s));
    s->status = PMA_SAMPLE_DONE;
    s->port_select = pma->is_switch ? PMA_ALL_PORTS : 1;
    for (unsigned i = 0; i < 5; i++)
        s->select[i] = (uint16_t)(PMA_SAMPLE_XMIT_DATA + i);
}

void pma_sampler_advance(struct pma *pma, uint64_t now)
{
    struct pma_sampler *s = &pma->sampler;
    uint64_t end[PMA_SAMPLE_COUNTERS];

    if (s->status == PMA_SAMPLE_STARTED && now >= s->start_ns) {
        pma_sample_snapshot(pma, s->begin);
        s->status = PMA_SAMPLE_RUNNING;
    }
    if (s->status == PMA_SAMPLE_RUNNING && now >= s->end_ns) {
        pma_sample_snapshot(pma, end);
        for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++)
            s->result[i] = end[i] - s->begin[i];
        s->status = PMA_SAMPLE_DONE;
    }
}

uint64_t pma_sampler_deadline(const struct pma *pma)
{
    const struct pma_sampler *s = &pma->sampler;

    if (s->status == PMA_SAMPLE_STARTED)
        return s->start_ns;
    if (s->status == PMA_SAMPLE_RUNNING)
        return s->end_ns;
    return UINT64_MAX;
}

/* Fill a PortSamplesControl with the engine's state. */
static void pma_psc_put(const struct pma *pma, uint8_t *d)
{
    const struct pma_sampler *s = &pma->sampler;

    mad_set_field(d, 0, IB_PSC_PORT_SELECT_F, s->port_select);
    mad_set_field(d, 0, IB_PSC_TICK_F, PMA_SAMPLE_TICK);
    mad_set_field(d, 0, IB_PSC_COUNTER_WIDTH_F, PMA_SAMPLE_COUNTER_WIDTH);
    mad_set_field(d, 0, IB_PSC_COUNTER_MASK0_F, PMA_SAMPLE_MASK0);
    mad_set_field(d, 0, IB_PSC_COUNTER_MASKS1TO9_F, PMA_SAMPLE_MASKS1TO9);
    mad_set_field(d, 0, IB_PSC_COUNTER_MASKS10TO14_F, PMA_SAMPLE_MASKS10TO14);
    mad_set_field(d, 0, IB_PSC_SAMPLE_STATUS_F, s->status);
    mad_set_field(d, 0, IB_PSC_SAMPLE_START_F, s->sample_start);
    mad_set_field(d, 0, IB_PSC_SAMPLE_INTVL_F, s->sample_interval);
    mad_set_field(d, 0, IB_PSC_TAG_F, s->tag);
    for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++)
        mad_set_field(d, 0, (enum MAD_FIELDS)(IB_PSC_COUNTER_SEL0_F + i), s->select[i]);
}

uint16_t pma_psc_get(struct pma *pma, struct pma_req *req)
{
    unsigned ps = mad_get_field((void *)req->in, 0, IB_PSC_PORT_SELECT_F);

    /* A Get naming a port (perfquery -c LID PORT) must name one that exists; 0: none named. */
    if (ps != 0 && pma_check_port_select(pma, ps))
        return MAD_STATUS_BAD_FIELD;
    pma_sampler_advance(pma, board_now_ns(pma->board));
    pma_psc_put(pma, req->out);
    return MAD_STATUS_OK;
}

/* Check a PortSamplesControl Set; returns a MAD status. */
static uint16_t pma_psc_validate(const struct pma *pma, const uint8_t *d)
{
    void *in = (void *)d;

    if (pma_check_port_select(pma, mad_get_field(in, 0, IB_PSC_PORT_SELECT_F)))
        return MAD_STATUS_BAD_FIELD;
    for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++)
        if (pma_sample_ctr(mad_get_field(in, 0, (enum MAD_FIELDS)(IB_PSC_COUNTER_SEL0_F + i))) ==
            -1)
            return MAD_STATUS_BAD_FIELD;
    return MAD_STATUS_OK;
}

uint16_t pma_psc_set(struct pma *pma, struct pma_req *req)
{
    struct pma_sampler *s = &pma->sampler;
    void *in = (void *)req->in;
    uint64_t now = board_now_ns(pma->board);
    uint16_t status = pma_psc_validate(pma, req->in);

    if (status)
        return status;
    s->port_select = (uint8_t)mad_get_field(in, 0, IB_PSC_PORT_SELECT_F);
    s->tag = (uint16_t)mad_get_field(in, 0, IB_PSC_TAG_F);
    s->sample_start = mad_get_field(in, 0, IB_PSC_SAMPLE_START_F);
    s->sample_interval = mad_get_field(in, 0, IB_PSC_SAMPLE_INTVL_F);
    for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++)
        s->select[i] = (uint16_t)mad_get_field(in, 0, (enum MAD_FIELDS)(IB_PSC_COUNTER_SEL0_F + i));
    s->start_ns = now + s->sample_start * PMA_SAMPLE_TICK_NS;
    s->end_ns = s->start_ns + s->sample_interval * PMA_SAMPLE_TICK_NS;
    memset(s->result, 0, sizeof(s->result));
    s->status = PMA_SAMPLE_STARTED;
    pma_sampler_advance(pma, now);
    pma_psc_put(pma, req->out);
    return MAD_STATUS_OK;
}

/*
 * The head both PortSamplesResult attributes share: the sampler brought up
 * to now, its Tag and SampleStatus written (the same place in both).
 * Returns the sampler.
 */
static const struct pma_sampler *pma_psr_head(struct pma *pma, struct pma_req *req)
{
    const struct pma_sampler *s = &pma->sampler;

    pma_sampler_advance(pma, board_now_ns(pma->board));
    mad_set_field(req->out, 0, IB_PSR_TAG_F, s->tag);
    mad_set_field(req->out, 0, IB_PSR_SAMPLE_STATUS_F, s->status);
    return s;
}

uint16_t pma_psr_get(struct pma *pma, struct pma_req *req)
{
    const struct pma_sampler *s = pma_psr_head(pma, req);

    if (s->status != PMA_SAMPLE_DONE)
        return MAD_STATUS_OK; /* counters are valid only when Done */
    for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++)
        mad_set_field(req->out, 0, (enum MAD_FIELDS)(IB_PSR_COUNTER0_F + i),
                      (uint32_t)gmp_saturate(s->result[i], 32));
    return MAD_STATUS_OK;
}

/*
 * PortSamplesResultExtended has Tag and SampleStatus where PortSamplesResult
 * has them, so those use libibmad's IB_PSR_* fields; libibmad describes
 * nothing else of it, so ExtendedWidth and the 64-bit counters are
 * hand-packed.
 */
uint16_t pma_psr_ext_get(struct pma *pma, struct pma_req *req)
{
    const struct pma_sampler *s = pma_psr_head(pma, req);

    req->out[PMA_PSRE_WIDTH_OFFS] = PMA_PSRE_WIDTH_64;
    if (s->status != PMA_SAMPLE_DONE)
        return MAD_STATUS_OK;
    for (unsigned i = 0; i < PMA_SAMPLE_COUNTERS; i++)
        be64_put(req->out + PMA_PSRE_COUNTER_OFFS + 8 * i, s->result[i]);
    return MAD_STATUS_OK;
}
