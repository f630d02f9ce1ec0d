/*
 * test_pma_vendor.c - the vendor-specific PMA attribute PZ_CongestionMonitor
 * (0xFF30): requests encoded by libibmad's mad_encode() as pz-hotspot sends
 * them (AttributeModifier = port), answers decoded field by field at the
 * offsets of pma_vendor.h; the summary, a port record with its history, Set
 * of the tunables, bad modifiers and values, no monitor attached.
 */
#include "pma_test_util.h"

#include "cong_monitor.h"
#include "pma_vendor.h"
#include "pzt_main.h"

#define NPORTS 8
#define MS 1000000ull
#define SEC 1000000000ull
#define ATTR PZ_ATTR_CONG_MONITOR
#define LINK_BPS 100000000000ull

/* A switch with a PMA and a monitor reading it, attached to the PMA. */
struct vfx {
    struct pt_node *n;
    struct cong_monitor *m;
};

static struct vfx vfx_new(void)
{
    struct vfx v;

    v.n = pt_switch_new(NPORTS, 64, false);
    for (unsigned p = 1; p <= NPORTS; p++)
        board_mem_set_connected(v.n->bm, p, true);
    v.m = cong_monitor_create(v.n->board, cong_monitor_read_pma, v.n->pma, NULL);
    assert_non_null(v.m);
    pma_set_cong_monitor(v.n->pma, v.m);
    return v;
}

static void vfx_free(struct vfx *v)
{
    pma_set_cong_monitor(v->n->pma, NULL);
    cong_monitor_destroy(v->m);
    pt_node_free(v->n);
}

/* One second with these XmitWait ticks and XmitData words on the ports; then a round. */
static void second(struct vfx *v, const uint64_t wait[NPORTS + 1], const uint64_t data[NPORTS + 1])
{
    for (unsigned p = 1; p <= NPORTS; p++) {
        pt_add(v->n, &pt_hw(v->n, p)->xmit_wait, wait[p]);
        pt_add(v->n, &pt_hw(v->n, p)->xmit_data, data[p]);
    }
    board_mem_advance_ns(v->n->bm, SEC);
    cong_monitor_poll(v->m);
}

/* Get with modifier mod; returns the status, data in resp. */
static int vget(struct vfx *v, uint32_t mod, uint8_t *resp)
{
    return pt_pma_mod(v->n, IB_MAD_METHOD_GET, ATTR, mod, NULL, resp);
}

/* Ports: 3 hot-spot (CA), 5 low-util (switch), 6 congested (switch), 2 CA and idle. */
static void make_classes(struct vfx *v)
{
    uint64_t wait[NPORTS + 1] = {0}, data[NPORTS + 1] = {0};

    cong_monitor_set_peer(v->m, 2, CONG_PEER_CA);
    cong_monitor_set_peer(v->m, 3, CONG_PEER_CA);
    cong_monitor_set_peer(v->m, 5, CONG_PEER_SWITCH);
    cong_monitor_set_peer(v->m, 6, CONG_PEER_SWITCH);
    wait[3] = 300000;
    data[3] = LINK_BPS / 32 * 7 / 10; /* 70 %: words = bytes / 4 */
    wait[5] = 200000;
    data[5] = LINK_BPS / 32 / 10;
    wait[6] = 150000;
    data[6] = LINK_BPS / 32 * 9 / 10;
    second(v, wait, data);
}

/* Without a monitor the attribute does not exist. */
static void test_no_monitor(void **state)
{
    struct pt_node *n = pt_switch_new(NPORTS, 64, false);
    uint8_t req[PT_DATA] = {0}, resp[PT_DATA];

    assert_int_equal(pt_pma_mod(n, IB_MAD_METHOD_GET, ATTR, 0, NULL, resp), ST_BAD_ATTR);
    assert_int_equal(pt_pma_mod(n, IB_MAD_METHOD_GET, ATTR, 1, NULL, resp), ST_BAD_ATTR);
    req[PZ_CM_VERSION] = 1;
    assert_int_equal(pt_pma_mod(n, IB_MAD_METHOD_SET, ATTR, 0, req, resp), ST_BAD_ATTR);
    pt_check_reply(n, IB_PERFORMANCE_CLASS);
    assert_memory_equal(resp, req, PT_DATA); /* error answers echo the request */
    /* Other vendor IDs stay unknown. */
    assert_int_equal(pt_pma_mod(n, IB_MAD_METHOD_GET, 0xFF31, 0, NULL, resp), ST_BAD_ATTR);
    pt_node_free(n);
}

/* The summary, field by field. */
static void test_summary(void **state)
{
    struct vfx v = vfx_new();
    uint8_t r[PT_DATA];

    make_classes(&v);
    assert_int_equal(vget(&v, 0, r), ST_OK);
    pt_check_reply(v.n, IB_PERFORMANCE_CLASS);
    assert_int_equal(r[PZ_CM_VERSION], 1);
    assert_int_equal(r[PZ_CM_NUM_PORTS], NPORTS);
    assert_int_equal(r[PZ_CM_LOW_UTIL], 50);
    assert_int_equal(r[PZ_CM_CLEAR], 50);
    assert_int_equal(be_get(r + PZ_CM_INTERVAL, 4), 1000);
    assert_true(be_get(r + PZ_CM_THRESHOLD, 8) == 100000);
    assert_int_equal(be_get(r + PZ_CM_SAMPLES, 4), 1);
    assert_int_equal(r[PZ_CM_HISTORY], CONG_HISTORY_DEFAULT);
    assert_int_equal(r[PZ_CM_HISTORY + 1], 0);
    assert_int_equal(be_get(r + PZ_CM_TICK_NS, 2), 1000);
    assert_int_equal(be_get(r + PZ_CM_INVALID, 4), 0);
    assert_int_equal(be_get(r + PZ_CM_EVENTS, 4), 3);
    /* Nothing past byte 160 (libumad2sim would not deliver it). */
    for (unsigned i = PZ_CM_DATA_USED; i < PT_DATA; i++)
        assert_int_equal(r[i], 0);
    for (unsigned p = 0; p < 256; p++) {
        assert_int_equal(pz_mask_test(r + PZ_CM_HOTSPOT_MASK, p), p == 3);
        assert_int_equal(pz_mask_test(r + PZ_CM_LOW_UTIL_MASK, p), p == 5);
        assert_int_equal(pz_mask_test(r + PZ_CM_CONGESTED_MASK, p), p == 6);
        assert_int_equal(pz_mask_test(r + PZ_CM_CA_MASK, p), p == 2 || p == 3);
    }
    /* IBA PortMask order: port 3 is bit 3 of the last byte. */
    assert_int_equal(r[PZ_CM_HOTSPOT_MASK + 31], 0x08);
    assert_int_equal(r[PZ_CM_CA_MASK + 31], 0x0C);
    vfx_free(&v);
}

/* A port record with its newest samples. */
static void test_port_record(void **state)
{
    struct vfx v = vfx_new();
    uint64_t wait[NPORTS + 1] = {0}, data[NPORTS + 1] = {0};
    uint8_t r[PT_DATA];

    make_classes(&v);
    wait[3] = 40000; /* below the clear level: back to normal */
    data[3] = LINK_BPS / 32 / 4;
    second(&v, wait, data);
    assert_int_equal(vget(&v, 3, r), ST_OK);
    assert_int_equal(r[PZ_CMP_VERSION], 1);
    assert_int_equal(r[PZ_CMP_PORT], 3);
    assert_int_equal(r[PZ_CMP_CLASS], CONG_PORT_NORMAL);
    assert_int_equal(r[PZ_CMP_PEER], CONG_PEER_CA);
    assert_int_equal(r[PZ_CMP_FLAGS], PZ_CMP_F_VALID | PZ_CMP_F_LINK_UP);
    assert_int_equal(r[PZ_CMP_HIST_COUNT], 2);
    assert_int_equal(be_get(r + PZ_CMP_UTIL, 2), 250);
    assert_true(be_get(r + PZ_CMP_CONGESTION, 8) == 40000);
    assert_true(be_get(r + PZ_CMP_BANDWIDTH, 8) == LINK_BPS / 32);
    assert_true(be_get(r + PZ_CMP_LINK_RATE, 8) == LINK_BPS);
    assert_true(be_get(r + PZ_CMP_SAMPLE_TIME, 8) == 3 * SEC);
    assert_true(be_get(r + PZ_CMP_SINCE, 8) == 3 * SEC);
    assert_int_equal(be_get(r + PZ_CMP_CHANGES, 4), 2);
    assert_int_equal(be_get(r + PZ_CMP_INVALID, 4), 0);
    assert_true(be_get(r + PZ_CMP_NOW, 8) == 3 * SEC);
    /* History newest first. */
    assert_true(be_get(r + PZ_CMP_HIST + PZ_CMH_TIME, 8) == 3 * SEC);
    assert_true(be_get(r + PZ_CMP_HIST + PZ_CMH_CONGESTION, 8) == 40000);
    assert_int_equal(r[PZ_CMP_HIST + PZ_CMH_CLASS], CONG_PORT_NORMAL);
    {
        const uint8_t *e = r + PZ_CMP_HIST + PZ_CMP_HIST_ENTRY;

        assert_true(be_get(e + PZ_CMH_TIME, 8) == 2 * SEC);
        assert_true(be_get(e + PZ_CMH_CONGESTION, 8) == 300000);
        assert_true(be_get(e + PZ_CMH_BANDWIDTH, 8) == LINK_BPS / 8 * 7 / 10);
        assert_int_equal(be_get(e + PZ_CMH_UTIL, 2), 700);
        assert_int_equal(e[PZ_CMH_CLASS], CONG_PORT_HOTSPOT);
    }
    for (unsigned i = PZ_CMP_HIST + 2 * PZ_CMP_HIST_ENTRY; i < PT_DATA; i++)
        assert_int_equal(r[i], 0);

    /* A down port: no flags, no rate. */
    board_mem_set_connected(v.n->bm, 8, false);
    second(&v, wait, data);
    assert_int_equal(vget(&v, 8, r), ST_OK);
    assert_int_equal(r[PZ_CMP_PORT], 8);
    assert_int_equal(r[PZ_CMP_FLAGS], 0);
    assert_true(be_get(r + PZ_CMP_LINK_RATE, 8) == 0);
    /* Three samples of port 3 by now: all three entries, nothing past byte 160. */
    assert_int_equal(vget(&v, 3, r), ST_OK);
    assert_int_equal(r[PZ_CMP_HIST_COUNT], PZ_CMP_HIST_MAX);
    assert_true(be_get(r + PZ_CMP_HIST + 2 * PZ_CMP_HIST_ENTRY + PZ_CMH_TIME, 8) == 2 * SEC);
    for (unsigned i = PZ_CM_DATA_USED; i < PT_DATA; i++)
        assert_int_equal(r[i], 0);
    /* The last port is fine, one past it is not. */
    assert_int_equal(vget(&v, NPORTS, r), ST_OK);
    assert_int_equal(vget(&v, NPORTS + 1, r), ST_BAD_FIELD);
    assert_int_equal(vget(&v, 0xFFFFFFFF, r), ST_BAD_FIELD);
    assert_int_equal(vget(&v, 0x100, r), ST_BAD_FIELD);
    /* Other attributes still refuse a modifier. */
    assert_int_equal(pt_pma_mod(v.n, IB_MAD_METHOD_GET, IB_GSI_PORT_COUNTERS, 1, NULL, r),
                     ST_BAD_FIELD);
    vfx_free(&v);
}

/* The monitor has the settings test_set writes: 100 ms, 250000 ticks, 40 %, 80 %, 8. */
static void check_set_config(const struct cong_monitor *m)
{
    struct cong_monitor_config cfg;

    cong_monitor_get_config(m, &cfg);
    assert_int_equal(cfg.interval_ms, 100);
    assert_true(cfg.threshold_ticks == 250000);
    assert_int_equal(cfg.low_util_percent, 40);
    assert_int_equal(cfg.clear_percent, 80);
    assert_int_equal(cfg.history, 8);
}

/* Set of the tunables: validated, applied, answered with the new summary. */
static void test_set(void **state)
{
    struct vfx v = vfx_new();
    uint8_t req[PT_DATA], r[PT_DATA];

    assert_int_equal(vget(&v, 0, req), ST_OK);
    be_put(req + PZ_CM_INTERVAL, 100, 4);
    be_put(req + PZ_CM_THRESHOLD, 250000, 8);
    req[PZ_CM_LOW_UTIL] = 40;
    req[PZ_CM_CLEAR] = 80;
    req[PZ_CM_HISTORY] = 8;
    assert_int_equal(pt_pma_mod(v.n, IB_MAD_METHOD_SET, ATTR, 0, req, r), ST_OK);
    pt_check_reply(v.n, IB_PERFORMANCE_CLASS);
    assert_int_equal(be_get(r + PZ_CM_INTERVAL, 4), 100);
    assert_true(be_get(r + PZ_CM_THRESHOLD, 8) == 250000);
    assert_int_equal(r[PZ_CM_LOW_UTIL], 40);
    assert_int_equal(r[PZ_CM_CLEAR], 80);
    assert_int_equal(r[PZ_CM_HISTORY], 8);
    check_set_config(v.m);

    /* Each bad value: 0x1C, the request echoed, nothing changed. */
    {
        struct {
            unsigned offs, len;
            uint64_t value;
        } bad[] = {
            {PZ_CM_INTERVAL, 4, 99}, {PZ_CM_INTERVAL, 4, 0},   {PZ_CM_THRESHOLD, 8, 0},
            {PZ_CM_LOW_UTIL, 1, 0},  {PZ_CM_LOW_UTIL, 1, 101}, {PZ_CM_CLEAR, 1, 0},
            {PZ_CM_CLEAR, 1, 200},   {PZ_CM_HISTORY, 1, 0},    {PZ_CM_HISTORY, 1, 65},
            {PZ_CM_VERSION, 1, 2},   {PZ_CM_VERSION, 1, 0},
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            uint8_t b[PT_DATA];

            memcpy(b, req, PT_DATA);
            be_put(b + bad[i].offs, bad[i].value, bad[i].len);
            assert_int_equal(pt_pma_mod(v.n, IB_MAD_METHOD_SET, ATTR, 0, b, r), ST_BAD_FIELD);
            assert_memory_equal(r, b, PT_DATA);
            check_set_config(v.m);
        }
    }
    /* Port records are read-only. */
    assert_int_equal(pt_pma_mod(v.n, IB_MAD_METHOD_SET, ATTR, 1, req, r), ST_BAD_FIELD);
    /* Read-only fields in a Set are ignored. */
    memset(req + PZ_CM_SAMPLES, 0x77, 4);
    req[PZ_CM_NUM_PORTS] = 99;
    assert_int_equal(pt_pma_mod(v.n, IB_MAD_METHOD_SET, ATTR, 0, req, r), ST_OK);
    assert_int_equal(r[PZ_CM_NUM_PORTS], NPORTS);
    assert_int_equal(be_get(r + PZ_CM_SAMPLES, 4), 0);
    /* Unknown method. */
    assert_int_equal(pt_pma_mod(v.n, IB_MAD_METHOD_SEND, ATTR, 0, req, r), ST_BAD_METHOD);
    /* Detached: unknown again. */
    pma_set_cong_monitor(v.n->pma, NULL);
    assert_int_equal(vget(&v, 0, r), ST_BAD_ATTR);
    vfx_free(&v);
}

PZT_MAIN(test_no_monitor, test_summary, test_port_record, test_set)
