/*
 * cc_key.c - CC_Key protection (CongestionKeyInfo) and its lease.
 *
 * A CC_Key of 0 disables every check.  Otherwise a MAD whose CC_Key differs
 * is a violation and is dropped without an answer, except a Get while
 * CC_KeyProtectBit is 0: that is answered, with the CC_Key read as 0.  Each
 * violation counts in CC_KeyViolations; one while protected starts the lease
 * timer (CC_KeyLeasePeriod seconds, 0 = never), whose expiry clears
 * CC_KeyProtectBit; a MAD with the right CC_Key stops the timer.
 */
#include <infiniband/mad.h>

#include "cc_internal.h"

#define CC_NS_PER_S 1000000000ull

/* Clear the protect bit if the lease ran out by now. */
static void cc_lease_expire(struct cc_agent *cc, uint64_t now)
{
    if (cc->lease_deadline_ns && now >= cc->lease_deadline_ns) {
        cc->protect = false;
        cc->lease_deadline_ns = 0;
    }
}

/* Count a violation; start the lease timer if protected and not yet running. */
static void cc_key_violation(struct cc_agent *cc, uint64_t now)
{
    if (cc->violations < UINT16_MAX)
        cc->violations++;
    cc->stats.key_violations++;
    if (cc->protect && cc->lease_period && !cc->lease_deadline_ns)
        cc->lease_deadline_ns = now + cc->lease_period * CC_NS_PER_S;
}

enum cc_key_verdict cc_key_check(struct cc_agent *cc, const uint8_t *mad, unsigned method,
                                 uint64_t now)
{
    uint64_t key = mad_get_field64((void *)mad, 0, IB_CC_CCKEY_F);

    cc_lease_expire(cc, now);
    if (cc->cc_key == 0)
        return CC_KEY_OK;
    if (key == cc->cc_key) {
        cc->lease_deadline_ns = 0;
        return CC_KEY_OK;
    }
    if (method == IB_MAD_METHOD_GET && !cc->protect)
        return CC_KEY_OK_HIDE;
    cc_key_violation(cc, now);
    return CC_KEY_VIOLATION;
}

uint16_t cc_key_info_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = req->out + GMP_DATA_OFFS;

    mad_set_field64(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F, req->hide_key ? 0 : cc->cc_key);
    mad_set_field(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F, cc->protect);
    mad_set_field(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F, cc->lease_period);
    mad_set_field(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F, cc->violations);
    return MAD_STATUS_OK;
}

uint16_t cc_key_info_set(struct cc_agent *cc, struct cc_req *req)
{
    void *d = (void *)(req->in + GMP_DATA_OFFS);

    cc->cc_key = mad_get_field64(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F);
    cc->protect = mad_get_field(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F);
    cc->lease_period =
        (uint16_t)mad_get_field(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F);
    cc->violations = (uint16_t)mad_get_field(d, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F);
    cc->lease_deadline_ns = 0;
    return cc_key_info_get(cc, req);
}
