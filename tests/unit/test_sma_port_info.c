/*
 * test_sma_port_info.c - PortInfo Get and Set on a switch: port 0 (base and
 * enhanced) and external ports, AttrMod bit 31, every settable field, the
 * NOP / "set to supported" encodings, PortState and PortPhysicalState
 * transitions, and that a rejected Set changes nothing.
 */
#include "attr_util.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define MOD_EXT 0x80000000u /* AttrMod bit 31: SMSupportsExtendedSpeeds */

/* Get PortInfo of port (modifier mod) through port 1, expecting success. */
static void pi_get(struct pzt_node *n, uint32_t mod, uint8_t *d)
{
    au_get_expect(n, IB_ATTR_PORT_INFO, mod, ST_OK, d);
}

/* A Set template: the current PortInfo with PortState and PhysState set to NOP. */
static void pi_template(struct pzt_node *n, unsigned port, uint8_t *d)
{
    pi_get(n, port, d);
    mad_set_field(d, 0, IB_PORT_STATE_F, 0);
    mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 0);
}

/* Set one field of a NOP template of port, expecting status; response in r. */
static void pi_set_one(struct pzt_node *n, uint32_t mod, enum MAD_FIELDS f, unsigned v,
                       unsigned status, uint8_t *r)
{
    uint8_t d[PZT_DATA];

    pi_template(n, mod & 0xFF, d);
    mad_set_field(d, 0, f, v);
    au_set_expect(n, IB_ATTR_PORT_INFO, mod, d, status, r);
}

/* One step of a PortInfo Set sequence (see pi_run). */
struct pi_step {
    uint32_t mod;      /* AttrMod: the port, maybe with MOD_EXT */
    enum MAD_FIELDS f; /* the field set in a NOP template of that port */
    unsigned v;        /* its value */
    unsigned status;   /* the MAD status wanted */
    long want;         /* the field in the response, or PI_ANY: not checked */
};
#define PI_ANY (-1L)

/*
 * Run the steps in order, each a Set through port 1 of one field of the
 * port's NOP template; r receives each response.  A wrong status or
 * response value fails at file:line naming the step (index and field).
 */
static void pi_run(struct pzt_node *n, uint8_t *r, const struct pi_step *s, size_t count,
                   const char *file, int line)
{
    for (size_t i = 0; i < count; i++) {
        uint8_t d[PZT_DATA];
        int st;
        unsigned got;

        pi_template(n, s[i].mod & 0xFF, d);
        mad_set_field(d, 0, s[i].f, s[i].v);
        st = pzt_set(n, IB_ATTR_PORT_INFO, s[i].mod, d, r);
        got = mad_get_field(r, 0, s[i].f);
        if (st != (int)s[i].status || (s[i].want != PI_ANY && got != (unsigned long)s[i].want)) {
            print_error("step %zu, %s = %u (AttrMod 0x%x): status 0x%x (want 0x%x), "
                        "response %u (want %ld)\n",
                        i, mad_field_name(s[i].f), s[i].v, s[i].mod, (unsigned)st, s[i].status, got,
                        s[i].want);
            _fail(file, line);
        }
    }
}

/* PI_RUN(n, r, {MOD, FIELD, VALUE, STATUS, WANT}, ...): pi_run on the steps given. */
#define PI_RUN(n, r, ...)                                                                          \
    pi_run((n), (r), (const struct pi_step[]){__VA_ARGS__},                                        \
           sizeof((const struct pi_step[]){__VA_ARGS__}) / sizeof(struct pi_step), __FILE__,       \
           __LINE__)

/* One field of PortInfo of port as read now. */
static unsigned pi_field(struct pzt_node *n, unsigned port, enum MAD_FIELDS f)
{
    uint8_t d[PZT_DATA];

    pi_get(n, port, d);
    return mad_get_field(d, 0, f);
}

/* Switch port 0 (base port 0): the switch-wide end-port fields. */
static void test_port0_get(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[PZT_DATA];
    uint32_t cap;

    assert_int_equal(pzt_get_key(n, 7, 0, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LOCAL_PORT_F), 7);
    assert_true(mad_get_field64(d, 0, IB_PORT_MKEY_F) == 0);
    assert_true(mad_get_field64(d, 0, IB_PORT_GID_PREFIX_F) == 0);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 0);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_SMLID_F), 0);
    cap = mad_get_field(d, 0, IB_PORT_CAPMASK_F);
    assert_int_equal(cap & 0x00000002u, 0);           /* not IsSM: no SMInfo queries */
    assert_int_equal(cap & 0x00000008u, 0x00000008u); /* IsTrapSupported */
    assert_int_equal(cap & 0x00000040u, 0x00000040u); /* IsSLMappingSupported (VLCap 4) */
    assert_int_equal(cap & 0x00004000u, 0x00004000u); /* IsExtendedSpeedsSupported */
    assert_int_equal(cap & 0x00008000u, 0x00008000u); /* IsCapabilityMask2Supported */
    assert_int_equal(cap & 0x02000000u, 0);           /* no ClientReregistration on a switch */
    assert_int_equal(cap & 0x40000000u, 0x40000000u); /* IsMulticastFDBTopSupported */
    PZT_EXPECT_FIELDS(d, {IB_PORT_CAPMASK2_F, 0x0001}, {IB_PORT_MKEY_LEASE_F, 0},
                      {IB_PORT_MKEY_PROT_BITS_F, 0}, {IB_PORT_LMC_F, 0}, {IB_PORT_SMSL_F, 0},
                      {IB_PORT_MKEY_VIOL_F, 0}, {IB_PORT_QKEY_VIOL_F, 0}, {IB_PORT_GUID_CAP_F, 1},
                      {IB_PORT_CLIENT_REREG_F, 0}, {IB_PORT_SUBN_TIMEOUT_F, 0},
                      {IB_PORT_RESP_TIME_VAL_F, 8});
    /* Port 0 reports itself up (OpenSM does not use PortState of BSP0). */
    PZT_EXPECT_FIELDS(d, {IB_PORT_STATE_F, BOARD_PORT_ACTIVE},
                      {IB_PORT_PHYS_STATE_F, BOARD_PHYS_LINKUP}, {IB_PORT_VL_CAP_F, 4},
                      {IB_PORT_MTU_CAP_F, 5});
    pzt_node_free(n);
}

/* External port: link fields from the board; no end-port fields; LocalPortNum = ingress. */
static void test_external_get(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t d[PZT_DATA];

    pzt_assign_lid(n, 0x20, 0x01, 12);
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_PORT_INFO, 5, d), ST_OK);
    PZT_EXPECT_FIELDS(
        d, {IB_PORT_LOCAL_PORT_F, 2}, {IB_PORT_STATE_F, BOARD_PORT_DOWN},
        {IB_PORT_PHYS_STATE_F, BOARD_PHYS_POLLING}, {IB_PORT_LINK_WIDTH_SUPPORTED_F, 3},
        {IB_PORT_LINK_WIDTH_ENABLED_F, 3}, {IB_PORT_LINK_WIDTH_ACTIVE_F, 0},
        {IB_PORT_LINK_SPEED_SUPPORTED_F, 7}, {IB_PORT_LINK_SPEED_ENABLED_F, 7},
        {IB_PORT_LINK_SPEED_ACTIVE_F, 0}, {IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, 3},
        {IB_PORT_LINK_SPEED_EXT_ENABLED_F, 3}, {IB_PORT_LINK_SPEED_EXT_ACTIVE_F, 0},
        {IB_PORT_LINK_DOWN_DEF_F, BOARD_PHYS_POLLING}, {IB_PORT_NEIGHBOR_MTU_F, 5},
        {IB_PORT_MTU_CAP_F, 5}, {IB_PORT_VL_CAP_F, 4}, {IB_PORT_VL_ARBITRATION_HIGH_CAP_F, 8},
        {IB_PORT_VL_ARBITRATION_LOW_CAP_F, 8}, {IB_PORT_VL_HIGH_LIMIT_F, 0},
        {IB_PORT_OPER_VLS_F, 1}, {IB_PORT_HOQ_LIFE_F, 0x10}, {IB_PORT_VL_STALL_COUNT_F, 7},
        {IB_PORT_LOCAL_PHYS_ERR_F, 8}, {IB_PORT_OVERRUN_ERR_F, 8}, {IB_PORT_PKEY_VIOL_F, 0},
        {IB_PORT_PART_EN_INB_F, 0}, {IB_PORT_FILTER_RAW_OUTB_F, 0});
    /* End-port fields belong to port 0. */
    assert_true(mad_get_field64(d, 0, IB_PORT_MKEY_F) == 0);
    PZT_EXPECT_FIELDS(d, {IB_PORT_LID_F, 0}, {IB_PORT_SMLID_F, 0}, {IB_PORT_CAPMASK_F, 0},
                      {IB_PORT_CAPMASK2_F, 0}, {IB_PORT_GUID_CAP_F, 0},
                      {IB_PORT_SUBN_TIMEOUT_F, 0});

    /* Cabled: the link trains to Init at the fastest enabled width/speed. */
    board_mem_set_connected(n->bm, 5, true);
    assert_int_equal(pzt_get_key(n, 36, 0, IB_ATTR_PORT_INFO, 5, d), ST_OK);
    PZT_EXPECT_FIELDS(d, {IB_PORT_LOCAL_PORT_F, 36}, {IB_PORT_STATE_F, BOARD_PORT_INIT},
                      {IB_PORT_PHYS_STATE_F, BOARD_PHYS_LINKUP}, {IB_PORT_LINK_WIDTH_ACTIVE_F, 2},
                      {IB_PORT_LINK_SPEED_ACTIVE_F, 4}, {IB_PORT_LINK_SPEED_EXT_ACTIVE_F, 2});
    pzt_node_free(n);
}

/* AttrMod: bit 31 accepted and echoed on Get and Set; port > N and reserved bits 0x1C. */
static void test_attr_mod(void **state)
{
    struct pzt_node *n = pzt_switch_new(36);
    uint8_t plain[PZT_DATA], ext[PZT_DATA], d[PZT_DATA];
    struct pzt_result r;

    pzt_connect_all(n);
    for (unsigned p = 0; p <= 36; p += 6) {
        pi_get(n, p, plain);
        au_request(n, 1, 1, IB_MAD_METHOD_GET, IB_ATTR_PORT_INFO, MOD_EXT | p, 0, NULL, &r);
        au_check_resp(&r, ST_OK, IB_ATTR_PORT_INFO, MOD_EXT | p);
        memcpy(ext, r.data, PZT_DATA);
        assert_memory_equal(plain, ext, PZT_DATA);
    }
    pi_template(n, 3, d);
    au_request(n, 1, 1, IB_MAD_METHOD_SET, IB_ATTR_PORT_INFO, MOD_EXT | 3, 0, d, &r);
    au_check_resp(&r, ST_OK, IB_ATTR_PORT_INFO, MOD_EXT | 3);

    au_get_expect(n, IB_ATTR_PORT_INFO, 37, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PORT_INFO, 0xFF, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PORT_INFO, MOD_EXT | 37, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PORT_INFO, 0x100 | 3, ST_BAD_FIELD, NULL);
    au_get_expect(n, IB_ATTR_PORT_INFO, 0x40000000u | 3, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_PORT_INFO, 37, d, ST_BAD_FIELD, NULL);
    au_set_expect(n, IB_ATTR_PORT_INFO, 0x10003u, d, ST_BAD_FIELD, NULL);
    pzt_node_free(n);
}

/* Port 0 Set: LID, MasterSMLID, M_Key, SubnetTimeOut and the other end-port fields. */
/*
 * A switch whose management port hosts clients (the IP plane): port 0
 * reports the identity's width and speed (1x SDR, as real switches), and
 * advertises IsClientReregistrationSupported; every accepted Set with
 * ClientReregister 1 counts once for its clients.
 */
static void test_port0_identity(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA], r[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x0002c90000002000ull, 8);
    id.port0_width = 1; /* 1x */
    id.port0_speed = 1; /* SDR */
    id.port0_client_rereg = true;
    n = pzt_node_new(&id);
    assert_int_equal(pi_field(n, 0, IB_PORT_LINK_WIDTH_ACTIVE_F), 1);
    assert_int_equal(pi_field(n, 0, IB_PORT_LINK_SPEED_ACTIVE_F), 1);
    assert_int_equal(pi_field(n, 0, IB_PORT_CAPMASK_F) & 0x02000000u, 0x02000000u);
    assert_int_equal(sma_client_reregister_count(n->sma, 0), 0);
    pi_template(n, 0, d);
    PZT_SET_FIELDS(d, {IB_PORT_LID_F, 7}, {IB_PORT_SMLID_F, 1}, {IB_PORT_CLIENT_REREG_F, 1});
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_OK, r);
    assert_int_equal(sma_client_reregister_count(n->sma, 0), 1);
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_OK, r);
    assert_int_equal(sma_client_reregister_count(n->sma, 0), 2);
    mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, 0);
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_OK, r);
    assert_int_equal(sma_client_reregister_count(n->sma, 0), 2);
    /* A refused Set (LID in the multicast range) counts nothing. */
    mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, 1);
    mad_set_field(d, 0, IB_PORT_LID_F, 0xC000);
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_BAD_FIELD, r);
    assert_int_equal(sma_client_reregister_count(n->sma, 0), 2);
    assert_int_equal(sma_client_reregister_count(n->sma, 9), 0);
    pzt_node_free(n);

    /* The default switch: 4x SDR, no re-registration (nobody behind port 0). */
    n = pzt_switch_new(8);
    assert_int_equal(pi_field(n, 0, IB_PORT_LINK_WIDTH_ACTIVE_F), 2);
    assert_int_equal(pi_field(n, 0, IB_PORT_CAPMASK_F) & 0x02000000u, 0);
    pzt_node_free(n);
}

static void test_port0_set(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    const uint64_t key = 0x1122334455667788ull;
    uint8_t d[PZT_DATA], r[PZT_DATA], g[PZT_DATA];
    uint32_t cap;

    pi_template(n, 0, d);
    cap = mad_get_field(d, 0, IB_PORT_CAPMASK_F);
    mad_set_field64(d, 0, IB_PORT_MKEY_F, key);
    mad_set_field64(d, 0, IB_PORT_GID_PREFIX_F, 0xFE80000000000000ull);
    PZT_SET_FIELDS(d, {IB_PORT_LID_F, 0x0102}, {IB_PORT_SMLID_F, 0x0003},
                   {IB_PORT_MKEY_LEASE_F, 60}, {IB_PORT_MKEY_PROT_BITS_F, 1}, {IB_PORT_SMSL_F, 5},
                   {IB_PORT_SUBN_TIMEOUT_F, 18}, {IB_PORT_RESP_TIME_VAL_F, 8},
                   {IB_PORT_LINK_DOWN_DEF_F, BOARD_PHYS_POLLING});
    /* Not settable here: ignored. */
    mad_set_field(d, 0, IB_PORT_CAPMASK_F, 0xFFFFFFFFu);
    mad_set_field(d, 0, IB_PORT_CAPMASK2_F, 0xFFFF);
    mad_set_field(d, 0, IB_PORT_LMC_F, 3);          /* base port 0 has no LMC */
    mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, 1); /* not advertised on a switch */
    mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, 99);
    mad_set_field(d, 0, IB_PORT_GUID_CAP_F, 32);
    mad_set_field(d, 0, IB_PORT_STATE_F, BOARD_PORT_DOWN); /* no link of its own */
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_OK, r);

    assert_true(mad_get_field64(r, 0, IB_PORT_MKEY_F) == key);
    assert_true(mad_get_field64(r, 0, IB_PORT_GID_PREFIX_F) == 0xFE80000000000000ull);
    PZT_EXPECT_FIELDS(r, {IB_PORT_LID_F, 0x0102}, {IB_PORT_SMLID_F, 0x0003},
                      {IB_PORT_MKEY_LEASE_F, 60}, {IB_PORT_MKEY_PROT_BITS_F, 1},
                      {IB_PORT_SMSL_F, 5}, {IB_PORT_SUBN_TIMEOUT_F, 18}, {IB_PORT_CAPMASK_F, cap},
                      {IB_PORT_CAPMASK2_F, 0x0001}, {IB_PORT_LMC_F, 0}, {IB_PORT_CLIENT_REREG_F, 0},
                      {IB_PORT_LOCAL_PORT_F, 1}, {IB_PORT_GUID_CAP_F, 1},
                      {IB_PORT_STATE_F, BOARD_PORT_ACTIVE});

    /* The same on a later Get (with the key: ProtectBits 1 hides it otherwise). */
    assert_int_equal(pzt_get_key(n, 1, key, IB_ATTR_PORT_INFO, 0, g), ST_OK);
    assert_memory_equal(g, r, PZT_DATA);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PORT_INFO, 0, g), ST_OK);
    assert_true(mad_get_field64(g, 0, IB_PORT_MKEY_F) == 0);
    assert_int_equal(sma_lid(n->sma, 0), 0x0102);
    assert_int_equal(sma_lid(n->sma, 5), 0x0102); /* a switch has one LID */
    assert_int_equal(sma_master_sm_lid(n->sma, 0), 0x0003);
    assert_int_equal(board_mem_lid(n->bm, 0), 0x0102);

    /* Change LID and SM LID again; M_Key back to 0. */
    memcpy(d, r, sizeof(d));
    mad_set_field(d, 0, IB_PORT_LID_F, 0xBFFF);
    mad_set_field(d, 0, IB_PORT_SMLID_F, 0x0102);
    mad_set_field64(d, 0, IB_PORT_MKEY_F, 0);
    mad_set_field(d, 0, IB_PORT_MKEY_PROT_BITS_F, 0);
    assert_int_equal(pzt_set_key(n, 1, key, IB_ATTR_PORT_INFO, 0, d, r), ST_OK);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LID_F), 0xBFFF);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_SMLID_F), 0x0102);
    assert_true(mad_get_field64(r, 0, IB_PORT_MKEY_F) == 0);
    assert_int_equal(board_mem_lid(n->bm, 0), 0xBFFF);
    pzt_node_free(n);
}

/* Port 0 Set with a multicast/permissive LID: 0x1C and nothing applied. */
static void test_port0_set_invalid(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t before[PZT_DATA], d[PZT_DATA], r[PZT_DATA];
    const struct {
        enum MAD_FIELDS f;
        unsigned v;
    } bad[] = {
        {IB_PORT_LID_F, 0xC000},
        {IB_PORT_LID_F, 0xFFFF},
        {IB_PORT_SMLID_F, 0xC001},
        {IB_PORT_SMLID_F, 0xFFFF},
    };

    pzt_assign_lid(n, 0x10, 0x01, 10);
    pi_template(n, 0, before);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memcpy(d, before, sizeof(d));
        mad_set_field(d, 0, IB_PORT_LID_F, 0x22);
        mad_set_field(d, 0, IB_PORT_SMLID_F, 0x23);
        mad_set_field64(d, 0, IB_PORT_MKEY_F, 0x99);
        mad_set_field(d, 0, IB_PORT_SUBN_TIMEOUT_F, 3);
        mad_set_field(d, 0, bad[i].f, bad[i].v);
        au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_BAD_FIELD, r);
        pi_template(n, 0, d);
        assert_memory_equal(d, before, PZT_DATA);
        pi_get(n, 0, d);
        assert_memory_equal(r, d, PZT_DATA); /* the response shows the unchanged value */
    }
    assert_int_equal(sma_lid(n->sma, 0), 0x10);
    assert_int_equal(board_mem_lid(n->bm, 0), 0x10);
    pzt_node_free(n);
}

/* Violation counters: writing 0 resets them, anything else leaves them. */
static void test_violation_counters(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], r[PZT_DATA];

    /* M_Key 0x55, ProtectBits 0: Gets pass with any key, Sets need the key. */
    pi_template(n, 0, d);
    mad_set_field64(d, 0, IB_PORT_MKEY_F, 0x55);
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_OK, NULL);
    assert_int_equal(pzt_set_key(n, 1, 0x66, IB_ATTR_PORT_INFO, 0, d, NULL), -1);
    assert_int_equal(pzt_set_key(n, 1, 0x67, IB_ATTR_PORT_INFO, 0, d, NULL), -1);
    assert_int_equal(pi_field(n, 0, IB_PORT_MKEY_VIOL_F), 2);

    pi_template(n, 0, d);
    PZT_SET_FIELDS(d, {IB_PORT_MKEY_VIOL_F, 1}, {IB_PORT_QKEY_VIOL_F, 5}, {IB_PORT_PKEY_VIOL_F, 5});
    assert_int_equal(pzt_set_key(n, 1, 0x55, IB_ATTR_PORT_INFO, 0, d, r), ST_OK);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_MKEY_VIOL_F), 2);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_QKEY_VIOL_F), 0); /* not writable */
    mad_set_field(d, 0, IB_PORT_MKEY_VIOL_F, 0);
    assert_int_equal(pzt_set_key(n, 1, 0x55, IB_ATTR_PORT_INFO, 0, d, r), ST_OK);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_MKEY_VIOL_F), 0);
    assert_int_equal(pi_field(n, 0, IB_PORT_MKEY_VIOL_F), 0);

    /* P_Key violations of an external port: a non-zero write does not set them. */
    pi_template(n, 4, d);
    mad_set_field(d, 0, IB_PORT_PKEY_VIOL_F, 7);
    assert_int_equal(pzt_set_key(n, 1, 0x55, IB_ATTR_PORT_INFO, 4, d, r), ST_OK);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_PKEY_VIOL_F), 0);
    pzt_node_free(n);
}

/* External port Set: the plain link parameters round trip; end-port fields ignored. */
static void test_external_set_fields(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], r[PZT_DATA], g[PZT_DATA];

    pzt_assign_lid(n, 0x10, 0x01, 10);
    board_mem_set_connected(n->bm, 4, true);
    pi_template(n, 4, d);
    mad_set_field(d, 0, IB_PORT_LINK_DOWN_DEF_F, 1); /* Sleep */
    PZT_SET_FIELDS(
        d, {IB_PORT_VL_HIGH_LIMIT_F, 0xA5}, {IB_PORT_HOQ_LIFE_F, 0x12},
        {IB_PORT_VL_STALL_COUNT_F, 3}, {IB_PORT_LOCAL_PHYS_ERR_F, 4}, {IB_PORT_OVERRUN_ERR_F, 6},
        {IB_PORT_PART_EN_INB_F, 1}, {IB_PORT_PART_EN_OUTB_F, 1}, {IB_PORT_FILTER_RAW_INB_F, 1},
        {IB_PORT_FILTER_RAW_OUTB_F, 1}, {IB_PORT_NEIGHBOR_MTU_F, 4}, {IB_PORT_OPER_VLS_F, 3});
    /* End-port fields of an external port: ignored. */
    mad_set_field(d, 0, IB_PORT_LID_F, 0x99);
    mad_set_field(d, 0, IB_PORT_SMLID_F, 0x98);
    mad_set_field64(d, 0, IB_PORT_MKEY_F, 0x1234);
    au_set_expect(n, IB_ATTR_PORT_INFO, 4, d, ST_OK, r);
    pi_get(n, 4, g);
    assert_memory_equal(r, g, PZT_DATA);
    PZT_EXPECT_FIELDS(g, {IB_PORT_LINK_DOWN_DEF_F, 1}, {IB_PORT_VL_HIGH_LIMIT_F, 0xA5},
                      {IB_PORT_HOQ_LIFE_F, 0x12}, {IB_PORT_VL_STALL_COUNT_F, 3},
                      {IB_PORT_LOCAL_PHYS_ERR_F, 4}, {IB_PORT_OVERRUN_ERR_F, 6},
                      {IB_PORT_PART_EN_INB_F, 1}, {IB_PORT_PART_EN_OUTB_F, 1},
                      {IB_PORT_FILTER_RAW_INB_F, 1}, {IB_PORT_FILTER_RAW_OUTB_F, 1},
                      {IB_PORT_NEIGHBOR_MTU_F, 4}, {IB_PORT_OPER_VLS_F, 3}, {IB_PORT_LID_F, 0});
    assert_true(mad_get_field64(g, 0, IB_PORT_MKEY_F) == 0);
    assert_int_equal(mad_get_field(g, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);
    /* Port 0 and another external port are untouched. */
    assert_int_equal(pi_field(n, 0, IB_PORT_LID_F), 0x10);
    assert_int_equal(pi_field(n, 0, IB_PORT_SMLID_F), 0x01);
    assert_int_equal(pi_field(n, 5, IB_PORT_HOQ_LIFE_F), 0x10);
    assert_int_equal(pi_field(n, 5, IB_PORT_OPER_VLS_F), 1);

    /* LinkDownDefault: 0 = NOP, 2 = Polling, 3.. invalid. */
    PI_RUN(n, r, {4, IB_PORT_LINK_DOWN_DEF_F, 0, ST_OK, 1},
           {4, IB_PORT_LINK_DOWN_DEF_F, 2, ST_OK, 2},
           {4, IB_PORT_LINK_DOWN_DEF_F, 3, ST_BAD_FIELD, 2}, );
    pzt_node_free(n);
}

/* Without enforcement capabilities, the enforcement bits stay 0. */
static void test_external_no_enforcement(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA], r[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 4);
    id.enforcement_caps = false;
    n = pzt_node_new(&id);
    pi_template(n, 2, d);
    PZT_SET_FIELDS(d, {IB_PORT_PART_EN_INB_F, 1}, {IB_PORT_PART_EN_OUTB_F, 1},
                   {IB_PORT_FILTER_RAW_INB_F, 1}, {IB_PORT_FILTER_RAW_OUTB_F, 1});
    au_set_expect(n, IB_ATTR_PORT_INFO, 2, d, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_PORT_PART_EN_INB_F, 0}, {IB_PORT_PART_EN_OUTB_F, 0},
                      {IB_PORT_FILTER_RAW_INB_F, 0}, {IB_PORT_FILTER_RAW_OUTB_F, 0});
    pzt_node_free(n);
}

/* LinkWidthEnabled (0 NOP, 255 = supported) and LinkSpeedEnabled (0 NOP, 15 = supported). */
static void test_width_speed_enabled(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t r[PZT_DATA];

    board_mem_set_connected(n->bm, 2, true);
    PI_RUN(n, r, {2, IB_PORT_LINK_WIDTH_ENABLED_F, 1, ST_OK, 1},
           {2, IB_PORT_LINK_WIDTH_ENABLED_F, 0, ST_OK, 1},
           {2, IB_PORT_LINK_WIDTH_ENABLED_F, 255, ST_OK, 3},
           {2, IB_PORT_LINK_WIDTH_ENABLED_F, 2, ST_OK, 2},
           {2, IB_PORT_LINK_WIDTH_ENABLED_F, 4, ST_BAD_FIELD, 2},      /* 8x unsupported */
           {2, IB_PORT_LINK_WIDTH_ENABLED_F, 8, ST_BAD_FIELD, PI_ANY}, /* 12x unsupported */
    );
    assert_int_equal(pi_field(n, 2, IB_PORT_LINK_WIDTH_ENABLED_F), 2);
    assert_int_equal(pi_field(n, 2, IB_PORT_LINK_WIDTH_SUPPORTED_F), 3);

    PI_RUN(n, r, {2, IB_PORT_LINK_SPEED_ENABLED_F, 1, ST_OK, 1},
           {2, IB_PORT_LINK_SPEED_ENABLED_F, 0, ST_OK, 1},
           {2, IB_PORT_LINK_SPEED_ENABLED_F, 15, ST_OK, 7},
           {2, IB_PORT_LINK_SPEED_ENABLED_F, 6, ST_OK, 6},
           {2, IB_PORT_LINK_SPEED_ENABLED_F, 8, ST_BAD_FIELD, 6}, );
    assert_int_equal(pi_field(n, 2, IB_PORT_LINK_SPEED_SUPPORTED_F), 7);

    /* The new enables apply when the link retrains (Down bounces it). */
    PI_RUN(n, r, {2, IB_PORT_LINK_WIDTH_ENABLED_F, 1, ST_OK, PI_ANY},
           {2, IB_PORT_STATE_F, BOARD_PORT_DOWN, ST_OK, BOARD_PORT_INIT}, );
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LINK_WIDTH_ACTIVE_F), 1);
    pzt_node_free(n);
}

/* LinkSpeedExtEnabled: only with AttrMod bit 31; 0 NOP, 30 disable, 31 = supported. */
static void test_speed_ext_enabled(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t r[PZT_DATA];

    /* Without bit 31 the SM does not know the field: ignored, even if invalid. */
    PI_RUN(n, r, {3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 30, ST_OK, 3},
           {3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 4, ST_OK, 3}, );

    PI_RUN(n, r, {MOD_EXT | 3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 30, ST_OK, 0},
           {MOD_EXT | 3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 31, ST_OK, 3},
           {MOD_EXT | 3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 1, ST_OK, 1},
           {MOD_EXT | 3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 0, ST_OK, 1},
           {MOD_EXT | 3, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 4, ST_BAD_FIELD, 1}, );
    assert_int_equal(pi_field(n, 3, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F), 3);
    pzt_node_free(n);
}

/* OperationalVLs: 0 = NOP, 1..VLCap accepted, > VLCap is 0x1C. */
static void test_oper_vls(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t r[PZT_DATA];

    for (unsigned v = 1; v <= 4; v++) {
        pi_set_one(n, 6, IB_PORT_OPER_VLS_F, v, ST_OK, r);
        assert_int_equal(mad_get_field(r, 0, IB_PORT_OPER_VLS_F), v);
    }
    PI_RUN(n, r, {6, IB_PORT_OPER_VLS_F, 0, ST_OK, 4}, {6, IB_PORT_OPER_VLS_F, 5, ST_BAD_FIELD, 4},
           {6, IB_PORT_OPER_VLS_F, 15, ST_BAD_FIELD, PI_ANY}, );
    assert_int_equal(pi_field(n, 6, IB_PORT_OPER_VLS_F), 4);
    pzt_node_free(n);
}

/* NeighborMTU: 1..MTUCap accepted, 0 and > MTUCap are 0x1C. */
static void test_neighbor_mtu(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t r[PZT_DATA];

    for (unsigned v = 1; v <= 5; v++) {
        pi_set_one(n, 7, IB_PORT_NEIGHBOR_MTU_F, v, ST_OK, r);
        assert_int_equal(mad_get_field(r, 0, IB_PORT_NEIGHBOR_MTU_F), v);
    }
    PI_RUN(n, r, {7, IB_PORT_NEIGHBOR_MTU_F, 0, ST_BAD_FIELD, 5},
           {7, IB_PORT_NEIGHBOR_MTU_F, 6, ST_BAD_FIELD, PI_ANY},
           {7, IB_PORT_NEIGHBOR_MTU_F, 15, ST_BAD_FIELD, PI_ANY}, );
    assert_int_equal(pi_field(n, 7, IB_PORT_NEIGHBOR_MTU_F), 5);
    pzt_node_free(n);
}

/* PortState: Init -> Armed -> Active, Down; Init -> Active and others are 0x1C. */
static void test_port_state_transitions(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t r[PZT_DATA];

    board_mem_set_connected(n->bm, 2, true);
    assert_int_equal(pi_field(n, 2, IB_PORT_STATE_F), BOARD_PORT_INIT);

    PI_RUN(
        n, r,
        {2, IB_PORT_STATE_F, BOARD_PORT_ACTIVE, ST_BAD_FIELD, BOARD_PORT_INIT}, /* Init -> Active */
        {2, IB_PORT_STATE_F, BOARD_PORT_INIT, ST_BAD_FIELD, PI_ANY}, );
    for (unsigned v = 5; v <= 15; v++)
        pi_set_one(n, 2, IB_PORT_STATE_F, v, ST_BAD_FIELD, NULL);
    assert_int_equal(pi_field(n, 2, IB_PORT_STATE_F), BOARD_PORT_INIT);

    PI_RUN(n, r, {2, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_OK, BOARD_PORT_ARMED},
           {2, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_OK, BOARD_PORT_ARMED},
           {2, IB_PORT_STATE_F, BOARD_PORT_NOP, ST_OK, BOARD_PORT_ARMED},
           {2, IB_PORT_STATE_F, BOARD_PORT_ACTIVE, ST_OK, BOARD_PORT_ACTIVE},
           {2, IB_PORT_STATE_F, BOARD_PORT_ACTIVE, ST_OK, BOARD_PORT_ACTIVE},
           {2, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_BAD_FIELD,
            BOARD_PORT_ACTIVE}, /* Active -> Armed */
    );

    /* Down: the cabled link drops and retrains to Init. */
    pi_set_one(n, 2, IB_PORT_STATE_F, BOARD_PORT_DOWN, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);
    assert_int_equal(board_mem_link_downed(n->bm, 2), 1);

    /* An uncabled port stays Down; Armed/Active are refused there. */
    PI_RUN(n, r, {6, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_BAD_FIELD, PI_ANY},
           {6, IB_PORT_STATE_F, BOARD_PORT_ACTIVE, ST_BAD_FIELD, PI_ANY},
           {6, IB_PORT_STATE_F, BOARD_PORT_DOWN, ST_OK, BOARD_PORT_DOWN}, );
    assert_int_equal(board_mem_link_downed(n->bm, 6), 0);
    pzt_node_free(n);
}

/* LinkDownedCounter of port p (the hardware counter the PMA reports). */
static uint64_t hw_link_downed(struct pzt_node *n, unsigned p)
{
    struct board_port_counters c;

    assert_int_equal(board_port_counters(n->board, p, &c), 0);
    return c.link_downed;
}

/*
 * A Set with PortState and PortPhysicalState NOP leaves the link alone,
 * whatever else it changes (the enables, LinkDownDefault Polling): what an
 * SM sets on every port of a fresh fabric (OpenSM writes byte 33 as 0x02).
 * A Set of PortState Down bounces the link, but on command:
 * LinkDownedCounter (link error recovery failed) stays.
 */
static void test_set_nop_keeps_link(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t d[PZT_DATA], r[PZT_DATA];

    board_mem_set_connected(n->bm, 4, true);
    pi_set_one(n, 4, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_OK, r);
    pi_template(n, 4, d);
    mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F, 0xFF);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F, 0xF);
    mad_set_field(d, 0, IB_PORT_LINK_DOWN_DEF_F, 1); /* Sleep */
    mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, BOARD_PHYS_NOP);
    mad_set_field(d, 0, IB_PORT_OPER_VLS_F, 4);
    au_set_expect(n, IB_ATTR_PORT_INFO, 4, d, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_PORT_STATE_F, BOARD_PORT_ARMED},
                      {IB_PORT_PHYS_STATE_F, BOARD_PHYS_LINKUP}, {IB_PORT_LINK_DOWN_DEF_F, 1});
    pi_set_one(n, 4, IB_PORT_LINK_WIDTH_ENABLED_F, 1, ST_OK, r); /* 1x: at the next training */
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_ARMED);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LINK_WIDTH_ACTIVE_F), 2);
    pi_set_one(n, 4, IB_PORT_LINK_DOWN_DEF_F, BOARD_PHYS_POLLING, ST_OK, r);
    assert_int_equal(board_mem_link_downed(n->bm, 4), 0);
    assert_int_equal(hw_link_downed(n, 4), 0);

    pi_set_one(n, 4, IB_PORT_STATE_F, BOARD_PORT_DOWN, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LINK_WIDTH_ACTIVE_F), 1); /* retrained at 1x */
    assert_int_equal(board_mem_link_downed(n->bm, 4), 1);
    assert_int_equal(hw_link_downed(n, 4), 0);
    pi_set_one(n, 4, IB_PORT_PHYS_STATE_F, BOARD_PHYS_DISABLED, ST_OK, r);
    assert_int_equal(board_mem_link_downed(n->bm, 4), 2);
    assert_int_equal(hw_link_downed(n, 4), 0);
    /* The cable pulled from a trained link: that is a failure. */
    pi_set_one(n, 4, IB_PORT_PHYS_STATE_F, BOARD_PHYS_POLLING, ST_OK, r);
    board_mem_set_connected(n->bm, 4, false);
    assert_int_equal(hw_link_downed(n, 4), 1);
    pzt_node_free(n);
}

/* PortPhysicalState: 0 NOP, 2 Polling, 3 Disabled; others are 0x1C. */
static void test_phys_state(void **state)
{
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t r[PZT_DATA];

    board_mem_set_connected(n->bm, 3, true);
    pi_set_one(n, 3, IB_PORT_PHYS_STATE_F, BOARD_PHYS_DISABLED, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_PHYS_STATE_F), BOARD_PHYS_DISABLED);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_DOWN);
    assert_int_equal(board_mem_link_downed(n->bm, 3), 1);

    PI_RUN(n, r, {3, IB_PORT_PHYS_STATE_F, BOARD_PHYS_NOP, ST_OK, BOARD_PHYS_DISABLED},
           {3, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_BAD_FIELD, PI_ANY}, );
    assert_int_equal(mad_get_field(r, 0, IB_PORT_PHYS_STATE_F), BOARD_PHYS_DISABLED);

    pi_set_one(n, 3, IB_PORT_PHYS_STATE_F, BOARD_PHYS_POLLING, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_PHYS_STATE_F), BOARD_PHYS_LINKUP);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);

    /*
     * Polling on a trained link retrains it (ibportstate reset): Armed ->
     * Init, the new width enable applied, a link-down event but no
     * LinkDownedCounter (on command).
     */
    pi_set_one(n, 3, IB_PORT_STATE_F, BOARD_PORT_ARMED, ST_OK, r);
    pi_set_one(n, 3, IB_PORT_LINK_WIDTH_ENABLED_F, 1, ST_OK, r);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LINK_WIDTH_ACTIVE_F), 2); /* not yet */
    pi_set_one(n, 3, IB_PORT_PHYS_STATE_F, BOARD_PHYS_POLLING, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_PORT_PHYS_STATE_F, BOARD_PHYS_LINKUP},
                      {IB_PORT_STATE_F, BOARD_PORT_INIT}, {IB_PORT_LINK_WIDTH_ACTIVE_F, 1});
    assert_int_equal(board_mem_link_downed(n->bm, 3), 2);
    assert_int_equal(hw_link_downed(n, 3), 0);

    /* Uncabled: Disabled, then Polling (no peer: stays Polling / Down). */
    PI_RUN(n, r, {4, IB_PORT_PHYS_STATE_F, BOARD_PHYS_DISABLED, ST_OK, BOARD_PHYS_DISABLED},
           {4, IB_PORT_PHYS_STATE_F, BOARD_PHYS_POLLING, ST_OK, BOARD_PHYS_POLLING}, );
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_DOWN);

    /* Sleep, Training, LinkUp, ... cannot be requested. */
    pi_set_one(n, 3, IB_PORT_PHYS_STATE_F, BOARD_PHYS_SLEEP, ST_BAD_FIELD, NULL);
    for (unsigned v = 4; v <= 15; v++)
        pi_set_one(n, 3, IB_PORT_PHYS_STATE_F, v, ST_BAD_FIELD, NULL);
    assert_int_equal(pi_field(n, 3, IB_PORT_PHYS_STATE_F), BOARD_PHYS_LINKUP);
    assert_int_equal(pi_field(n, 3, IB_PORT_STATE_F), BOARD_PORT_INIT);
    pzt_node_free(n);
}

/* A Set with one bad field among good ones: 0x1C, response and state unchanged. */
static void test_invalid_set_untouched(void **state)
{
    const struct {
        enum MAD_FIELDS f;
        unsigned v;
    } bad[] = {
        {IB_PORT_OPER_VLS_F, 5},
        {IB_PORT_NEIGHBOR_MTU_F, 0},
        {IB_PORT_NEIGHBOR_MTU_F, 7},
        {IB_PORT_STATE_F, BOARD_PORT_ACTIVE},
        {IB_PORT_STATE_F, BOARD_PORT_INIT},
        {IB_PORT_PHYS_STATE_F, BOARD_PHYS_SLEEP},
        {IB_PORT_LINK_WIDTH_ENABLED_F, 4},
        {IB_PORT_LINK_SPEED_ENABLED_F, 8},
        {IB_PORT_LINK_SPEED_EXT_ENABLED_F, 4},
        {IB_PORT_LINK_DOWN_DEF_F, 3},
    };
    struct pzt_node *n = pzt_switch_new(8);
    uint8_t before[PZT_DATA], d[PZT_DATA], r[PZT_DATA];

    pzt_connect_all(n);
    pzt_poll_all(n, NULL);
    pi_get(n, 4, before);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pi_template(n, 4, d);
        PZT_SET_FIELDS(d, {IB_PORT_LINK_WIDTH_ENABLED_F, 1}, {IB_PORT_LINK_SPEED_ENABLED_F, 1},
                       {IB_PORT_LINK_SPEED_EXT_ENABLED_F, 30}, {IB_PORT_LINK_DOWN_DEF_F, 1},
                       {IB_PORT_STATE_F, BOARD_PORT_ARMED}, {IB_PORT_NEIGHBOR_MTU_F, 3},
                       {IB_PORT_OPER_VLS_F, 2}, {IB_PORT_VL_HIGH_LIMIT_F, 9},
                       {IB_PORT_HOQ_LIFE_F, 5}, {IB_PORT_VL_STALL_COUNT_F, 2},
                       {IB_PORT_LOCAL_PHYS_ERR_F, 1}, {IB_PORT_OVERRUN_ERR_F, 2},
                       {IB_PORT_PART_EN_INB_F, 1});
        mad_set_field(d, 0, bad[i].f, bad[i].v);
        au_set_expect(n, IB_ATTR_PORT_INFO, MOD_EXT | 4, d, ST_BAD_FIELD, r);
        assert_memory_equal(r, before, PZT_DATA);
        pi_get(n, 4, d);
        assert_memory_equal(d, before, PZT_DATA);
    }
    assert_int_equal(board_mem_link_downed(n->bm, 4), 0);

    /* The same Set without the bad field is accepted completely. */
    pi_template(n, 4, d);
    PZT_SET_FIELDS(d, {IB_PORT_STATE_F, BOARD_PORT_ARMED}, {IB_PORT_OPER_VLS_F, 2},
                   {IB_PORT_LINK_SPEED_EXT_ENABLED_F, 30});
    au_set_expect(n, IB_ATTR_PORT_INFO, MOD_EXT | 4, d, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_PORT_STATE_F, BOARD_PORT_ARMED}, {IB_PORT_OPER_VLS_F, 2},
                      {IB_PORT_LINK_SPEED_EXT_ENABLED_F, 0});
    pzt_node_free(n);
}

/* Enhanced port 0: VL fields and LMC of port 0 are settable, OperVLs bounded by VLCap. */
static void test_enhanced_port0(void **state)
{
    struct board_identity id;
    struct pzt_node *n;
    uint8_t d[PZT_DATA], r[PZT_DATA];

    board_mem_default_switch_identity(&id, 0x1000, 8);
    id.enhanced_port0 = true;
    n = pzt_node_new(&id);
    pi_template(n, 0, d);
    PZT_SET_FIELDS(d, {IB_PORT_LID_F, 0x40}, {IB_PORT_LMC_F, 2}, {IB_PORT_OPER_VLS_F, 3},
                   {IB_PORT_VL_HIGH_LIMIT_F, 4});
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_OK, r);
    PZT_EXPECT_FIELDS(r, {IB_PORT_LID_F, 0x40}, {IB_PORT_LMC_F, 2}, {IB_PORT_OPER_VLS_F, 3},
                      {IB_PORT_VL_HIGH_LIMIT_F, 4});
    assert_int_equal(board_mem_lmc(n->bm, 0), 2);
    assert_int_equal(board_mem_lid(n->bm, 0), 0x40);

    mad_set_field(d, 0, IB_PORT_LID_F, 0x50);
    mad_set_field(d, 0, IB_PORT_OPER_VLS_F, 5);
    au_set_expect(n, IB_ATTR_PORT_INFO, 0, d, ST_BAD_FIELD, r);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LID_F), 0x40);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_OPER_VLS_F), 3);
    pzt_node_free(n);
}

/* CA: PortInfo Set through each port acts on that port only (state, LMC, M_Key). */
static void test_ca_port_info_set(void **state)
{
    struct pzt_node *n = pzt_ca_new(2);
    uint8_t d[PZT_DATA], r[PZT_DATA];

    pzt_connect_all(n);
    assert_int_equal(pzt_get_key(n, 1, 0, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    PZT_SET_FIELDS(d, {IB_PORT_STATE_F, BOARD_PORT_ARMED}, {IB_PORT_PHYS_STATE_F, 0},
                   {IB_PORT_LID_F, 0x30}, {IB_PORT_LMC_F, 1}, {IB_PORT_CLIENT_REREG_F, 0});
    mad_set_field64(d, 0, IB_PORT_MKEY_F, 0xABC);
    assert_int_equal(pzt_set_key(n, 1, 0, IB_ATTR_PORT_INFO, 0, d, r), ST_OK);
    PZT_EXPECT_FIELDS(r, {IB_PORT_STATE_F, BOARD_PORT_ARMED}, {IB_PORT_LID_F, 0x30},
                      {IB_PORT_LMC_F, 1});
    assert_true(mad_get_field64(r, 0, IB_PORT_MKEY_F) == 0xABC);
    assert_int_equal(board_mem_lid(n->bm, 1), 0x30);
    assert_int_equal(board_mem_lmc(n->bm, 1), 1);

    /* Port 2 keeps its own state, LID and (no) M_Key. */
    assert_int_equal(pzt_get_key(n, 2, 0, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);
    assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 0);
    assert_true(mad_get_field64(d, 0, IB_PORT_MKEY_F) == 0);
    mad_set_field(d, 0, IB_PORT_STATE_F, BOARD_PORT_ACTIVE); /* Init -> Active */
    mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 0);
    assert_int_equal(pzt_set_key(n, 2, 0, IB_ATTR_PORT_INFO, 0, d, r), ST_BAD_FIELD);
    mad_set_field(d, 0, IB_PORT_STATE_F, BOARD_PORT_NOP);
    mad_set_field(d, 0, IB_PORT_OPER_VLS_F, 4);
    assert_int_equal(pzt_set_key(n, 2, 0, IB_ATTR_PORT_INFO, 0, d, r), ST_OK);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_OPER_VLS_F), 4);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_LOCAL_PORT_F), 2);

    /* Port 1's Armed -> Active. */
    assert_int_equal(pzt_get_key(n, 1, 0xABC, IB_ATTR_PORT_INFO, 0, d), ST_OK);
    mad_set_field(d, 0, IB_PORT_STATE_F, BOARD_PORT_ACTIVE);
    mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 0);
    assert_int_equal(pzt_set_key(n, 1, 0xABC, IB_ATTR_PORT_INFO, 0, d, r), ST_OK);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_STATE_F), BOARD_PORT_ACTIVE);
    assert_int_equal(mad_get_field(r, 0, IB_PORT_OPER_VLS_F), 1);
    pzt_node_free(n);
}

PZT_MAIN(test_port0_get, test_external_get, test_attr_mod, test_port0_set, test_port0_identity,
         test_port0_set_invalid, test_violation_counters, test_external_set_fields,
         test_external_no_enforcement, test_width_speed_enabled, test_speed_ext_enabled,
         test_oper_vls, test_neighbor_mtu, test_port_state_transitions, test_set_nop_keeps_link,
         test_phys_state, test_invalid_set_untouched, test_enhanced_port0, test_ca_port_info_set)
