/*
 * test_cc_key.c - CC_Key protection: the key / protect bit / method matrix,
 * CC_KeyViolations, and the CC_KeyLeasePeriod timer.
 */
#include "pma_test_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define KEY 0x1122334455667788ull
#define BAD 0x0BADull
#define SEC 1000000000ull

/* Program CongestionKeyInfo with the current n->cc_key; returns the status. */
static int set_key(struct pt_node *n, uint64_t key, unsigned protect, unsigned lease,
                   unsigned violations)
{
    uint8_t req[IB_CC_DATA_SZ] = {0};

    mad_set_field64(req, 0, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F, key);
    PZT_SET_FIELDS(req, {IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F, protect},
                   {IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F, lease},
                   {IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F, violations});
    return pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_CONGESTION_KEY_INFO, req, NULL);
}

/* Get CongestionKeyInfo with key; returns the status, fills resp. */
static int get_key_info(struct pt_node *n, uint64_t key, uint8_t *resp)
{
    n->cc_key = key;
    return pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_CONGESTION_KEY_INFO, NULL, resp);
}

/* CC_KeyViolations as the agent reports it to the right key. */
static unsigned violations(struct pt_node *n)
{
    uint8_t resp[IB_CC_DATA_SZ];

    assert_int_equal(get_key_info(n, KEY, resp), ST_OK);
    return pt_f(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F);
}

/* A Set of SwitchCongestionSetting (Marking_Rate) with key. */
static int set_marking(struct pt_node *n, uint64_t key, unsigned rate)
{
    uint8_t req[IB_CC_DATA_SZ] = {0};

    n->cc_key = key;
    mad_set_field(req, 0, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F, 0x10);
    mad_set_field(req, 0, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, rate);
    return pt_cc(n, IB_MAD_METHOD_SET, IB_CC_ATTR_SWITCH_CONGESTION_SETTING, req, NULL);
}

/* A TimeStamp Get with key (n->cc_key from then on); returns the status. */
static int get_timestamp(struct pt_node *n, uint64_t key)
{
    n->cc_key = key;
    return pt_cc(n, IB_MAD_METHOD_GET, IB_CC_ATTR_TIMESTAMP, NULL, NULL);
}

static unsigned marking(const struct pt_node *n)
{
    struct cc_switch_setting s;

    cc_get_switch_setting(n->cc, &s);
    return s.marking_rate;
}

/* CC_Key 0: no checks at all. */
static void test_zero_key(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[IB_CC_DATA_SZ];

    assert_int_equal(get_key_info(n, BAD, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F), 0);
    assert_int_equal(set_marking(n, BAD, 5), ST_OK);
    assert_int_equal(marking(n), 5);
    n->cc_key = BAD;
    assert_int_equal(set_key(n, 0, 1, 0, 0), ST_OK); /* protect bit alone changes nothing */
    assert_int_equal(set_marking(n, 0x42, 6), ST_OK);
    assert_int_equal(marking(n), 6);
    pt_node_free(n);
}

/* Unprotected: wrong-key Gets are answered (CC_Key reads 0), wrong-key Sets are not. */
static void test_unprotected(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[IB_CC_DATA_SZ];
    struct cc_stats st;

    assert_int_equal(set_key(n, KEY, 0, 0, 0), ST_OK);
    assert_int_equal(get_key_info(n, KEY, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F), KEY);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F), 0);

    assert_int_equal(get_key_info(n, BAD, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F), 0);
    assert_int_equal(get_timestamp(n, BAD), ST_OK);
    assert_int_equal(violations(n), 0);

    assert_int_equal(set_marking(n, BAD, 9), PT_NOANSWER);
    assert_int_equal(marking(n), 0);
    assert_int_equal(violations(n), 1);
    n->cc_key = BAD;
    assert_int_equal(set_key(n, BAD, 0, 0, 0), PT_NOANSWER); /* cannot steal the key */
    assert_int_equal(violations(n), 2);
    assert_int_equal(set_marking(n, KEY, 9), ST_OK);
    assert_int_equal(marking(n), 9);
    cc_get_stats(n->cc, &st);
    assert_int_equal(st.key_violations, 2);
    pt_node_free(n);
}

/* Protected: any MAD with a wrong key goes unanswered and is counted. */
static void test_protected(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[IB_CC_DATA_SZ];
    static const unsigned attrs[] = {CLASS_PORT_INFO,
                                     IB_CC_ATTR_CONGESTION_INFO,
                                     IB_CC_ATTR_CONGESTION_KEY_INFO,
                                     IB_CC_ATTR_CONGESTION_LOG,
                                     IB_CC_ATTR_SWITCH_CONGESTION_SETTING,
                                     IB_CC_ATTR_TIMESTAMP};

    assert_int_equal(set_key(n, KEY, 1, 0, 0), ST_OK);
    n->cc_key = BAD;
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, attrs[i], NULL, NULL), PT_NOANSWER);
    assert_int_equal(set_marking(n, BAD, 3), PT_NOANSWER);
    /* Even requests that would fail get no status: the key is checked first. */
    n->cc_key = BAD;
    assert_int_equal(pt_cc(n, IB_MAD_METHOD_GET, 0x0042, NULL, NULL), PT_NOANSWER);
    assert_int_equal(violations(n), 8);
    assert_int_equal(get_key_info(n, KEY, resp), ST_OK);
    assert_int_equal(pt_f64(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F), KEY);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F), 1);
    /* The manager resets the counter by writing it. */
    n->cc_key = KEY;
    assert_int_equal(set_key(n, KEY, 1, 0, 0), ST_OK);
    assert_int_equal(violations(n), 0);
    /* No lease: still protected an hour later. */
    assert_int_equal(get_timestamp(n, BAD), PT_NOANSWER);
    board_mem_advance_ns(n->bm, 3600 * SEC);
    assert_int_equal(get_timestamp(n, BAD), PT_NOANSWER);
    pt_node_free(n);
}

/* The lease runs from the first violation; its expiry clears the protect bit. */
static void test_lease_expiry(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);
    uint8_t resp[IB_CC_DATA_SZ];

    assert_int_equal(set_key(n, KEY, 1, 2, 0), ST_OK);
    assert_int_equal(get_timestamp(n, BAD), PT_NOANSWER);
    board_mem_advance_ns(n->bm, 2 * SEC - 1);
    /* A second violation does not restart the timer. */
    assert_int_equal(get_timestamp(n, BAD), PT_NOANSWER);
    board_mem_advance_ns(n->bm, 1);
    /* Expired: unprotected, so the wrong-key Get is answered, key hidden. */
    assert_int_equal(get_key_info(n, BAD, resp), ST_OK);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_PROTECT_BIT_F), 0);
    assert_int_equal(pt_f64(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_F), 0);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_LEASE_PERIOD_F), 2);
    assert_int_equal(pt_f(resp, IB_CC_CONGESTION_KEY_INFO_CC_KEY_VIOLATIONS_F), 2);
    /* The key itself still guards Sets. */
    assert_int_equal(set_marking(n, BAD, 1), PT_NOANSWER);
    pt_node_free(n);
}

/* A MAD with the right key stops the lease timer. */
static void test_lease_stopped_by_key(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);

    assert_int_equal(set_key(n, KEY, 1, 2, 0), ST_OK);
    assert_int_equal(get_timestamp(n, BAD), PT_NOANSWER);
    board_mem_advance_ns(n->bm, SEC);
    assert_int_equal(get_timestamp(n, KEY), ST_OK);
    board_mem_advance_ns(n->bm, 5 * SEC);
    assert_int_equal(get_timestamp(n, BAD), PT_NOANSWER);
    /* That violation started a new lease. */
    board_mem_advance_ns(n->bm, 2 * SEC);
    assert_int_equal(get_timestamp(n, BAD), ST_OK);
    pt_node_free(n);
}

/* CC_KeyViolations sticks at 0xFFFF. */
static void test_violations_saturate(void **state)
{
    struct pt_node *n = pt_switch_new(4, 0, false);

    assert_int_equal(set_key(n, KEY, 1, 0, 0xFFFE), ST_OK);
    assert_int_equal(set_marking(n, BAD, 1), PT_NOANSWER);
    assert_int_equal(set_marking(n, BAD, 1), PT_NOANSWER);
    assert_int_equal(set_marking(n, BAD, 1), PT_NOANSWER);
    assert_int_equal(violations(n), 0xFFFF);
    pt_node_free(n);
}

PZT_MAIN(test_zero_key, test_unprotected, test_protected, test_lease_expiry,
         test_lease_stopped_by_key, test_violations_saturate)
