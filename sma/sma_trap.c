/*
 * sma_trap.c - traps (IBA 14.2.5.1, 13.4.9): the queue of notices waiting for
 * a TrapRepress, their sends and resends, and the notices the SMA raises.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad_header.h"
#include "sma_internal.h"

/* Notice byte offsets (IBA Notice attribute). */
#define NTC_TOGGLE_COUNT 8
#define NTC_DETAILS 10
#define NTC_DETAILS_LID 12 /* LIDADDR of traps 129-131, 145, 256 (144: libibmad field) */

/* Trap 144 DataDetails (relative to the Notice) that libibmad has no field for. */
#define NTC144_LOCAL_CHANGES 15
#define NTC144_CHANGE_FLAGS 20
#define NTC144_CAPMASK2 22
/* Trap 145 DataDetails. */
#define NTC145_SYS_GUID 16
/* Vendor notice DataDetails: trap number, LIDADDR (NTC_DETAILS_LID), the caller's details. */
#define NTC_VENDOR_TRAP 10
#define NTC_VENDOR_DETAILS 14

/* Resends never come faster than this, whatever SubnetTimeOut says. */
#define SMA_TRAP_MIN_INTERVAL_NS 1000000u

uint64_t sma_trap_resend_interval_ns(uint8_t subnet_timeout)
{
    uint64_t ns = (uint64_t)4096 << (subnet_timeout & 0x1F); /* 4.096 us x 2^SubnetTimeOut */

    return ns < SMA_TRAP_MIN_INTERVAL_NS ? SMA_TRAP_MIN_INTERVAL_NS : ns;
}

void sma_notice_init(const struct sma *sma, uint8_t *notice, unsigned type, unsigned trap_num)
{
    memset(notice, 0, SMA_DATA_SIZE);
    mad_set_field(notice, 0, IB_NOTICE_IS_GENERIC_F, 1);
    mad_set_field(notice, 0, IB_NOTICE_TYPE_F, type);
    mad_set_field(notice, 0, IB_NOTICE_PRODUCER_F, sma->is_switch ? 2 : 1);
    mad_set_field(notice, 0, IB_NOTICE_TRAP_NUMBER_F, trap_num);
}

/* Whether two notices say the same thing (Toggle/Count aside). */
static bool sma_notice_same(const uint8_t *a, const uint8_t *b)
{
    return memcmp(a, b, NTC_TOGGLE_COUNT) == 0 &&
           memcmp(a + NTC_DETAILS, b + NTC_DETAILS, SMA_DATA_SIZE - NTC_DETAILS) == 0;
}

int sma_trap_queue_notice(struct sma *sma, unsigned port, const uint8_t notice[SMA_DATA_SIZE])
{
    struct sma_trap *free_slot = NULL;

    for (unsigned i = 0; i < SMA_TRAP_QUEUE; i++) {
        struct sma_trap *t = &sma->traps[i];

        if (!t->used) {
            if (!free_slot)
                free_slot = t;
        } else if (t->port == port && t->next_send_ns == 0 && sma_notice_same(t->notice, notice)) {
            /*
             * The same notice is queued and not sent yet: the SM will learn
             * of both events from it.  Once a trap has gone out, the SM may
             * already have acted on it, so a new event needs a new trap.
             */
            return 0;
        }
    }
    if (!free_slot) {
        sma->stats.traps_lost++;
        return -ENOSPC;
    }
    free_slot->used = true;
    sma->traps_queued++;
    free_slot->port = (uint8_t)port;
    free_slot->tid = sma->next_tid++;
    memcpy(free_slot->notice, notice, SMA_DATA_SIZE);
    free_slot->next_send_ns = 0;
    return 0;
}

void sma_trap_link_state_change(struct sma *sma)
{
    uint8_t notice[SMA_DATA_SIZE];

    sma_notice_init(sma, notice, 1 /* urgent */, 128);
    sma_trap_queue_notice(sma, 0, notice);
}

void sma_trap_local_changes(struct sma *sma, unsigned port, uint16_t change_flags)
{
    const struct sma_port *ep = &sma->ports[port];
    uint8_t notice[SMA_DATA_SIZE];

    sma_notice_init(sma, notice, 4 /* informational */, 144);
    notice[NTC144_LOCAL_CHANGES] = change_flags ? 1 : 0;
    mad_set_field(notice, 0, IB_NOTICE_DATA_144_CAPMASK_F, ep->capmask);
    be_put(notice + NTC144_CHANGE_FLAGS, change_flags, 2);
    be_put(notice + NTC144_CAPMASK2, ep->capmask2, 2);
    sma_trap_queue_notice(sma, port, notice);
}

void sma_trap_sys_image_guid(struct sma *sma)
{
    uint8_t notice[SMA_DATA_SIZE];

    sma_notice_init(sma, notice, 4 /* informational */, 145);
    be_put(notice + NTC145_SYS_GUID, sma->system_image_guid, 8);
    sma_trap_queue_notice(sma, sma->is_switch ? 0 : 1, notice);
}

int sma_send_vendor_notice(struct sma *sma, uint16_t trap_number, const uint8_t *details,
                           size_t len)
{
    uint8_t notice[SMA_DATA_SIZE] = {0};

    if (len > SMA_VENDOR_DETAILS_MAX || (len && !details))
        return -EINVAL;
    if (!sma_vendor_notice_room(sma)) {
        sma->stats.traps_lost++;
        return -ENOSPC;
    }
    /*
     * IsGeneric 0: bytes 1-3 are VendorID and 4-5 DeviceID.  libibmad names
     * those bits by their generic meaning (ProducerType, TrapNumber).
     */
    mad_set_field(notice, 0, IB_NOTICE_IS_GENERIC_F, 0);
    mad_set_field(notice, 0, IB_NOTICE_TYPE_F, SMA_VENDOR_NOTICE_TYPE);
    mad_set_field(notice, 0, IB_NOTICE_PRODUCER_F, sma->board->id->vendor_id & 0xFFFFFF);
    mad_set_field(notice, 0, IB_NOTICE_TRAP_NUMBER_F, sma->board->id->device_id);
    be_put(notice + NTC_VENDOR_TRAP, trap_number, 2);
    if (len)
        memcpy(notice + NTC_VENDOR_DETAILS, details, len);
    return sma_trap_queue_notice(sma, sma->is_switch ? 0 : 1, notice);
}

unsigned sma_vendor_notice_room(const struct sma *sma)
{
    unsigned free_slots = SMA_TRAP_QUEUE - sma->traps_queued;

    return free_slots > SMA_TRAP_RESERVED ? free_slots - SMA_TRAP_RESERVED : 0;
}

void sma_trap_repress(struct sma *sma, const uint8_t *mad)
{
    uint64_t tid = mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);

    /*
     * Match on the low 32 bits: the MAD layer of an SMA behind umad (the
     * Linux kernel, umad2sim) puts its agent's number into the high 32 bits
     * of every request it sends, traps included, and the SM represses the
     * TID it received.  The low 32 bits are the SMA's own counter.
     */
    for (unsigned i = 0; i < SMA_TRAP_QUEUE; i++) {
        if (sma->traps[i].used && (uint32_t)sma->traps[i].tid == (uint32_t)tid) {
            sma->traps[i].used = false;
            sma->traps_queued--;
            sma->stats.traps_repressed++;
            return;
        }
    }
}

/* The end port a queued trap is sent from. */
static const struct sma_port *sma_trap_port(const struct sma *sma, const struct sma_trap *t)
{
    return &sma->ports[sma->is_switch ? 0 : (t->port ? t->port : 1)];
}

/* Whether traps can be sent from ep: it has a LID and knows its SM. */
static bool sma_trap_sendable(const struct sma_port *ep)
{
    return ep->lid != 0 && ep->master_sm_lid != 0;
}

/* Build the Trap MAD for t into out and address it to the master SM. */
static void sma_trap_build(const struct sma *sma, struct sma_trap *t, uint8_t *out,
                           struct mad_addr *addr)
{
    const struct sma_port *ep = sma_trap_port(sma, t);
    unsigned trap_num = mad_get_field(t->notice, 0, IB_NOTICE_TRAP_NUMBER_F);

    if (!mad_get_field(t->notice, 0, IB_NOTICE_IS_GENERIC_F))
        trap_num = 0; /* a vendor notice: those bits are its DeviceID */

    /* The LIDs in the notice are the ones the SM assigned by now. */
    mad_set_field(t->notice, 0, IB_NOTICE_ISSUER_LID_F, ep->lid);
    if (trap_num == 128)
        mad_set_field(t->notice, 0, IB_NOTICE_DATA_LID_F, ep->lid);
    else if (trap_num == 144)
        mad_set_field(t->notice, 0, IB_NOTICE_DATA_144_LID_F, ep->lid);
    else
        be_put(t->notice + NTC_DETAILS_LID, ep->lid, 2);

    mad_header_init(out, IB_SMI_CLASS, 1, IB_MAD_METHOD_TRAP, t->tid, SMA_ATTR_NOTICE, 0);
    /* M_Key of a trap is always 0 (o14-1): left zero by the header builder. */
    memcpy(out + SMA_DATA_OFFS, t->notice, SMA_DATA_SIZE);
    memset(addr, 0, sizeof(*addr));
    addr->lid_routed = true;
    addr->port = sma->is_switch ? 0 : t->port;
    addr->slid = ep->lid;
    addr->dlid = ep->master_sm_lid;
    addr->sl = ep->master_sm_sl;
}

enum mad_verdict sma_trap_poll(struct sma *sma, uint64_t now, struct mad_addr *out_addr,
                               uint8_t *out)
{
    if (!sma->traps_queued)
        return MAD_DROP;
    for (unsigned i = 0; i < SMA_TRAP_QUEUE; i++) {
        struct sma_trap *t = &sma->traps[i];
        const struct sma_port *ep;

        if (!t->used || t->next_send_ns > now)
            continue;
        ep = sma_trap_port(sma, t);
        if (!sma_trap_sendable(ep))
            continue;
        sma_trap_build(sma, t, out, out_addr);
        t->next_send_ns = now + sma_trap_resend_interval_ns(ep->subnet_timeout);
        sma->stats.traps_sent++;
        return MAD_SEND;
    }
    return MAD_DROP;
}

uint64_t sma_trap_next_deadline(const struct sma *sma)
{
    uint64_t next = UINT64_MAX;

    for (unsigned i = 0; sma->traps_queued && i < SMA_TRAP_QUEUE; i++) {
        const struct sma_trap *t = &sma->traps[i];

        if (t->used && sma_trap_sendable(sma_trap_port(sma, t)) && t->next_send_ns < next)
            next = t->next_send_ns;
    }
    return next;
}
