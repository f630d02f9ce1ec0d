/*
 * test_smi_dr.c - directed-route SMP processing (IBA 14.2.2).
 *
 * Part 1 is a table: one row per receive/forward/local/discard case of
 * smi_dr_outgoing(), smi_dr_returning() and smi_dr_respond(), on a switch
 * and on a CA.  Part 2 walks SMPs hop by hop through chains of SMAs on
 * in-memory switches, delivering every MAD_SEND to the port the cabling
 * connects it to.
 *
 * Numbering (see smi_dr.c): node 0 is the originator (or the switch where a
 * leading LID-routed leg ends); an outgoing SMP arrives at node k with
 * HopPointer k, a returning one with HopPointer k + 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "pzt.h"
#include "smi_dr.h"
#include "pzt_main.h"
#include "pzt_fields.h"

#define SW_PORTS 8
#define CA_PORTS 2
#define PERM SMI_PERMISSIVE_LID
#define IPATH 128 /* InitialPath offset in the SMP */
#define RPATH 192 /* ReturnPath offset in the SMP */
#define UNTOUCHED 0xDEADu
#define NO_RP (-1)  /* rp_index: no ReturnPath entry may change */
#define RP_ANY (-2) /* rp_index: ReturnPath not checked (discards) */
#define ANY_HP (-1) /* hp_after: not checked (discards) */

/* Which decision function a row exercises. */
enum dr_fn {
    FN_OUT,  /* smi_dr_outgoing(): D = 0 SMP received */
    FN_RET,  /* smi_dr_returning(): D = 1 SMP received */
    FN_RESP, /* smi_dr_respond(): the local SMA answered the request */
};

/* One case of the hop rules. */
struct dr_row {
    const char *name;
    enum dr_fn fn;
    bool ca; /* node is a CA with CA_PORTS ports (else a switch with SW_PORTS) */
    unsigned hc, hp;
    uint16_t drslid, drdlid;
    uint8_t ipath[64];
    uint8_t rpath[64];
    unsigned in_port;
    enum smi_action action;
    unsigned out_port; /* *port on SMI_FORWARD; otherwise *port stays untouched */
    int hp_after;      /* ANY_HP: not checked (discards) */
    int rp_index;      /* ReturnPath entry written, NO_RP or RP_ANY */
    unsigned rp_value;
};

/* clang-format off */
static const struct dr_row dr_rows[] = {
    /* ---- outgoing (D = 0), IBA C14-6, C14-9 ---- */
    {"out: hc 64 is discarded (C14-6)", FN_OUT, false, 64, 1, PERM, PERM,
     {[2] = 1}, {0}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"out: hc 255 = hp is discarded, not local", FN_OUT, false, 255, 255, PERM, PERM,
     {0}, {0}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"out: hc 0 at a switch: local, hp 1", FN_OUT, false, 0, 0, PERM, PERM,
     {0}, {0}, 3, SMI_LOCAL, 0, 1, NO_RP, 0},
    {"out: hc 0 at a CA: local, hp 1", FN_OUT, true, 0, 0, PERM, PERM,
     {0}, {0}, 1, SMI_LOCAL, 0, 1, NO_RP, 0},
    {"out: hp 0, hc > 0, pure DR: discard (C14-9:1)", FN_OUT, false, 2, 0, PERM, PERM,
     {[1] = 4, [2] = 6}, {0}, 2, SMI_DISCARD, 0, 0, NO_RP, 0},
    {"out: hp 0, hc > 0, pure DR with DrDLID: discard", FN_OUT, false, 2, 0, PERM, 0x40,
     {[1] = 4, [2] = 6}, {0}, 2, SMI_DISCARD, 0, 0, NO_RP, 0},
    {"out: leading LID leg ends at a switch: hp 1, out InitialPath[1]", FN_OUT, false,
     2, 0, 0x30, PERM, {[1] = 4, [2] = 6}, {0}, 2, SMI_FORWARD, 4, 1, NO_RP, 0},
    {"out: leading LID leg ending at a CA: discard", FN_OUT, true, 2, 0, 0x30, PERM,
     {[1] = 1, [2] = 6}, {0}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"out: leading leg, InitialPath[1] = 0: discard", FN_OUT, false, 2, 0, 0x30, PERM,
     {[1] = 0, [2] = 6}, {0}, 2, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"out: leading leg, InitialPath[1] > NumPorts: discard", FN_OUT, false, 2, 0, 0x30, PERM,
     {[1] = 9, [2] = 6}, {0}, 2, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"out: intermediate hop 1 of 3 (C14-9:2)", FN_OUT, false, 3, 1, PERM, PERM,
     {[1] = 1, [2] = 5, [3] = 7}, {0}, 2, SMI_FORWARD, 5, 2, 1, 2},
    {"out: intermediate hop 2 of 3, exit = NumPorts", FN_OUT, false, 3, 2, PERM, PERM,
     {[1] = 1, [2] = 5, [3] = 8}, {[1] = 2}, 7, SMI_FORWARD, 8, 3, 2, 7},
    {"out: intermediate hop back out of the ingress port", FN_OUT, false, 3, 1, PERM, PERM,
     {[1] = 1, [2] = 2, [3] = 8}, {0}, 2, SMI_FORWARD, 2, 2, 1, 2},
    {"out: intermediate, InitialPath[hp+1] = 0: discard", FN_OUT, false, 3, 1, PERM, PERM,
     {[1] = 1, [2] = 0, [3] = 7}, {0}, 2, SMI_DISCARD, 0, ANY_HP, RP_ANY, 0},
    {"out: intermediate, InitialPath[hp+1] > NumPorts: discard", FN_OUT, false, 3, 1, PERM,
     PERM, {[1] = 1, [2] = 9, [3] = 7}, {0}, 2, SMI_DISCARD, 0, ANY_HP, RP_ANY, 0},
    {"out: intermediate hop at a CA: discard", FN_OUT, true, 3, 1, PERM, PERM,
     {[1] = 1, [2] = 1, [3] = 1}, {0}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"out: intermediate hop after a leading LID leg", FN_OUT, false, 3, 2, 0x30, PERM,
     {[1] = 4, [2] = 5, [3] = 6}, {[1] = 3}, 1, SMI_FORWARD, 6, 3, 2, 1},
    {"out: end of the path at a switch: local (C14-9:3)", FN_OUT, false, 3, 3, PERM, PERM,
     {[1] = 1, [2] = 5, [3] = 7}, {[1] = 2, [2] = 3}, 6, SMI_LOCAL, 0, 4, 3, 6},
    {"out: end of the path at a CA: local", FN_OUT, true, 1, 1, PERM, PERM,
     {[1] = 3}, {0}, 2, SMI_LOCAL, 0, 2, 1, 2},
    {"out: end of a 63-hop path: local, ReturnPath[63] written", FN_OUT, false, 63, 63,
     PERM, PERM, {[63] = 1}, {0}, 1, SMI_LOCAL, 0, 64, 63, 1},
    {"out: end of the DR part, trailing LID leg from a switch", FN_OUT, false, 2, 2, PERM,
     0x40, {[1] = 1, [2] = 5}, {[1] = 4}, 3, SMI_LID_DRDLID, 0, 3, 2, 3},
    {"out: trailing LID leg from a CA: discard (C14-9:3)", FN_OUT, true, 1, 1, PERM, 0x40,
     {[1] = 1}, {0}, 2, SMI_DISCARD, 0, ANY_HP, RP_ANY, 0},
    {"out: hc 0, both legs LID-routed: on to DrDLID", FN_OUT, false, 0, 0, 0x30, 0x40,
     {0}, {0}, 2, SMI_LID_DRDLID, 0, 1, NO_RP, 0},
    {"out: hc 0 with a leading LID leg (smpquery -c): local", FN_OUT, false, 0, 0, 0x30,
     PERM, {0}, {0}, 2, SMI_LOCAL, 0, 1, NO_RP, 0},
    {"out: destination of a trailing LID leg, switch: local (C14-9:4)", FN_OUT, false,
     2, 3, PERM, 0x40, {[1] = 1, [2] = 5}, {[1] = 4, [2] = 3}, 6, SMI_LOCAL, 0, 3, NO_RP, 0},
    {"out: destination of a trailing LID leg, CA: local", FN_OUT, true, 2, 3, PERM, 0x40,
     {[1] = 1, [2] = 5}, {[1] = 4, [2] = 3}, 1, SMI_LOCAL, 0, 3, NO_RP, 0},
    {"out: hp > hc + 1: discard (C14-9:5)", FN_OUT, false, 2, 4, PERM, PERM,
     {[1] = 1, [2] = 5}, {0}, 1, SMI_DISCARD, 0, 4, NO_RP, 0},

    /* ---- returning (D = 1), IBA C14-13 ---- */
    {"ret: hc 64 is discarded", FN_RET, false, 64, 2, PERM, PERM,
     {0}, {[1] = 1}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: at node 2 of 3 (hp 3): out ReturnPath[2] (C14-13:2)", FN_RET, false, 3, 3,
     PERM, PERM, {0}, {[1] = 1, [2] = 5, [3] = 6}, 7, SMI_FORWARD, 5, 2, NO_RP, 0},
    {"ret: at node 1 of 3 (hp 2): out ReturnPath[1]", FN_RET, false, 3, 2, PERM, PERM,
     {0}, {[1] = 1, [2] = 5, [3] = 6}, 4, SMI_FORWARD, 1, 1, NO_RP, 0},
    {"ret: ReturnPath[hp-1] = 0: discard", FN_RET, false, 3, 2, PERM, PERM,
     {0}, {[1] = 0, [2] = 5}, 4, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: ReturnPath[hp-1] > NumPorts: discard", FN_RET, false, 3, 2, PERM, PERM,
     {0}, {[1] = 9, [2] = 5}, 4, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: intermediate hop at a CA: discard", FN_RET, true, 3, 2, PERM, PERM,
     {0}, {[1] = 1, [2] = 1}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: hp 1, pure DR, switch: to the SM, hp 0 (C14-13:3)", FN_RET, false, 2, 1, PERM,
     PERM, {0}, {[1] = 1, [2] = 5}, 3, SMI_TO_SM, 0, 0, NO_RP, 0},
    {"ret: hp 1, pure DR, CA: to the SM, hp 0", FN_RET, true, 2, 1, PERM, PERM,
     {0}, {[1] = 1, [2] = 5}, 1, SMI_TO_SM, 0, 0, NO_RP, 0},
    {"ret: hp 1 after a leading leg: LID-routed to DrSLID, hp 0", FN_RET, false, 2, 1,
     0x30, PERM, {0}, {[1] = 1, [2] = 5}, 4, SMI_LID_DRSLID, 0, 0, NO_RP, 0},
    {"ret: hp 1 after a leading leg at a CA: discard", FN_RET, true, 2, 1, 0x30, PERM,
     {0}, {[1] = 1, [2] = 5}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: hp 0: to the SM (C14-13:4)", FN_RET, false, 2, 0, PERM, PERM,
     {0}, {[1] = 1}, 3, SMI_TO_SM, 0, 0, NO_RP, 0},
    {"ret: back from a trailing leg: out ReturnPath[hc]", FN_RET, false, 2, 3, PERM, 0x40,
     {0}, {[1] = 1, [2] = 6}, 4, SMI_FORWARD, 6, 2, NO_RP, 0},
    {"ret: back from a trailing leg at a CA: discard", FN_RET, true, 2, 3, PERM, 0x40,
     {0}, {[1] = 1, [2] = 2}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: back from a trailing leg, ReturnPath[hc] = 0: discard", FN_RET, false, 2, 3,
     PERM, 0x40, {0}, {[1] = 1, [2] = 0}, 4, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"ret: hc 0, both legs LID-routed: on to DrSLID", FN_RET, false, 0, 1, 0x30, 0x40,
     {0}, {0}, 4, SMI_LID_DRSLID, 0, 0, NO_RP, 0},
    {"ret: hp > hc + 1: discard (C14-13:5)", FN_RET, false, 2, 4, PERM, PERM,
     {0}, {[1] = 1, [2] = 5}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},

    /* ---- the local SMA's response to a request that reached it ---- */
    {"resp: hc 3: out ReturnPath[3] = ingress port, hp 3", FN_RESP, false, 3, 4, PERM,
     PERM, {[1] = 1, [2] = 5, [3] = 7}, {[1] = 1, [2] = 5, [3] = 6}, 6, SMI_FORWARD, 6, 3,
     NO_RP, 0},
    {"resp: CA, hc 1: out ReturnPath[1]", FN_RESP, true, 1, 2, PERM, PERM,
     {[1] = 3}, {[1] = 2}, 2, SMI_FORWARD, 2, 1, NO_RP, 0},
    {"resp: hc 0, pure DR: to the local requester, hp 0", FN_RESP, false, 0, 1, PERM, PERM,
     {0}, {0}, 0, SMI_TO_SM, 0, 0, NO_RP, 0},
    {"resp: hc 0 after a leading leg: LID-routed to DrSLID", FN_RESP, false, 0, 1, 0x30,
     PERM, {0}, {0}, 2, SMI_LID_DRSLID, 0, 0, NO_RP, 0},
    {"resp: hc 1 after a leading leg: out ReturnPath[1]", FN_RESP, false, 1, 2, 0x30, PERM,
     {[1] = 6}, {[1] = 3}, 3, SMI_FORWARD, 3, 1, NO_RP, 0},
    {"resp: destination of a trailing leg: LID-routed to the source", FN_RESP, false, 2, 3,
     PERM, 0x40, {[1] = 1, [2] = 5}, {[1] = 4, [2] = 3}, 6, SMI_LID_SOURCE, 0, 3, NO_RP, 0},
    {"resp: CA at the end of a trailing leg: LID-routed to the source", FN_RESP, true, 1, 2,
     PERM, 0x40, {[1] = 5}, {[1] = 4}, 1, SMI_LID_SOURCE, 0, 2, NO_RP, 0},
    {"resp: hp != hc + 1: discard", FN_RESP, false, 2, 2, PERM, PERM,
     {[1] = 1, [2] = 5}, {[1] = 4, [2] = 3}, 3, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"resp: hc 64: discard", FN_RESP, false, 64, 65, PERM, PERM,
     {0}, {0}, 1, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
    {"resp: ReturnPath[hc] = 0: discard", FN_RESP, false, 2, 3, PERM, PERM,
     {[1] = 1, [2] = 5}, {[1] = 4, [2] = 0}, 3, SMI_DISCARD, 0, ANY_HP, NO_RP, 0},
};
/* clang-format on */

/* Build the SMP of a row as it arrives at (or was answered by) the node. */
static void dr_row_smp(const struct dr_row *row, uint8_t *mad)
{
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x55, row->hc, row->hp, NULL,
               row->drslid, row->drdlid);
    memcpy(mad + IPATH, row->ipath, sizeof(row->ipath));
    memcpy(mad + RPATH, row->rpath, sizeof(row->rpath));
    if (row->fn == FN_RET)
        mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
}

/* Run one row and check every expectation; fail_msg() names the row. */
static void dr_row_check(const struct dr_row *row)
{
    struct smi_node node = {.num_ports = row->ca ? CA_PORTS : SW_PORTS, .is_switch = !row->ca};
    uint8_t mad[PZT_MAD], before[PZT_MAD];
    unsigned port = UNTOUCHED;
    enum smi_action got;

    dr_row_smp(row, mad);
    memcpy(before, mad, sizeof(mad));
    switch (row->fn) {
    case FN_OUT:
        got = smi_dr_outgoing(mad, row->in_port, &node, &port);
        break;
    case FN_RET:
        got = smi_dr_returning(mad, row->in_port, &node, &port);
        break;
    default:
        got = smi_dr_respond(mad, &node, &port);
        break;
    }
    if (got != row->action)
        fail_msg("%s: action %s, expected %s", row->name, smi_action_name(got),
                 smi_action_name(row->action));
    if (row->action == SMI_FORWARD && port != row->out_port)
        fail_msg("%s: out port %u, expected %u", row->name, port, row->out_port);
    if (row->action != SMI_FORWARD && port != UNTOUCHED)
        fail_msg("%s: *port written (%u) without SMI_FORWARD", row->name, port);
    if (row->hp_after != ANY_HP &&
        mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F) != (unsigned)row->hp_after)
        fail_msg("%s: hp %u, expected %d", row->name, mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F),
                 row->hp_after);
    /* ReturnPath: only the one entry may change. */
    if (row->rp_index != RP_ANY) {
        for (int i = 0; i < 64; i++) {
            unsigned want = i == row->rp_index ? row->rp_value : before[RPATH + i];
            if (mad[RPATH + i] != want)
                fail_msg("%s: ReturnPath[%d] = %u, expected %u", row->name, i, mad[RPATH + i],
                         want);
        }
    }
    /* Never touched: InitialPath, hop count, DR LIDs, the MAD header and data. */
    if (memcmp(mad + IPATH, before + IPATH, 64) != 0)
        fail_msg("%s: InitialPath changed", row->name);
    if (memcmp(mad + 7, before + 7, RPATH - 7) != 0 || memcmp(mad, before, 4) != 0)
        fail_msg("%s: fields other than status/hop pointer/paths changed", row->name);
    /* The D bit: kept on receive, set on a response. */
    if (mad_get_field(mad, 0, IB_DRSMP_DIRECTION_F) != (row->fn != FN_OUT))
        fail_msg("%s: D bit %u", row->name, mad_get_field(mad, 0, IB_DRSMP_DIRECTION_F));
}

/* Every row of the table. */
static void test_dr_table(void **state)
{
    for (size_t i = 0; i < sizeof(dr_rows) / sizeof(dr_rows[0]); i++)
        dr_row_check(&dr_rows[i]);
}

/* smi_dr_receive() dispatches on the D bit. */
static void test_dr_receive_dispatch(void **state)
{
    struct smi_node sw = {.num_ports = SW_PORTS, .is_switch = true};
    uint8_t mad[PZT_MAD], path[64] = {0, 1, 5, 7};
    unsigned port = UNTOUCHED;

    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 1, 3, 1, path, PERM, PERM);
    assert_int_equal(smi_dr_receive(mad, 2, &sw, &port), SMI_FORWARD);
    assert_int_equal(port, 5);
    assert_int_equal(mad[RPATH + 1], 2);

    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 1, 3, 2, path, PERM, PERM);
    mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
    mad[RPATH + 1] = 4;
    assert_int_equal(smi_dr_receive(mad, 5, &sw, &port), SMI_FORWARD);
    assert_int_equal(port, 4);
    assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F), 1);
    assert_string_equal(smi_action_name(SMI_LID_SOURCE), "lid-to-source");
}

/* ---- SMPs walked through chains of SMAs ---- */

#define HOST 0 /* the requester: an SM host, a CA with one port */
#define MAX_NODES 4
#define MAX_CABLES 4

/* A cable between port pa of node a and port pb of node b. */
struct cable {
    int a;
    unsigned pa;
    int b;
    unsigned pb;
};

/* Switches 1..n in a line behind the host; node[HOST] is unused (NULL). */
struct fabric {
    struct pzt_node *node[MAX_NODES];
    struct cable cables[MAX_CABLES];
    unsigned num_cables;
};

/* A switch with its own GUID, so responses say who answered. */
static struct pzt_node *switch_new(uint64_t guid)
{
    struct board_identity id;

    board_mem_default_switch_identity(&id, guid, SW_PORTS);
    return pzt_node_new(&id);
}

/* GUID of switch i in the test fabrics. */
static uint64_t switch_guid(int i)
{
    return 0x0002c90000a00000ull + (uint64_t)i;
}

/* Build H:1 - S1:1, S1:5 - S2:2, S2:7 - S3:3 and train the links. */
static void fabric_line(struct fabric *f)
{
    static const struct cable line[] = {{HOST, 1, 1, 1}, {1, 5, 2, 2}, {2, 7, 3, 3}};

    memset(f, 0, sizeof(*f));
    for (int i = 1; i <= 3; i++) {
        f->node[i] = switch_new(switch_guid(i));
        assert_non_null(f->node[i]);
    }
    memcpy(f->cables, line, sizeof(line));
    f->num_cables = 3;
    for (unsigned c = 0; c < f->num_cables; c++) {
        if (f->cables[c].a != HOST)
            board_mem_set_connected(f->node[f->cables[c].a]->bm, f->cables[c].pa, true);
        board_mem_set_connected(f->node[f->cables[c].b]->bm, f->cables[c].pb, true);
    }
}

/* Free the switches of a fabric. */
static void fabric_free(struct fabric *f)
{
    for (int i = 0; i < MAX_NODES; i++)
        pzt_node_free(f->node[i]);
}

/* The far end of (node, port); fails the test if nothing is cabled there. */
static void fabric_peer(const struct fabric *f, int node, unsigned port, int *pnode,
                        unsigned *pport)
{
    for (unsigned c = 0; c < f->num_cables; c++) {
        const struct cable *k = &f->cables[c];
        if (k->a == node && k->pa == port) {
            *pnode = k->b;
            *pport = k->pb;
            return;
        }
        if (k->b == node && k->pb == port) {
            *pnode = k->a;
            *pport = k->pa;
            return;
        }
    }
    *pnode = -1; /* nothing there */
    *pport = 0;
    fail_msg("node %d port %u is not cabled", node, port);
}

/* Feed mad to node's SMA as received on in_port (DR: permissive LRH LIDs). */
static enum mad_verdict node_rx(struct pzt_node *n, unsigned in_port, bool lid_routed,
                                uint16_t slid, uint16_t dlid, const uint8_t *mad,
                                struct mad_addr *out_addr, uint8_t *out)
{
    struct mad_addr in = {0};

    in.port = (uint8_t)in_port;
    in.lid_routed = lid_routed;
    in.slid = slid;
    in.dlid = dlid;
    return sma_process(n->sma, &in, mad, PZT_MAD, out_addr, out);
}

/*
 * The directed-route SMP mad leaves node at port: its peer must be node want,
 * which takes it on its ingress port and must send it on (out_addr, out).
 */
static void dr_hop(const struct fabric *f, int node, unsigned port, int want, const uint8_t *mad,
                   struct mad_addr *out_addr, uint8_t *out)
{
    unsigned in_port;
    int peer;

    fabric_peer(f, node, port, &peer, &in_port);
    assert_int_equal(peer, want);
    assert_int_equal(node_rx(f->node[want], in_port, false, PERM, PERM, mad, out_addr, out),
                     MAD_SEND);
}

/* One delivery of a walk: the node and the port the SMP entered it on. */
struct visit {
    int node;
    unsigned port;
};

/*
 * Deliver mad (directed-route hops only) from (node, in_port) on, following
 * the cabling, until it reaches the host.  Records the visits; leaves the
 * SMP as the host receives it in mad.  Returns the number of visits.
 */
static unsigned walk_dr(struct fabric *f, int node, unsigned in_port, uint8_t *mad,
                        struct visit *visits, unsigned max)
{
    unsigned n = 0;

    while (node != HOST) {
        struct mad_addr out_addr;
        uint8_t out[PZT_MAD];

        assert_true(n < max);
        visits[n].node = node;
        visits[n].port = in_port;
        n++;
        assert_int_equal(node_rx(f->node[node], in_port, false, PERM, PERM, mad, &out_addr, out),
                         MAD_SEND);
        assert_false(out_addr.lid_routed);
        assert_int_equal(out_addr.slid, PERM);
        assert_int_equal(out_addr.dlid, PERM);
        memcpy(mad, out, PZT_MAD);
        fabric_peer(f, node, out_addr.port, &node, &in_port);
    }
    return n;
}

/* The host's SMI takes a returning SMP that arrived on its port 1. */
static void host_receive(uint8_t *mad)
{
    struct smi_node host = {.num_ports = 1, .is_switch = false};
    unsigned port = UNTOUCHED;

    assert_int_equal(smi_dr_receive(mad, 1, &host, &port), SMI_TO_SM);
    assert_int_equal(port, UNTOUCHED);
    assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F), 0);
}

/* Check a NodeInfo GetResp from switch i entered on local_port. */
static void check_node_info_resp(const uint8_t *mad, int i, unsigned local_port, uint64_t tid)
{
    const uint8_t *d = mad + 64;

    PZT_EXPECT_FIELDS(mad, {IB_MAD_MGMTCLASS_F, IB_SMI_DIRECT_CLASS},
                      {IB_MAD_METHOD_F, IB_MAD_METHOD_GET}, {IB_MAD_RESPONSE_F, 1},
                      {IB_DRSMP_DIRECTION_F, 1}, {IB_DRSMP_STATUS_F, 0},
                      {IB_MAD_ATTRID_F, IB_ATTR_NODE_INFO});
    assert_true(mad_get_field64((void *)mad, 0, IB_MAD_TRID_F) == tid);
    assert_int_equal(mad_get_field((void *)d, 0, IB_NODE_TYPE_F), 2);
    assert_true(mad_get_field64((void *)d, 0, IB_NODE_GUID_F) == switch_guid(i));
    assert_int_equal(mad_get_field((void *)d, 0, IB_NODE_LOCAL_PORT_F), local_port);
}

/* Pure DR Get NodeInfo over 3 hops out and back through 3 SMAs. */
static void test_e2e_pure_dr_3_hops(void **state)
{
    static const struct visit want[] = {{1, 1}, {2, 2}, {3, 3}, {2, 7}, {1, 5}};
    uint8_t mad[PZT_MAD], path[64] = {0, 1, 5, 7};
    struct visit visits[8];
    struct sma_stats st;
    struct fabric f;
    unsigned n;

    fabric_line(&f);
    /* As the host sent it: its own send processing made hp 1 (C14-9:1). */
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x77, 3, 1, path, PERM, PERM);
    n = walk_dr(&f, 1, 1, mad, visits, 8);
    assert_int_equal(n, 5);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(visits[i].node, want[i].node);
        assert_int_equal(visits[i].port, want[i].port);
    }
    /* As it reaches the host: hp 1, the whole return path recorded. */
    assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_HOPPTR_F), 1);
    assert_int_equal(mad_get_field(mad, 0, IB_DRSMP_HOPCNT_F), 3);
    assert_int_equal(mad[RPATH + 1], 1);
    assert_int_equal(mad[RPATH + 2], 2);
    assert_int_equal(mad[RPATH + 3], 3);
    assert_memory_equal(mad + IPATH, path, 64);
    check_node_info_resp(mad, 3, 3, 0x77);
    host_receive(mad);

    sma_get_stats(f.node[1]->sma, &st);
    assert_int_equal(st.dr_forwarded, 2);
    assert_int_equal(st.responses_sent, 0);
    sma_get_stats(f.node[3]->sma, &st);
    assert_int_equal(st.responses_sent, 1);
    assert_int_equal(st.dr_forwarded, 0);
    fabric_free(&f);
}

/* DR Get NodeInfo with hc 1 to S1, and with hc 0 from S2's own management stack. */
static void test_e2e_short_paths(void **state)
{
    uint8_t mad[PZT_MAD], path[64] = {0, 1};
    struct mad_addr out_addr;
    uint8_t out[PZT_MAD];
    struct visit visits[4];
    struct fabric f;

    fabric_line(&f);
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x78, 1, 1, path, PERM, PERM);
    assert_int_equal(walk_dr(&f, 1, 1, mad, visits, 4), 1);
    check_node_info_resp(mad, 1, 1, 0x78);
    host_receive(mad);

    /* hc 0 from the management stack (port 0): the answer goes back out port 0. */
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x79, 0, 0, NULL, PERM, PERM);
    assert_int_equal(node_rx(f.node[2], 0, false, PERM, PERM, mad, &out_addr, out), MAD_SEND);
    assert_false(out_addr.lid_routed);
    assert_int_equal(out_addr.port, 0);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 0);
    check_node_info_resp(out, 2, 0, 0x79);
    fabric_free(&f);
}

/*
 * Hybrid, leading LID-routed leg: the requester (LID 0x30) reaches S1
 * (LID 0x10) LID-routed, the DR part goes S1 -> S2; the response comes back
 * S2 -> S1 and S1 sends it LID-routed to DrSLID.
 */
static void test_e2e_leading_lid_leg(void **state)
{
    uint8_t mad[PZT_MAD], out[PZT_MAD], path[64] = {0, 5};
    struct mad_addr out_addr;
    struct sma_stats st;
    struct fabric f;

    fabric_line(&f);
    pzt_assign_lid(f.node[1], 0x10, 0x01, 0);
    pzt_assign_lid(f.node[2], 0x12, 0x01, 0);
    /* As libibmad sends it (hp 0), arriving LID-routed on S1 port 1. */
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x80, 1, 0, path, 0x30, PERM);
    assert_int_equal(node_rx(f.node[1], 1, true, 0x30, 0x10, mad, &out_addr, out), MAD_SEND);
    assert_false(out_addr.lid_routed);
    assert_int_equal(out_addr.port, 5);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 1);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_DIRECTION_F), 0);
    memcpy(mad, out, PZT_MAD);

    /* S2 answers out of its ingress port. */
    dr_hop(&f, 1, 5, 2, mad, &out_addr, out);
    assert_false(out_addr.lid_routed);
    assert_int_equal(out_addr.port, 2);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 1);
    assert_int_equal(out[RPATH + 1], 2);
    check_node_info_resp(out, 2, 2, 0x80);
    memcpy(mad, out, PZT_MAD);

    /* Back at S1: hp 0, LID-routed to DrSLID from S1's LID. */
    dr_hop(&f, 2, 2, 1, mad, &out_addr, out);
    assert_true(out_addr.lid_routed);
    assert_int_equal(out_addr.dlid, 0x30);
    assert_int_equal(out_addr.slid, 0x10);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 0);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_DRSLID_F), 0x30);
    check_node_info_resp(out, 2, 2, 0x80);
    sma_get_stats(f.node[1]->sma, &st);
    assert_int_equal(st.dr_forwarded, 2);
    fabric_free(&f);
}

/*
 * Hybrid, trailing LID-routed leg: the host goes DR to S1 (hc 1), S1 sends
 * it LID-routed to DrDLID = S3 (LID 0x22); S3 answers LID-routed to S1,
 * which resumes the return path to the host.
 */
static void test_e2e_trailing_lid_leg(void **state)
{
    uint8_t mad[PZT_MAD], out[PZT_MAD], path[64] = {0, 1};
    struct mad_addr out_addr;
    struct fabric f;

    fabric_line(&f);
    pzt_assign_lid(f.node[1], 0x10, 0x01, 0);
    pzt_assign_lid(f.node[3], 0x22, 0x01, 0);
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x81, 1, 1, path, PERM, 0x22);
    assert_int_equal(node_rx(f.node[1], 1, false, PERM, PERM, mad, &out_addr, out), MAD_SEND);
    assert_true(out_addr.lid_routed);
    assert_int_equal(out_addr.dlid, 0x22);
    assert_int_equal(out_addr.slid, 0x10);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 2);
    assert_int_equal(out[RPATH + 1], 1);
    memcpy(mad, out, PZT_MAD);

    /* The fabric LID-routes it to S3, which it enters on port 3. */
    assert_int_equal(node_rx(f.node[3], 3, true, 0x10, 0x22, mad, &out_addr, out), MAD_SEND);
    assert_true(out_addr.lid_routed);
    assert_int_equal(out_addr.dlid, 0x10);
    assert_int_equal(out_addr.slid, 0x22);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 2);
    check_node_info_resp(out, 3, 3, 0x81);
    memcpy(mad, out, PZT_MAD);

    /* Back at S1 (entering on port 5): out ReturnPath[1] toward the host. */
    assert_int_equal(node_rx(f.node[1], 5, true, 0x22, 0x10, mad, &out_addr, out), MAD_SEND);
    assert_false(out_addr.lid_routed);
    assert_int_equal(out_addr.port, 1);
    assert_int_equal(mad_get_field(out, 0, IB_DRSMP_HOPPTR_F), 1);
    check_node_info_resp(out, 3, 3, 0x81);
    host_receive(out);
    fabric_free(&f);
}

/* Directed-route hops never leave through a port whose link is not up. */
static void test_forward_needs_link(void **state)
{
    uint8_t mad[PZT_MAD], out[PZT_MAD], path[64] = {0, 1, 6};
    struct mad_addr out_addr;
    struct sma_stats before, after;
    struct fabric f;

    fabric_line(&f);
    sma_get_stats(f.node[1]->sma, &before);
    /* S1 port 6 is not cabled. */
    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x82, 2, 1, path, PERM, PERM);
    assert_int_equal(node_rx(f.node[1], 1, false, PERM, PERM, mad, &out_addr, out), MAD_DROP);
    sma_get_stats(f.node[1]->sma, &after);
    assert_int_equal(after.dropped, before.dropped + 1);
    assert_int_equal(after.dr_forwarded, before.dr_forwarded);
    /* Cable it: now it goes (PortState Init is enough). */
    board_mem_set_connected(f.node[1]->bm, 6, true);
    assert_int_equal(node_rx(f.node[1], 1, false, PERM, PERM, mad, &out_addr, out), MAD_SEND);
    assert_int_equal(out_addr.port, 6);
    fabric_free(&f);
}

/* A returning SMP that reaches its originator is not sent anywhere. */
static void test_returning_to_sm_dropped(void **state)
{
    struct pzt_node *n = switch_new(switch_guid(9));
    uint8_t mad[PZT_MAD];
    struct pzt_result r;

    pzt_dr_smp(mad, IB_MAD_METHOD_GET, IB_ATTR_NODE_INFO, 0, 0, 0x83, 2, 1, NULL, PERM, PERM);
    mad_set_field(mad, 0, IB_DRSMP_DIRECTION_F, 1);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    pzt_process(n, 3, PERM, mad, &r);
    assert_int_equal(r.verdict, MAD_DROP);
    pzt_node_free(n);
}

PZT_MAIN(test_dr_table, test_dr_receive_dispatch, test_e2e_pure_dr_3_hops, test_e2e_short_paths,
         test_e2e_leading_lid_leg, test_e2e_trailing_lid_leg, test_forward_needs_link,
         test_returning_to_sm_dropped)
