/*
 * sma_tables.c - P_KeyTable, SLtoVLMappingTable and VLArbitrationTable.
 *
 * libibmad describes these tables only as whole blocks (or not at all, for
 * P_Keys), so their 16-bit keys, 4-bit VLs and VL/weight pairs are packed and
 * unpacked here.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"

#define SMA_SL2VL_ALL_OUT 0x10000u
#define SMA_SL2VL_ALL_IN 0x20000u

/* Whether port is a port of this switch that has the given table at port 0. */
static bool sma_switch_port_ok(const struct sma *sma, unsigned port)
{
    return port <= sma->num_ports;
}

/* The port a per-port table SMP selects: switch from the modifier, CA ingress. */
static unsigned sma_table_port(const struct sma_req *req, bool is_switch, unsigned mod_port)
{
    return is_switch ? mod_port : req->in_port;
}

/* P_KeyTable: resolve port and block; false if invalid. */
static bool sma_pkey_target(const struct sma *sma, const struct sma_req *req, unsigned *port,
                            unsigned *block)
{
    unsigned cap;

    *block = req->attr_mod & 0xFFFF;
    *port = sma_table_port(req, sma->is_switch, req->attr_mod >> 16);
    if (sma->is_switch ? !sma_switch_port_ok(sma, *port) : (*port < 1 || *port > sma->num_ports))
        return false;
    cap = board_pkey_cap(sma->board, *port);
    return *block * BOARD_PKEY_BLOCK < cap;
}

/* P_KeyTable Get: 32 P_Keys of one block. */
uint16_t sma_pkey_get(struct sma *sma, struct sma_req *req)
{
    uint16_t keys[BOARD_PKEY_BLOCK];
    unsigned port, block;

    if (!sma_pkey_target(sma, req, &port, &block) || board_pkey_get(sma->board, port, block, keys))
        return MAD_STATUS_BAD_FIELD;
    be16_put_array(req->out, keys, BOARD_PKEY_BLOCK);
    return MAD_STATUS_OK;
}

/* P_KeyTable Set. */
uint16_t sma_pkey_set(struct sma *sma, struct sma_req *req)
{
    uint16_t keys[BOARD_PKEY_BLOCK];
    unsigned port, block;

    if (!sma_pkey_target(sma, req, &port, &block))
        return MAD_STATUS_BAD_FIELD;
    be16_get_array(req->in, keys, BOARD_PKEY_BLOCK);
    if (board_pkey_set(sma->board, port, block, keys))
        return MAD_STATUS_BAD_FIELD;
    return sma_pkey_get(sma, req);
}

/* Whether out is a valid SL2VL output port (port 0 only with ESP0). */
static bool sma_sl2vl_out_ok(const struct sma *sma, unsigned out)
{
    return out <= sma->num_ports && (out > 0 || sma->board->id->enhanced_port0);
}

/* Unpack 16 VL nibbles (SL0 in the high nibble of byte 0). */
static void sma_sl2vl_unpack(const uint8_t *d, uint8_t vl[16])
{
    for (unsigned sl = 0; sl < 16; sl++)
        vl[sl] = (uint8_t)((d[sl / 2] >> (sl % 2 ? 0 : 4)) & 0xF);
}

/* Pack 16 VLs into 8 bytes. */
static void sma_sl2vl_pack(const uint8_t vl[16], uint8_t *d)
{
    for (unsigned i = 0; i < 8; i++)
        d[i] = (uint8_t)((vl[2 * i] & 0xF) << 4 | (vl[2 * i + 1] & 0xF));
}

/* SLtoVLMappingTable Get: modifier (in << 8) | out on a switch. */
uint16_t sma_sl2vl_get(struct sma *sma, struct sma_req *req)
{
    unsigned in = (req->attr_mod >> 8) & 0xFF, out = req->attr_mod & 0xFF;
    uint8_t vl[16];

    if (!sma->is_switch) {
        in = out = req->in_port;
    } else if ((req->attr_mod & ~0xFFFFu) || in > sma->num_ports || !sma_sl2vl_out_ok(sma, out)) {
        return MAD_STATUS_BAD_FIELD;
    }
    if (board_sl2vl_get(sma->board, in, out, vl))
        return MAD_STATUS_BAD_FIELD;
    sma_sl2vl_pack(vl, req->out);
    return MAD_STATUS_OK;
}

/* Write one (in, out) table; returns 0 or a negative errno. */
static int sma_sl2vl_write(struct sma *sma, unsigned in, unsigned out, const uint8_t *vl)
{
    return board_sl2vl_set(sma->board, in, out, vl);
}

/* SLtoVLMappingTable Set, including the optimized all-ports modifiers. */
uint16_t sma_sl2vl_set(struct sma *sma, struct sma_req *req)
{
    uint32_t mod = req->attr_mod;
    bool all_out = mod & SMA_SL2VL_ALL_OUT, all_in = mod & SMA_SL2VL_ALL_IN;
    unsigned in = (mod >> 8) & 0xFF, out = mod & 0xFF;
    uint8_t vl[16];

    sma_sl2vl_unpack(req->in, vl);
    if (!sma->is_switch) {
        if (sma_sl2vl_write(sma, req->in_port, req->in_port, vl))
            return MAD_STATUS_BAD_FIELD;
        return sma_sl2vl_get(sma, req);
    }
    if ((mod >> 18) || ((all_out || all_in) && !sma->board->id->optimized_sl2vl) ||
        (!all_in && in > sma->num_ports) || (!all_out && !sma_sl2vl_out_ok(sma, out)))
        return MAD_STATUS_BAD_FIELD;
    for (unsigned i = 0; i <= sma->num_ports; i++) {
        if (!all_in && i != in)
            continue;
        for (unsigned o = 0; o <= sma->num_ports; o++) {
            if (all_out ? !sma_sl2vl_out_ok(sma, o) : o != out)
                continue;
            if (sma_sl2vl_write(sma, i, o, vl))
                return MAD_STATUS_BAD_FIELD;
        }
    }
    if (all_out || all_in) {
        /* The response of an all-ports Set carries the table written. */
        sma_sl2vl_pack(vl, req->out);
        return MAD_STATUS_OK;
    }
    return sma_sl2vl_get(sma, req);
}

/* VLArbitrationTable: resolve port and block (0-3); false if invalid. */
static bool sma_vlarb_target(const struct sma *sma, const struct sma_req *req, unsigned *port,
                             unsigned *block)
{
    const struct board_identity *id = sma->board->id;
    unsigned b = req->attr_mod >> 16;
    unsigned cap = b <= 2 ? id->vlarb_low_cap : id->vlarb_high_cap;

    *port = sma_table_port(req, sma->is_switch, req->attr_mod & 0xFFFF);
    if (b < 1 || b > 4 || cap <= (b % 2 ? 0u : 32u))
        return false;
    *block = b - 1;
    if (!sma->is_switch)
        return *port >= 1 && *port <= sma->num_ports;
    return *port <= sma->num_ports && (*port > 0 || id->enhanced_port0);
}

/* VLArbitrationTable Get: 32 (VL, weight) entries. */
uint16_t sma_vlarb_get(struct sma *sma, struct sma_req *req)
{
    unsigned port, block;

    if (!sma_vlarb_target(sma, req, &port, &block) ||
        board_vlarb_get(sma->board, port, block, req->out))
        return MAD_STATUS_BAD_FIELD;
    return MAD_STATUS_OK;
}

/* VLArbitrationTable Set; the reserved high nibble of each VL byte is cleared. */
uint16_t sma_vlarb_set(struct sma *sma, struct sma_req *req)
{
    uint8_t entries[2 * BOARD_VLARB_BLOCK];
    unsigned port, block;

    if (!sma_vlarb_target(sma, req, &port, &block))
        return MAD_STATUS_BAD_FIELD;
    memcpy(entries, req->in, sizeof(entries));
    for (unsigned i = 0; i < BOARD_VLARB_BLOCK; i++)
        entries[2 * i] &= 0x0F;
    if (board_vlarb_set(sma->board, port, block, entries))
        return MAD_STATUS_BAD_FIELD;
    return sma_vlarb_get(sma, req);
}
