/*
 * pzt.c - test support for SMA tests.
 */
#include "pzt.h"

#include "mad_header.h"

#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

struct pzt_node *pzt_node_new(const struct board_identity *id)
{
    struct pzt_node *n = calloc(1, sizeof(*n));

    if (!n)
        return NULL;
    n->id = *id;
    n->bm = board_mem_create(&n->id);
    if (!n->bm) {
        free(n);
        return NULL;
    }
    board_mem_use_manual_clock(n->bm, 1000000000ull);
    n->board = board_mem_board(n->bm);
    n->sma = sma_create(n->board);
    n->tid = 0x1000;
    if (!n->sma) {
        board_mem_destroy(n->bm);
        free(n);
        return NULL;
    }
    return n;
}

struct pzt_node *pzt_switch_new(unsigned num_ports)
{
    struct board_identity id;

    board_mem_default_switch_identity(&id, 0x0002c90000001000ull, num_ports);
    return pzt_node_new(&id);
}

struct pzt_node *pzt_ca_new(unsigned num_ports)
{
    struct board_identity id;

    board_mem_default_ca_identity(&id, 0x0002c90000002000ull, num_ports);
    return pzt_node_new(&id);
}

void pzt_node_free(struct pzt_node *n)
{
    if (!n)
        return;
    sma_destroy(n->sma);
    board_mem_destroy(n->bm);
    free(n);
}

/* Common header fields. */
static void pzt_header(uint8_t *mad, unsigned mgmt_class, unsigned method, unsigned attr_id,
                       uint32_t attr_mod, uint64_t mkey, uint64_t tid)
{
    mad_header_init(mad, mgmt_class, 1, method, tid, attr_id, attr_mod);
    mad_set_field64(mad, 0, IB_MAD_MKEY_F, mkey);
}

void pzt_lid_smp(uint8_t mad[PZT_MAD], unsigned method, unsigned attr_id, uint32_t attr_mod,
                 uint64_t mkey, uint64_t tid)
{
    pzt_header(mad, IB_SMI_CLASS, method, attr_id, attr_mod, mkey, tid);
}

void pzt_dr_smp(uint8_t mad[PZT_MAD], unsigned method, unsigned attr_id, uint32_t attr_mod,
                uint64_t mkey, uint64_t tid, unsigned hc, unsigned hp, const uint8_t *path,
                uint16_t drslid, uint16_t drdlid)
{
    pzt_header(mad, IB_SMI_DIRECT_CLASS, method, attr_id, attr_mod, mkey, tid);
    mad_dr_init(mad, hc, hp, drslid, drdlid, path);
}

void pzt_process(struct pzt_node *n, unsigned in_port, uint16_t slid, const uint8_t *mad,
                 struct pzt_result *r)
{
    struct mad_addr in = {0};

    memset(r, 0, sizeof(*r));
    in.port = (uint8_t)in_port;
    in.slid = slid;
    in.dlid = sma_lid(n->sma, in_port);
    in.lid_routed = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_CLASS;
    r->verdict = sma_process(n->sma, &in, mad, PZT_MAD, &r->addr, r->mad);
    r->data = r->mad + 64;
    if (r->verdict == MAD_SEND) {
        if (mad_get_field(r->mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS)
            r->status = mad_get_field(r->mad, 0, IB_DRSMP_STATUS_F);
        else
            r->status = mad_get_field(r->mad, 0, IB_MAD_STATUS_F);
    }
}

int pzt_get_key(struct pzt_node *n, unsigned in_port, uint64_t mkey, unsigned attr_id,
                uint32_t attr_mod, uint8_t *resp)
{
    uint8_t mad[PZT_MAD];
    struct pzt_result r;

    pzt_lid_smp(mad, IB_MAD_METHOD_GET, attr_id, attr_mod, mkey, n->tid++);
    pzt_process(n, in_port, 1, mad, &r);
    if (r.verdict != MAD_SEND)
        return -1;
    if (resp)
        memcpy(resp, r.data, PZT_DATA);
    return (int)r.status;
}

int pzt_set_key(struct pzt_node *n, unsigned in_port, uint64_t mkey, unsigned attr_id,
                uint32_t attr_mod, const uint8_t *data, uint8_t *resp)
{
    uint8_t mad[PZT_MAD];
    struct pzt_result r;

    pzt_lid_smp(mad, IB_MAD_METHOD_SET, attr_id, attr_mod, mkey, n->tid++);
    if (data)
        memcpy(mad + 64, data, PZT_DATA);
    pzt_process(n, in_port, 1, mad, &r);
    if (r.verdict != MAD_SEND)
        return -1;
    if (resp)
        memcpy(resp, r.data, PZT_DATA);
    return (int)r.status;
}

int pzt_get(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod, uint8_t *resp)
{
    return pzt_get_key(n, 1, 0, attr_id, attr_mod, resp);
}

int pzt_set(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod, const uint8_t *data,
            uint8_t *resp)
{
    return pzt_set_key(n, 1, 0, attr_id, attr_mod, data, resp);
}

void pzt_connect_all(struct pzt_node *n)
{
    for (unsigned p = 1; p <= n->id.num_ports; p++)
        board_mem_set_connected(n->bm, p, true);
}

void pzt_assign_lid(struct pzt_node *n, uint16_t lid, uint16_t sm_lid, uint8_t subnet_timeout)
{
    uint8_t pi[PZT_DATA];
    unsigned port = n->id.node_type == BOARD_NODE_SWITCH ? 0 : 1;

    pzt_get(n, IB_ATTR_PORT_INFO, port, pi);
    mad_set_field(pi, 0, IB_PORT_LID_F, lid);
    mad_set_field(pi, 0, IB_PORT_SMLID_F, sm_lid);
    mad_set_field(pi, 0, IB_PORT_SUBN_TIMEOUT_F, subnet_timeout);
    mad_set_field(pi, 0, IB_PORT_STATE_F, 0);
    mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, 0);
    pzt_set(n, IB_ATTR_PORT_INFO, port, pi, NULL);
}

unsigned pzt_poll_all(struct pzt_node *n, struct pzt_result *last)
{
    struct pzt_result r;
    unsigned count = 0;

    memset(&r, 0, sizeof(r));
    while (count < 1000) {
        r.verdict = sma_poll(n->sma, &r.addr, r.mad);
        if (r.verdict != MAD_SEND)
            break;
        count++;
        r.data = r.mad + 64;
        if (last)
            *last = r;
    }
    if (last)
        last->data = last->mad + 64;
    return count;
}
