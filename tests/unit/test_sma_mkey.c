/*
 * test_sma_mkey.c - M_Key protection (IBA 14.2.4; notes section 3): the
 * protection level x method x key matrix, violations (no response, counter,
 * lease timer, Trap 256) and the lease.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "pzt.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define KEY 0x1122334455667788ull
#define BAD_KEY 0x00000000deadbeefull
#define SW_LID 0x11
#define SM_LID 0x01
#define REQ_SLID 0x33
#define SEC 1000000000ull
#define ATTR_NOTICE 0x0002

/* Notice 256 DataDetails, as byte offsets in the Notice (no libibmad fields). */
#define N256_LID 12
#define N256_DRSLID 14
#define N256_METHOD 16
#define N256_ATTR_ID 18
#define N256_ATTR_MOD 20
#define N256_MKEY 24
#define N256_DR 33
#define N256_PATH 34

/* A switch with LID and master SM, so that its traps go out. */
static struct pzt_node *switch_with_lid(void)
{
    struct pzt_node *n = pzt_switch_new(8);

    assert_non_null(n);
    pzt_assign_lid(n, SW_LID, SM_LID, 0);
    return n;
}

/* PortInfo(0) Get with key; returns the status or -1 (no response). */
static int pi_get(struct pzt_node *n, uint64_t key, uint8_t *pi)
{
    return pzt_get_key(n, 1, key, IB_ATTR_PORT_INFO, 0, pi);
}

/* Set the M_Key fields of PortInfo(0), authenticating with cur. */
static void set_mkey(struct pzt_node *n, uint64_t cur, uint64_t key, unsigned prot, unsigned lease)
{
    uint8_t pi[PZT_DATA];

    assert_int_equal(pi_get(n, cur, pi), 0);
    mad_set_field64(pi, 0, IB_PORT_MKEY_F, key);
    PZT_SET_FIELDS(pi, {IB_PORT_MKEY_PROT_BITS_F, prot}, {IB_PORT_MKEY_LEASE_F, lease},
                   {IB_PORT_STATE_F, 0}, {IB_PORT_PHYS_STATE_F, 0});
    assert_int_equal(pzt_set_key(n, 1, cur, IB_ATTR_PORT_INFO, 0, pi, NULL), 0);
}

/* Field of PortInfo(0) read with the right key. */
static unsigned pi_field(struct pzt_node *n, uint64_t key, enum MAD_FIELDS f)
{
    uint8_t pi[PZT_DATA];

    assert_int_equal(pi_get(n, key, pi), 0);
    return mad_get_field(pi, 0, f);
}

/* Send a TrapRepress for tid with key; it is never answered. */
static void trap_repress(struct pzt_node *n, uint64_t key, uint64_t tid)
{
    uint8_t mad[PZT_MAD];
    struct pzt_result r;

    pzt_lid_smp(mad, IB_MAD_METHOD_TRAP_REPRESS, ATTR_NOTICE, 0, key, tid);
    pzt_process(n, 1, SM_LID, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);
}

/* Board time of a node. */
static uint64_t now_ns(struct pzt_node *n)
{
    return board_now_ns(n->board);
}

/* ---- the matrix ---- */

enum mk_method { MK_GET, MK_SET, MK_REPRESS };
enum mk_lease {
    LEASE_OFF,     /* M_KeyLeasePeriod 0 */
    LEASE_RUNNING, /* period 10 s; a violation 5 s ago started the timer */
    LEASE_EXPIRED, /* period 10 s; a violation 11 s ago, sma_poll() ran since */
};

/* One protection case. */
struct mk_row {
    unsigned level; /* M_KeyProtectBits */
    bool key_zero;  /* the switch's M_Key is 0: no protection */
    enum mk_method method;
    bool good_key; /* the SMP carries the switch's M_Key */
    enum mk_lease lease;
    bool accepted;  /* Get/Set answered; TrapRepress represses its trap */
    bool violation; /* dropped, counted, Trap 256 */
    bool visible;   /* Get: PortInfo.M_Key shows the real key (else 0) */
};

#define ROW(lvl, zero, m, good, lease, acc, viol, vis)                                             \
    {                                                                                              \
        lvl, zero, m, good, lease, acc, viol, vis                                                  \
    }

/* clang-format off */
static const struct mk_row mk_rows[] = {
    /* level 0: Get with any key, key visible; Set/TrapRepress need the key */
    ROW(0, false, MK_GET,     true,  LEASE_OFF, true,  false, true),
    ROW(0, false, MK_GET,     false, LEASE_OFF, true,  false, true),
    ROW(0, false, MK_SET,     true,  LEASE_OFF, true,  false, true),
    ROW(0, false, MK_SET,     false, LEASE_OFF, false, true,  false),
    ROW(0, false, MK_REPRESS, true,  LEASE_OFF, true,  false, false),
    ROW(0, false, MK_REPRESS, false, LEASE_OFF, false, true,  false),
    /* level 1: as 0, but a Get with a bad key reads M_Key 0 */
    ROW(1, false, MK_GET,     true,  LEASE_OFF, true,  false, true),
    ROW(1, false, MK_GET,     false, LEASE_OFF, true,  false, false),
    ROW(1, false, MK_SET,     true,  LEASE_OFF, true,  false, true),
    ROW(1, false, MK_SET,     false, LEASE_OFF, false, true,  false),
    ROW(1, false, MK_REPRESS, true,  LEASE_OFF, true,  false, false),
    ROW(1, false, MK_REPRESS, false, LEASE_OFF, false, true,  false),
    /* level 2: everything needs the key */
    ROW(2, false, MK_GET,     true,  LEASE_OFF, true,  false, true),
    ROW(2, false, MK_GET,     false, LEASE_OFF, false, true,  false),
    ROW(2, false, MK_SET,     true,  LEASE_OFF, true,  false, true),
    ROW(2, false, MK_SET,     false, LEASE_OFF, false, true,  false),
    ROW(2, false, MK_REPRESS, true,  LEASE_OFF, true,  false, false),
    ROW(2, false, MK_REPRESS, false, LEASE_OFF, false, true,  false),
    /* level 3 = level 2 */
    ROW(3, false, MK_GET,     true,  LEASE_OFF, true,  false, true),
    ROW(3, false, MK_GET,     false, LEASE_OFF, false, true,  false),
    ROW(3, false, MK_SET,     true,  LEASE_OFF, true,  false, true),
    ROW(3, false, MK_SET,     false, LEASE_OFF, false, true,  false),
    ROW(3, false, MK_REPRESS, true,  LEASE_OFF, true,  false, false),
    ROW(3, false, MK_REPRESS, false, LEASE_OFF, false, true,  false),
    /* M_Key 0: no protection whatever the level and the key */
    ROW(0, true,  MK_GET,     false, LEASE_OFF, true,  false, true),
    ROW(1, true,  MK_GET,     false, LEASE_OFF, true,  false, true),
    ROW(2, true,  MK_GET,     false, LEASE_OFF, true,  false, true),
    ROW(3, true,  MK_GET,     false, LEASE_OFF, true,  false, true),
    ROW(0, true,  MK_SET,     false, LEASE_OFF, true,  false, true),
    ROW(1, true,  MK_SET,     false, LEASE_OFF, true,  false, true),
    ROW(2, true,  MK_SET,     false, LEASE_OFF, true,  false, true),
    ROW(3, true,  MK_SET,     false, LEASE_OFF, true,  false, true),
    ROW(0, true,  MK_REPRESS, false, LEASE_OFF, true,  false, false),
    ROW(1, true,  MK_REPRESS, false, LEASE_OFF, true,  false, false),
    ROW(2, true,  MK_REPRESS, false, LEASE_OFF, true,  false, false),
    ROW(3, true,  MK_REPRESS, false, LEASE_OFF, true,  false, false),
    /* lease running: protection unchanged */
    ROW(1, false, MK_GET,     false, LEASE_RUNNING, true,  false, false),
    ROW(2, false, MK_GET,     false, LEASE_RUNNING, false, true,  false),
    ROW(2, false, MK_SET,     false, LEASE_RUNNING, false, true,  false),
    ROW(3, false, MK_REPRESS, false, LEASE_RUNNING, false, true,  false),
    ROW(3, false, MK_GET,     true,  LEASE_RUNNING, true,  false, true),
    /* lease expired: ProtectBits 0, i.e. level 0 */
    ROW(1, false, MK_GET,     false, LEASE_EXPIRED, true,  false, true),
    ROW(2, false, MK_GET,     false, LEASE_EXPIRED, true,  false, true),
    ROW(3, false, MK_GET,     false, LEASE_EXPIRED, true,  false, true),
    ROW(3, false, MK_SET,     false, LEASE_EXPIRED, false, true,  false),
    ROW(3, false, MK_REPRESS, false, LEASE_EXPIRED, false, true,  false),
    ROW(2, false, MK_SET,     true,  LEASE_EXPIRED, true,  false, true),
    ROW(2, false, MK_REPRESS, true,  LEASE_EXPIRED, true,  false, false),
};
/* clang-format on */

/* Run one row of the matrix on a fresh switch. */
static void mk_row_check(const struct mk_row *row, unsigned idx)
{
    struct pzt_node *n = switch_with_lid();
    uint64_t sw_key = row->key_zero ? 0 : KEY;
    uint64_t key = row->good_key ? sw_key : BAD_KEY;
    uint8_t pi[PZT_DATA], mad[PZT_MAD];
    struct sma_stats s0, s1;
    struct pzt_result r, trap;
    unsigned viol0, sent;
    uint64_t tid = 0;

    set_mkey(n, 0, sw_key, row->level, row->lease == LEASE_OFF ? 0 : 10);
    assert_int_equal(pi_get(n, sw_key, pi), 0);
    mad_set_field(pi, 0, IB_PORT_STATE_F, 0);
    mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 0);
    mad_set_field(pi, 0, IB_PORT_MKEY_VIOL_F, 1); /* 0 would reset the counter */

    if (row->lease != LEASE_OFF) {
        /* A violation starts the lease timer. */
        pzt_lid_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO, 0, BAD_KEY, 0x500);
        memcpy(mad + 64, pi, PZT_DATA);
        pzt_process(n, 1, REQ_SLID, mad, &r);
        assert_int_equal(r.verdict, MAD_DROP);
        board_mem_advance_ns(n->bm, row->lease == LEASE_RUNNING ? 5 * SEC : 11 * SEC);
    }
    pzt_poll_all(n, NULL); /* runs the lease, sends the traps so far */
    if (row->method == MK_REPRESS) {
        /* A trap for the TrapRepress to repress. */
        assert_int_equal(sma_set_node_description(n->sma, "mkey matrix"), 0);
        assert_int_equal(pzt_poll_all(n, &trap), 1);
        tid = mad_get_field64(trap.mad, 0, IB_MAD_TRID_F);
    }
    viol0 = row->lease == LEASE_OFF ? 0 : 1;
    s0 = pzt_sma_stats(n);

    switch (row->method) {
    case MK_GET:
        pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 0, key, 0x600);
        pzt_process(n, 1, REQ_SLID, mad, &r);
        break;
    case MK_SET:
        pzt_lid_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO, 0, key, 0x600);
        memcpy(mad + 64, pi, PZT_DATA);
        pzt_process(n, 1, REQ_SLID, mad, &r);
        break;
    case MK_REPRESS:
        pzt_lid_smp(mad, IB_MAD_METHOD_TRAP_REPRESS, ATTR_NOTICE, 0, key, tid);
        pzt_process(n, 1, SM_LID, mad, &r);
        break;
    }
    s1 = pzt_sma_stats(n);
    sent = pzt_poll_all(n, &trap);

    if (row->method == MK_REPRESS) {
        if (r.verdict != MAD_DROP)
            fail_msg("row %u: TrapRepress answered", idx);
        if ((s1.traps_repressed - s0.traps_repressed == 1) != row->accepted)
            fail_msg("row %u: repressed %d", idx, (int)(s1.traps_repressed - s0.traps_repressed));
    } else {
        if ((r.verdict == MAD_SEND) != row->accepted)
            fail_msg("row %u: verdict %d, expected accepted=%d", idx, r.verdict, row->accepted);
        if (row->accepted && r.status != 0)
            fail_msg("row %u: status 0x%x", idx, r.status);
    }
    if (row->method == MK_GET && row->accepted &&
        mad_get_field64(r.data, 0, IB_PORT_MKEY_F) != (row->visible ? sw_key : 0))
        fail_msg("row %u: M_Key visible=%d, expected %d", idx,
                 mad_get_field64(r.data, 0, IB_PORT_MKEY_F) != 0, row->visible);
    if ((s1.mkey_violations - s0.mkey_violations == 1) != row->violation)
        fail_msg("row %u: stats.mkey_violations +%d", idx,
                 (int)(s1.mkey_violations - s0.mkey_violations));
    if (s1.dropped != s0.dropped)
        fail_msg("row %u: counted as dropped", idx);
    /* A violation queues exactly one Trap 256 naming the method. */
    if (sent != (row->violation ? 1u : 0u))
        fail_msg("row %u: %u traps sent", idx, sent);
    if (sent && (mad_get_field(trap.data, 0, IB_NOTICE_TRAP_NUMBER_F) != 256 ||
                 trap.data[N256_METHOD] != (row->method == MK_GET   ? IB_MAD_METHOD_GET
                                            : row->method == MK_SET ? IB_MAD_METHOD_SET
                                                                    : IB_MAD_METHOD_TRAP_REPRESS)))
        fail_msg("row %u: wrong trap", idx);
    /* PortInfo.M_KeyViolations, read with the right key. */
    if (pi_field(n, sw_key, IB_PORT_MKEY_VIOL_F) != viol0 + row->violation)
        fail_msg("row %u: M_KeyViolations %u", idx, pi_field(n, sw_key, IB_PORT_MKEY_VIOL_F));
    /* An expired lease cleared ProtectBits, unless the accepted Set wrote them again. */
    if (pi_field(n, sw_key, IB_PORT_MKEY_PROT_BITS_F) !=
        (row->lease == LEASE_EXPIRED && !(row->method == MK_SET && row->accepted) ? 0 : row->level))
        fail_msg("row %u: ProtectBits %u", idx, pi_field(n, sw_key, IB_PORT_MKEY_PROT_BITS_F));
    pzt_node_free(n);
}

/* Every row of the matrix. */
static void test_mkey_matrix(void **state)
{
    for (unsigned i = 0; i < sizeof(mk_rows) / sizeof(mk_rows[0]); i++)
        mk_row_check(&mk_rows[i], i);
}

/* ---- the lease ---- */

/* A switch without LID (its traps stay queued, off the deadline) at level 2. */
static struct pzt_node *protected_switch(unsigned level, unsigned lease)
{
    struct pzt_node *n = pzt_switch_new(8);

    assert_non_null(n);
    set_mkey(n, 0, KEY, level, lease);
    return n;
}

/* The lease expires M_KeyLeasePeriod seconds after the first violation. */
static void test_lease_expires(void **state)
{
    struct pzt_node *n = protected_switch(2, 5);
    uint64_t t0 = now_ns(n);
    uint8_t pi[PZT_DATA];

    assert_true(sma_next_deadline(n->sma) == UINT64_MAX);
    assert_int_equal(pi_get(n, BAD_KEY, pi), -1);
    assert_true(sma_next_deadline(n->sma) == t0 + 5 * SEC);

    /* Not yet: and further violations do not restart the timer. */
    board_mem_advance_ns(n->bm, 5 * SEC - 1);
    pzt_poll_all(n, NULL);
    assert_int_equal(pi_get(n, BAD_KEY, pi), -1);
    assert_true(sma_next_deadline(n->sma) == t0 + 5 * SEC);

    board_mem_advance_ns(n->bm, 1);
    pzt_poll_all(n, NULL);
    assert_true(sma_next_deadline(n->sma) == UINT64_MAX);
    /* Level 0 now: any key reads everything, including the M_Key. */
    assert_int_equal(pi_get(n, BAD_KEY, pi), 0);
    assert_int_equal(mad_get_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F), 0);
    assert_true(mad_get_field64(pi, 0, IB_PORT_MKEY_F) == KEY);
    assert_int_equal(mad_get_field(pi, 0, IB_PORT_MKEY_VIOL_F), 2);
    /* Set still needs the key. */
    assert_int_equal(pzt_set_key(n, 1, BAD_KEY, IB_ATTR_PORT_INFO, 0, pi, NULL), -1);
    pzt_node_free(n);
}

/* An expired lease is honoured even if sma_poll() has not run since. */
static void test_lease_expiry_without_poll(void **state)
{
    struct pzt_node *n = protected_switch(3, 1);
    uint8_t pi[PZT_DATA];

    assert_int_equal(pi_get(n, BAD_KEY, pi), -1);
    board_mem_advance_ns(n->bm, 2 * SEC);
    assert_int_equal(pi_get(n, BAD_KEY, pi), 0);
    assert_int_equal(mad_get_field(pi, 0, IB_PORT_MKEY_PROT_BITS_F), 0);
    pzt_node_free(n);
}

/* Any valid Get, Set or TrapRepress stops the timer; a level-1 bad Get does not. */
static void test_lease_stopped_by_valid_smp(void **state)
{
    for (int method = 0; method < 4; method++) {
        struct pzt_node *n = protected_switch(method == 3 ? 1 : 2, 5);
        uint8_t pi[PZT_DATA];

        assert_int_equal(pi_get(n, KEY, pi), 0);
        mad_set_field(pi, 0, IB_PORT_STATE_F, 0);
        mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 0);
        assert_int_equal(pzt_set_key(n, 1, BAD_KEY, IB_ATTR_PORT_INFO, 0, pi, NULL), -1);
        assert_true(sma_next_deadline(n->sma) != UINT64_MAX);
        board_mem_advance_ns(n->bm, 2 * SEC);
        switch (method) {
        case 0:
            assert_int_equal(pi_get(n, KEY, NULL), 0);
            break;
        case 1:
            assert_int_equal(pzt_set_key(n, 1, KEY, IB_ATTR_PORT_INFO, 0, pi, NULL), 0);
            break;
        case 2:
            trap_repress(n, KEY, 0x1234);
            break;
        default:
            /* Level 1: answered (M_Key hidden) but not a valid key. */
            assert_int_equal(pi_get(n, BAD_KEY, pi), 0);
            assert_true(mad_get_field64(pi, 0, IB_PORT_MKEY_F) == 0);
            break;
        }
        board_mem_advance_ns(n->bm, 10 * SEC);
        pzt_poll_all(n, NULL);
        if (method < 3) {
            assert_true(sma_next_deadline(n->sma) == UINT64_MAX);
            assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_PROT_BITS_F), 2);
        } else {
            assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_PROT_BITS_F), 0);
        }
        pzt_node_free(n);
    }
}

/* M_KeyLeasePeriod 0: the timer never starts, protection stays. */
static void test_lease_zero_never_expires(void **state)
{
    struct pzt_node *n = protected_switch(3, 0);
    uint8_t pi[PZT_DATA];

    assert_int_equal(pi_get(n, BAD_KEY, pi), -1);
    assert_true(sma_next_deadline(n->sma) == UINT64_MAX);
    board_mem_advance_ns(n->bm, 1000000 * SEC);
    pzt_poll_all(n, NULL);
    assert_int_equal(pi_get(n, BAD_KEY, pi), -1);
    assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_PROT_BITS_F), 3);
    assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_VIOL_F), 2);
    pzt_node_free(n);
}

/* M_KeyViolations saturates at 0xFFFF; writing 0 clears it. */
static void test_violations_saturate(void **state)
{
    struct pzt_node *n = protected_switch(2, 0);
    uint8_t mad[PZT_MAD], pi[PZT_DATA];
    struct pzt_result r;

    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 0, BAD_KEY, 1);
    for (unsigned i = 0; i < 0xFFFF + 2; i++)
        pzt_process(n, 1, REQ_SLID, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);
    assert_true(pzt_sma_stats(n).mkey_violations == 0xFFFF + 2);
    assert_int_equal(pi_get(n, KEY, pi), 0);
    assert_int_equal(mad_get_field(pi, 0, IB_PORT_MKEY_VIOL_F), 0xFFFF);
    /* The identical unsent notices were merged, nothing was lost. */
    assert_int_equal(sma_traps_pending(n->sma), 1);
    assert_true(pzt_sma_stats(n).traps_lost == 0);

    PZT_SET_FIELDS(pi, {IB_PORT_MKEY_VIOL_F, 0}, {IB_PORT_STATE_F, 0}, {IB_PORT_PHYS_STATE_F, 0});
    assert_int_equal(pzt_set_key(n, 1, KEY, IB_ATTR_PORT_INFO, 0, pi, NULL), 0);
    assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_VIOL_F), 0);
    pzt_node_free(n);
}

/* ---- Trap 256 ---- */

/* Check the transport and generic Notice fields of a Trap 256. */
static void check_trap256_header(const struct pzt_result *t)
{
    const uint8_t *d = t->mad + 64;

    assert_true(t->addr.lid_routed);
    assert_int_equal(t->addr.dlid, SM_LID);
    assert_int_equal(t->addr.slid, SW_LID);
    PZT_EXPECT_FIELDS(t->mad, {IB_MAD_MGMTCLASS_F, IB_SMI_CLASS},
                      {IB_MAD_METHOD_F, IB_MAD_METHOD_TRAP}, {IB_MAD_RESPONSE_F, 0},
                      {IB_MAD_ATTRID_F, ATTR_NOTICE});
    assert_true(mad_get_field64((void *)t->mad, 0, IB_MAD_MKEY_F) == 0);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_IS_GENERIC_F), 1);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_TYPE_F), 2);     /* security */
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_PRODUCER_F), 2); /* switch */
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_TRAP_NUMBER_F), 256);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NOTICE_ISSUER_LID_F), SW_LID);
    assert_int_equal(pzt_be(d + N256_LID, 2), SW_LID);
}

/* A LID-routed Set with a bad key: Notice 256 names it; not a DR notice. */
static void test_trap256_lid_routed(void **state)
{
    struct pzt_node *n = switch_with_lid();
    uint8_t mad[PZT_MAD];
    struct pzt_result r, t;

    set_mkey(n, 0, KEY, 1, 0);
    pzt_lid_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_SWITCH_INFO, 0, BAD_KEY, 0x42);
    pzt_process(n, 4, REQ_SLID, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_trap256_header(&t);
    /* For a LID-routed SMP portzero reports the LRH SLID as DRSLID (see sma_mkey.c). */
    assert_int_equal(pzt_be(t.data + N256_DRSLID, 2), REQ_SLID);
    assert_int_equal(t.data[N256_METHOD], IB_MAD_METHOD_SET);
    assert_int_equal(pzt_be(t.data + N256_ATTR_ID, 2), IB_ATTR_SWITCH_INFO);
    assert_int_equal(pzt_be(t.data + N256_ATTR_MOD, 4), 0);
    assert_true(pzt_be(t.data + N256_MKEY, 8) == BAD_KEY);
    assert_int_equal(t.data[N256_DR], 0);
    assert_int_equal(t.data[N256_PATH], 0);
    pzt_node_free(n);
}

/* A DR Get at level 3 with a bad key: DR notice bit, hop count, return path. */
static void test_trap256_directed_route(void **state)
{
    struct pzt_node *n = switch_with_lid();
    uint8_t mad[PZT_MAD], path[64] = {0, 2, 6};
    struct pzt_result r, t;

    set_mkey(n, 0, KEY, 3, 0);
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, 0x80000005, BAD_KEY, 0x43, 2, 2, path,
               0xFFFF, 0xFFFF);
    mad[192 + 1] = 4; /* recorded by the previous hop */
    pzt_process(n, 6, 0xFFFF, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);
    assert_true(pzt_sma_stats(n).dr_forwarded == 0);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_trap256_header(&t);
    assert_int_equal(pzt_be(t.data + N256_DRSLID, 2), 0xFFFF);
    assert_int_equal(t.data[N256_METHOD], IB_MAD_METHOD_GET);
    assert_int_equal(pzt_be(t.data + N256_ATTR_ID, 2), IB_ATTR_PORT_INFO);
    assert_int_equal(pzt_be(t.data + N256_ATTR_MOD, 4), 0x80000005);
    assert_true(pzt_be(t.data + N256_MKEY, 8) == BAD_KEY);
    assert_int_equal(t.data[N256_DR], 0x80 | 2);
    assert_int_equal(t.data[N256_PATH], 4);     /* ReturnPath[1] */
    assert_int_equal(t.data[N256_PATH + 1], 6); /* ReturnPath[2]: ingress port here */
    assert_int_equal(t.data[N256_PATH + 2], 0);
    pzt_node_free(n);
}

/* A 40-hop DR path: the notice holds 30 hops and says it was truncated. */
static void test_trap256_truncated_path(void **state)
{
    struct pzt_node *n = switch_with_lid();
    uint8_t mad[PZT_MAD], path[64] = {0};
    struct pzt_result r, t;

    set_mkey(n, 0, KEY, 2, 0);
    pzt_dr_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO, 0, BAD_KEY, 0x44, 40, 40, path, 0x30,
               0xFFFF);
    for (unsigned i = 1; i < 40; i++)
        mad[192 + i] = (uint8_t)(i % 8 + 1);
    pzt_process(n, 3, 0xFFFF, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_trap256_header(&t);
    assert_int_equal(pzt_be(t.data + N256_DRSLID, 2), 0x30);
    /* Hop count of the 30 hops given, as qib/hfi1 bad_mkey() do. */
    assert_int_equal(t.data[N256_DR], 0x80 | 0x40 | 30);
    for (unsigned i = 1; i <= 30; i++)
        assert_int_equal(t.data[N256_PATH + i - 1], i % 8 + 1);
    pzt_node_free(n);
}

/* A violation repeated after the first Trap 256 went out gets a trap of its own. */
static void test_trap256_repeated_violation(void **state)
{
    struct pzt_node *n = switch_with_lid();
    uint8_t mad[PZT_MAD];
    struct pzt_result r, t;
    uint64_t tid1;

    set_mkey(n, 0, KEY, 2, 0);
    pzt_lid_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, BAD_KEY, 0x46);
    pzt_process(n, 1, REQ_SLID, mad, &r);
    pzt_process(n, 1, REQ_SLID, mad, &r); /* before any send: merged */
    assert_int_equal(pzt_poll_all(n, &t), 1);
    tid1 = mad_get_field64(t.mad, 0, IB_MAD_TRID_F);
    pzt_process(n, 1, REQ_SLID, mad, &r);
    assert_int_equal(sma_traps_pending(n->sma), 2);
    assert_int_equal(pzt_poll_all(n, &t), 1);
    check_trap256_header(&t);
    assert_true(mad_get_field64(t.mad, 0, IB_MAD_TRID_F) != tid1);
    assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_VIOL_F), 3);
    pzt_node_free(n);
}

/* Only SMPs for this SMA are checked: a DR SMP passing through is forwarded. */
static void test_forwarded_smp_not_checked(void **state)
{
    struct pzt_node *n = switch_with_lid();
    uint8_t mad[PZT_MAD], path[64] = {0, 1, 5, 2};
    struct pzt_result r;

    set_mkey(n, 0, KEY, 3, 0);
    pzt_connect_all(n);
    pzt_dr_smp(mad, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO, 0, BAD_KEY, 0x45, 3, 1, path, 0xFFFF,
               0xFFFF);
    pzt_process(n, 1, 0xFFFF, mad, &r);
    assert_int_equal(r.verdict, MAD_SEND);
    assert_int_equal(r.addr.port, 5);
    assert_true(pzt_sma_stats(n).mkey_violations == 0);
    assert_int_equal(pi_field(n, KEY, IB_PORT_MKEY_VIOL_F), 0);
    pzt_node_free(n);
}

PZT_MAIN(test_mkey_matrix, test_lease_expires, test_lease_expiry_without_poll,
         test_lease_stopped_by_valid_smp, test_lease_zero_never_expires, test_violations_saturate,
         test_trap256_lid_routed, test_trap256_directed_route, test_trap256_truncated_path,
         test_trap256_repeated_violation, test_forwarded_smp_not_checked)
