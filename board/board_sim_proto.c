/*
 * board_sim_proto.c - board/sim messages: encoding, decoding, and the server
 * side that executes a request on a board.
 */
#include "board_sim_proto.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "mad.h"

/* Identity layout in data[] (byte offsets). */
enum {
    ID_NODE_TYPE = 0,
    ID_NUM_PORTS,
    ID_ESP0,
    ID_OPT_SL2VL,
    ID_ENF_CAPS,
    ID_VL_CAP,
    ID_MTU_CAP,
    ID_VLARB_HIGH,
    ID_VLARB_LOW,
    ID_WIDTH,
    ID_SPEED,
    ID_SPEED_EXT,
    ID_GUID_CAP,
    ID_COUNTER_BITS,
    ID_NODE_GUID = 16,
    ID_SYS_GUID = 24,
    ID_PORT_GUID = 32,
    ID_VENDOR = 40,
    ID_DEVICE = 44,
    ID_REVISION = 48,
    ID_LFT_CAP = 52,
    ID_MFT_CAP = 54,
    ID_PART_CAP = 56,
    ID_PART_ENF_CAP = 58,
    ID_NODE_DESC = 64,
};

void board_sim_msg_request(struct board_sim_msg *m, uint32_t seq, enum board_sim_op op, uint32_t a,
                           uint32_t b, uint32_t c)
{
    memset(m, 0, sizeof(*m));
    m->magic = htonl(BOARD_SIM_MAGIC);
    m->seq = htonl(seq);
    m->op = htons((uint16_t)op);
    m->a = htonl(a);
    m->b = htonl(b);
    m->c = htonl(c);
}

int board_sim_msg_decode(const void *buf, size_t len, struct board_sim_msg *m)
{
    if (len != sizeof(*m))
        return -1;
    memcpy(m, buf, sizeof(*m));
    m->magic = ntohl(m->magic);
    m->seq = ntohl(m->seq);
    m->op = ntohs(m->op);
    m->status = (int32_t)ntohl((uint32_t)m->status);
    m->a = ntohl(m->a);
    m->b = ntohl(m->b);
    m->c = ntohl(m->c);
    if (m->magic != BOARD_SIM_MAGIC || m->op == 0 || m->op >= BOARD_SIM_OP_MAX)
        return -1;
    return 0;
}

void board_sim_pack_status(uint8_t *d, const struct board_port_status *st)
{
    d[0] = st->phys_state;
    d[1] = st->port_state;
    d[2] = st->width_active;
    d[3] = st->speed_active;
    d[4] = st->speed_ext_active;
    be_put(d + 5, st->link_down_events, 4);
}

void board_sim_unpack_status(const uint8_t *d, struct board_port_status *st)
{
    st->phys_state = d[0];
    st->port_state = d[1];
    st->width_active = d[2];
    st->speed_active = d[3];
    st->speed_ext_active = d[4];
    st->link_down_events = (uint32_t)be_get(d + 5, 4);
}

void board_sim_pack_config(uint8_t *d, const struct board_port_config *cfg)
{
    d[0] = cfg->width_enabled;
    d[1] = cfg->speed_enabled;
    d[2] = cfg->speed_ext_enabled;
    d[3] = cfg->link_down_default;
    d[4] = cfg->neighbor_mtu;
    d[5] = cfg->oper_vls;
    d[6] = cfg->vl_high_limit;
    d[7] = cfg->hoq_life;
    d[8] = cfg->vl_stall_count;
    d[9] = (uint8_t)(cfg->part_enf_inbound | cfg->part_enf_outbound << 1 |
                     cfg->filter_raw_inbound << 2 | cfg->filter_raw_outbound << 3);
}

void board_sim_unpack_config(const uint8_t *d, struct board_port_config *cfg)
{
    cfg->width_enabled = d[0];
    cfg->speed_enabled = d[1];
    cfg->speed_ext_enabled = d[2];
    cfg->link_down_default = d[3];
    cfg->neighbor_mtu = d[4];
    cfg->oper_vls = d[5];
    cfg->vl_high_limit = d[6];
    cfg->hoq_life = d[7];
    cfg->vl_stall_count = d[8];
    cfg->part_enf_inbound = d[9] & 1;
    cfg->part_enf_outbound = d[9] & 2;
    cfg->filter_raw_inbound = d[9] & 4;
    cfg->filter_raw_outbound = d[9] & 8;
}

/* Counters travel as an array of big-endian 64-bit values in field order. */
#define BOARD_SIM_NCOUNTERS (sizeof(struct board_port_counters) / sizeof(uint64_t))
_Static_assert(sizeof(struct board_port_counters) % sizeof(uint64_t) == 0,
               "counters are 64-bit values only");
_Static_assert(sizeof(struct board_port_counters) <= BOARD_SIM_DATA, "counters fit a message");

void board_sim_pack_counters(uint8_t *d, const struct board_port_counters *c)
{
    uint64_t v[BOARD_SIM_NCOUNTERS];

    memcpy(v, c, sizeof(v));
    for (size_t i = 0; i < BOARD_SIM_NCOUNTERS; i++)
        be_put(d + 8 * i, v[i], 8);
}

void board_sim_unpack_counters(const uint8_t *d, struct board_port_counters *c)
{
    uint64_t v[BOARD_SIM_NCOUNTERS];

    for (size_t i = 0; i < BOARD_SIM_NCOUNTERS; i++)
        v[i] = be_get(d + 8 * i, 8);
    memcpy(c, v, sizeof(v));
}

void board_sim_pack_identity(uint8_t *d, const struct board_identity *id)
{
    memset(d, 0, 128);
    d[ID_NODE_TYPE] = (uint8_t)id->node_type;
    d[ID_NUM_PORTS] = id->num_ports;
    d[ID_ESP0] = id->enhanced_port0;
    d[ID_OPT_SL2VL] = id->optimized_sl2vl;
    d[ID_ENF_CAPS] = id->enforcement_caps;
    d[ID_VL_CAP] = id->vl_cap;
    d[ID_MTU_CAP] = id->mtu_cap;
    d[ID_VLARB_HIGH] = id->vlarb_high_cap;
    d[ID_VLARB_LOW] = id->vlarb_low_cap;
    d[ID_WIDTH] = id->width_supported;
    d[ID_SPEED] = id->speed_supported;
    d[ID_SPEED_EXT] = id->speed_ext_supported;
    d[ID_GUID_CAP] = id->guid_cap;
    d[ID_COUNTER_BITS] = id->counter_bits;
    be_put(d + ID_NODE_GUID, id->node_guid, 8);
    be_put(d + ID_SYS_GUID, id->system_image_guid, 8);
    be_put(d + ID_PORT_GUID, id->port_guid[0], 8);
    be_put(d + ID_VENDOR, id->vendor_id, 4);
    be_put(d + ID_DEVICE, id->device_id, 2);
    be_put(d + ID_REVISION, id->revision, 4);
    be_put(d + ID_LFT_CAP, id->lft_cap, 2);
    be_put(d + ID_MFT_CAP, id->mft_cap, 2);
    be_put(d + ID_PART_CAP, id->partition_cap, 2);
    be_put(d + ID_PART_ENF_CAP, id->partition_enforcement_cap, 2);
    memcpy(d + ID_NODE_DESC, id->node_desc, sizeof(id->node_desc));
}

int board_sim_unpack_identity(const uint8_t *d, struct board_identity *id)
{
    memset(id, 0, sizeof(*id));
    id->node_type = (enum board_node_type)d[ID_NODE_TYPE];
    id->num_ports = d[ID_NUM_PORTS];
    if (id->node_type != BOARD_NODE_SWITCH || id->num_ports == 0 || id->num_ports > BOARD_MAX_PORTS)
        return -1; /* board/sim serves switches */
    id->enhanced_port0 = d[ID_ESP0];
    id->optimized_sl2vl = d[ID_OPT_SL2VL];
    id->enforcement_caps = d[ID_ENF_CAPS];
    id->vl_cap = d[ID_VL_CAP];
    id->mtu_cap = d[ID_MTU_CAP];
    id->vlarb_high_cap = d[ID_VLARB_HIGH];
    id->vlarb_low_cap = d[ID_VLARB_LOW];
    id->width_supported = d[ID_WIDTH];
    id->speed_supported = d[ID_SPEED];
    id->speed_ext_supported = d[ID_SPEED_EXT];
    id->guid_cap = d[ID_GUID_CAP];
    id->counter_bits = d[ID_COUNTER_BITS];
    id->node_guid = be_get(d + ID_NODE_GUID, 8);
    id->system_image_guid = be_get(d + ID_SYS_GUID, 8);
    id->port_guid[0] = be_get(d + ID_PORT_GUID, 8);
    id->vendor_id = (uint32_t)be_get(d + ID_VENDOR, 4);
    id->device_id = (uint16_t)be_get(d + ID_DEVICE, 2);
    id->revision = (uint32_t)be_get(d + ID_REVISION, 4);
    id->lft_cap = (uint16_t)be_get(d + ID_LFT_CAP, 2);
    id->mft_cap = (uint16_t)be_get(d + ID_MFT_CAP, 2);
    id->partition_cap = (uint16_t)be_get(d + ID_PART_CAP, 2);
    id->partition_enforcement_cap = (uint16_t)be_get(d + ID_PART_ENF_CAP, 2);
    memcpy(id->node_desc, d + ID_NODE_DESC, sizeof(id->node_desc));
    return 0;
}

/* Pack n 16-bit values big-endian. */
static void pack16(uint8_t *d, const uint16_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        be_put(d + 2 * i, v[i], 2);
}

/* Unpack n big-endian 16-bit values. */
static void unpack16(const uint8_t *d, uint16_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        v[i] = (uint16_t)be_get(d + 2 * i, 2);
}

/* Execute a decoded table request on b; returns the board operation's result. */
static int board_sim_exec_table(const struct board *b, struct board_sim_msg *m, uint8_t *out)
{
    uint16_t w[BOARD_MFT_BLOCK];
    int rc;

    switch (m->op) {
    case BOARD_SIM_LFT_GET:
        return board_lft_get(b, m->a, out);
    case BOARD_SIM_LFT_SET:
    case BOARD_SIM_LFT_SET_POSTED:
        return board_lft_set(b, m->a, m->data);
    case BOARD_SIM_MFT_GET:
        rc = board_mft_get(b, m->a, m->b, w);
        if (rc == 0)
            pack16(out, w, BOARD_MFT_BLOCK);
        return rc;
    case BOARD_SIM_MFT_SET:
        unpack16(m->data, w, BOARD_MFT_BLOCK);
        return board_mft_set(b, m->a, m->b, w);
    case BOARD_SIM_PKEY_GET:
        rc = board_pkey_get(b, m->a, m->b, w);
        if (rc == 0)
            pack16(out, w, BOARD_PKEY_BLOCK);
        return rc;
    case BOARD_SIM_PKEY_SET:
        unpack16(m->data, w, BOARD_PKEY_BLOCK);
        return board_pkey_set(b, m->a, m->b, w);
    case BOARD_SIM_SL2VL_GET:
        return board_sl2vl_get(b, m->a, m->b, out);
    case BOARD_SIM_SL2VL_SET:
        return board_sl2vl_set(b, m->a, m->b, m->data);
    case BOARD_SIM_VLARB_GET:
        return board_vlarb_get(b, m->a, m->b, out);
    case BOARD_SIM_VLARB_SET:
        return board_vlarb_set(b, m->a, m->b, m->data);
    default:
        return -EINVAL;
    }
}

void board_sim_pack_mad_rx(uint8_t *d, const struct board_mad_rx *rx)
{
    d[0] = rx->port;
    d[1] = rx->hop_ptr;
    memcpy(d + 2, rx->tail, BOARD_MAD_TAIL);
}

void board_sim_unpack_mad_rx(const uint8_t *d, struct board_mad_rx *rx)
{
    rx->port = d[0];
    rx->hop_ptr = d[1];
    memcpy(rx->tail, d + 2, BOARD_MAD_TAIL);
}

void board_sim_serve_counters_many(const struct board *target, const struct board_sim_msg *m,
                                   void (*emit)(void *arg, const struct board_sim_msg *resp),
                                   void *arg)
{
    struct board_sim_msg resp;
    struct board_port_counters c;
    uint32_t count = m->b;
    int rc;

    if (count == 0 || count > BOARD_SIM_COUNTERS_MAX) {
        board_sim_msg_request(&resp, m->seq, BOARD_SIM_COUNTERS_MANY, m->a, m->b, 0);
        resp.status = (int32_t)htonl((uint32_t)-EINVAL);
        emit(arg, &resp);
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        board_sim_msg_request(&resp, m->seq, BOARD_SIM_COUNTERS_MANY, m->a, m->b, i);
        rc = m->a + i > 0xFF ? -EINVAL : board_port_counters(target, m->a + i, &c);
        resp.status = (int32_t)htonl((uint32_t)rc);
        if (rc == 0)
            board_sim_pack_counters(resp.data, &c);
        emit(arg, &resp);
    }
}

void board_sim_pack_mad(struct board_sim_msg *m, uint32_t seq, const struct board_sim_mad *mad)
{
    uint16_t len = mad->len <= BOARD_SIM_MAD_BYTES ? mad->len : BOARD_SIM_MAD_BYTES;

    board_sim_msg_request(m, seq, BOARD_SIM_MAD, (uint32_t)mad->slid << 16 | mad->dlid, mad->sqp,
                          mad->dqp);
    m->status = (int32_t)htonl(mad->status);
    be_put(m->data, len, 2);
    m->data[2] = mad->port;
    memcpy(m->data + BOARD_SIM_MAD_HDR, mad->mad, len);
}

int board_sim_unpack_mad(const struct board_sim_msg *m, struct board_sim_mad *mad)
{
    uint16_t len = (uint16_t)be_get(m->data, 2);

    if (m->op != BOARD_SIM_MAD || len < BOARD_SIM_MAD_MIN || len > BOARD_SIM_MAD_BYTES)
        return -1;
    mad->slid = (uint16_t)(m->a >> 16);
    mad->dlid = (uint16_t)m->a;
    mad->sqp = m->b;
    mad->dqp = m->c;
    mad->status = (uint32_t)m->status;
    mad->len = len;
    mad->port = m->data[2];
    memset(mad->mad + len, 0, BOARD_SIM_MAD_BYTES - len);
    memcpy(mad->mad, m->data + BOARD_SIM_MAD_HDR, len);
    return 0;
}

/* Execute a decoded request on b; returns the board operation's result. */
static int board_sim_exec(const struct board *b, struct board_sim_msg *m, uint8_t *out)
{
    struct board_port_status st;
    struct board_port_config cfg;
    int rc;

    switch (m->op) {
    case BOARD_SIM_ATTACH:
        if (m->a != BOARD_SIM_VERSION || b->id->node_type != BOARD_NODE_SWITCH)
            return -EPROTO;
        board_sim_pack_identity(out, b->id);
        return 0;
    case BOARD_SIM_PORT_STATUS:
        rc = board_port_status(b, m->a, &st);
        if (rc == 0)
            board_sim_pack_status(out, &st);
        return rc;
    case BOARD_SIM_PORT_CONFIG_GET:
        rc = board_port_config_get(b, m->a, &cfg);
        if (rc == 0)
            board_sim_pack_config(out, &cfg);
        return rc;
    case BOARD_SIM_PORT_CONFIG_SET:
        board_sim_unpack_config(m->data, &cfg);
        return board_port_config_set(b, m->a, &cfg);
    case BOARD_SIM_PORT_STATE_SET:
        return board_port_state_set(b, m->a, (enum board_port_state)m->b);
    case BOARD_SIM_PHYS_STATE_SET:
        return board_phys_state_set(b, m->a, (enum board_phys_state)m->b);
    case BOARD_SIM_SET_LID:
        if (m->b > 0xFFFF || m->c > 7)
            return -EINVAL;
        return board_set_lid(b, m->a, (uint16_t)m->b, (uint8_t)m->c);
    case BOARD_SIM_SET_LFT_TOP:
        if (m->a > 0xFFFF)
            return -EINVAL;
        return board_set_lft_top(b, (uint16_t)m->a);
    case BOARD_SIM_MAD_RX: {
        struct board_mad_rx rx;

        rc = board_mad_rx(b, (uint64_t)m->a << 32 | m->b, &rx);
        if (rc == 0)
            board_sim_pack_mad_rx(out, &rx);
        return rc;
    }
    case BOARD_SIM_PORT_COUNTERS: {
        struct board_port_counters c;

        rc = board_port_counters(b, m->a, &c);
        if (rc == 0)
            board_sim_pack_counters(out, &c);
        return rc;
    }
    case BOARD_SIM_COUNTERS_MANY:
        return -EOPNOTSUPP; /* several answers: board_sim_serve_counters_many */
    default:
        return board_sim_exec_table(b, m, out);
    }
}

int board_sim_serve(const struct board *target, const void *req, size_t len,
                    struct board_sim_msg *resp)
{
    struct board_sim_msg m;
    uint8_t out[BOARD_SIM_DATA] = {0};
    int rc;

    if (board_sim_msg_decode(req, len, &m)) {
        board_sim_msg_request(resp, 0, BOARD_SIM_ATTACH, 0, 0, 0);
        resp->status = (int32_t)htonl((uint32_t)-EPROTO);
        return -1;
    }
    rc = board_sim_exec(target, &m, out);
    /* ATTACH's c carries what the agent asks for: this server grants none of it. */
    board_sim_msg_request(resp, m.seq, (enum board_sim_op)m.op, m.a, m.b,
                          m.op == BOARD_SIM_ATTACH ? 0 : m.c);
    resp->status = (int32_t)htonl((uint32_t)rc);
    memcpy(resp->data, out, sizeof(out));
    return 0;
}

bool board_sim_reply_wanted(const struct board_sim_msg *resp)
{
    return ntohs(resp->op) != BOARD_SIM_LFT_SET_POSTED && ntohs(resp->op) != BOARD_SIM_MAD;
}
