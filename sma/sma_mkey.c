/*
 * sma_mkey.c - M_Key protection (IBA 14.2.4): checking, violations, the lease
 * timer and Trap 256.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"

/* Notice DataDetails of Trap 256, relative to the Notice start (byte 10 + n). */
#define NTC256_LID 12
#define NTC256_DRSLID 14
#define NTC256_METHOD 16
#define NTC256_ATTR_ID 18
#define NTC256_ATTR_MOD 20
#define NTC256_MKEY 24
#define NTC256_DR_FLAGS 33
#define NTC256_DR_PATH 34
#define NTC256_DR_PATH_MAX 30
#define NTC256_DR_NOTICE 0x80
#define NTC256_DR_TRUNCATED 0x40

#define SMA_RETURN_PATH_OFFS 192

/*
 * Queue Trap 256 for an SMP that failed the M_Key check.  libibmad has no
 * fields for this notice's DataDetails, so they are written at the offsets of
 * IBA Notice 256 (LID, DRSLID, method, attribute, M_Key, DR return path).
 */
static void sma_mkey_trap(struct sma *sma, const struct sma_port *ep, const uint8_t *mad,
                          uint16_t slid)
{
    uint8_t notice[SMA_DATA_SIZE];
    unsigned method = mad_get_field((void *)mad, 0, IB_MAD_METHOD_F);
    bool dr = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS;

    sma_notice_init(sma, notice, 2 /* security */, 256);
    be_put(notice + NTC256_LID, ep->lid, 2);
    be_put(notice + NTC256_DRSLID, dr ? mad_get_field((void *)mad, 0, IB_DRSMP_DRSLID_F) : slid, 2);
    notice[NTC256_METHOD] = (uint8_t)method;
    be_put(notice + NTC256_ATTR_ID, mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F), 2);
    be_put(notice + NTC256_ATTR_MOD, mad_get_field((void *)mad, 0, IB_MAD_ATTRMOD_F), 4);
    be_put(notice + NTC256_MKEY, mad_get_field64((void *)mad, 0, IB_MAD_MKEY_F), 8);
    if (dr) {
        unsigned hc = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);
        unsigned n = hc < NTC256_DR_PATH_MAX ? hc : NTC256_DR_PATH_MAX;

        /* The hop count is that of the path given, as in qib/hfi1 bad_mkey(). */
        notice[NTC256_DR_FLAGS] = (uint8_t)(NTC256_DR_NOTICE | n);
        if (hc > NTC256_DR_PATH_MAX)
            notice[NTC256_DR_FLAGS] |= NTC256_DR_TRUNCATED;
        /*
         * ReturnPath[1..n]: the hops back to the requester.  (qib/hfi1 copy
         * from ReturnPath[0], which is unused, and so lose the last hop.)
         */
        memcpy(notice + NTC256_DR_PATH, mad + SMA_RETURN_PATH_OFFS + 1, n);
    }
    sma_trap_queue_notice(sma, (unsigned)(ep - sma->ports), notice);
}

/* Record a violation: count it, start the lease timer, queue Trap 256. */
static void sma_mkey_violation(struct sma *sma, struct sma_port *ep, const uint8_t *mad,
                               uint16_t slid)
{
    uint64_t now = board_now_ns(sma->board);

    if (ep->mkey_violations < 0xFFFF)
        ep->mkey_violations++;
    if (ep->mkey_lease_period && !ep->lease_deadline_ns) {
        ep->lease_deadline_ns = now + (uint64_t)ep->mkey_lease_period * 1000000000u;
        if (!ep->lease_deadline_ns)
            ep->lease_deadline_ns = 1;
    }
    sma_mkey_trap(sma, ep, mad, slid);
}

/* Lift the protection of ep if its lease timer ran out by now. */
static void sma_mkey_lease_expire(struct sma_port *ep, uint64_t now)
{
    if (ep->lease_deadline_ns && now >= ep->lease_deadline_ns) {
        /* Lease expired: the SM lost control; protection is lifted. */
        ep->lease_deadline_ns = 0;
        ep->mkey_protect = 0;
    }
}

enum sma_mkey_verdict sma_mkey_check(struct sma *sma, struct sma_port *ep, const uint8_t *mad,
                                     unsigned in_port, uint16_t slid)
{
    unsigned method = mad_get_field((void *)mad, 0, IB_MAD_METHOD_F);
    uint64_t key = mad_get_field64((void *)mad, 0, IB_MAD_MKEY_F);
    bool checked = method == IB_MAD_METHOD_GET || method == IB_MAD_METHOD_SET ||
                   method == IB_MAD_METHOD_TRAP_REPRESS;

    (void)in_port;
    /* An expired lease counts even if sma_poll() has not run since (as qib). */
    sma_mkey_lease_expire(ep, board_now_ns(sma->board));
    if (!checked)
        return SMA_MKEY_OK;
    if (ep->mkey == 0 || key == ep->mkey) {
        ep->lease_deadline_ns = 0; /* a valid key stops the lease timer */
        return SMA_MKEY_OK;
    }
    if (method == IB_MAD_METHOD_GET && ep->mkey_protect == 0)
        return SMA_MKEY_OK;
    if (method == IB_MAD_METHOD_GET && ep->mkey_protect == 1)
        return SMA_MKEY_OK_HIDE;
    sma_mkey_violation(sma, ep, mad, slid);
    return SMA_MKEY_VIOLATION;
}

void sma_mkey_lease_poll(struct sma *sma, uint64_t now)
{
    /* Lease timers run on end ports only (sma_end_port): a switch's port 0. */
    for (unsigned p = sma->is_switch ? 0 : 1; p <= (sma->is_switch ? 0 : sma->num_ports); p++)
        sma_mkey_lease_expire(&sma->ports[p], now);
}
