/*
 * fuzz_ipoib.c - libFuzzer target: the IPoIB endpoint (ipoib/) fed by a
 * hostile fabric and SA.
 *
 * Input: records of a 1-byte op, a 2-byte big-endian length and that many
 * bytes (a short tail is one last record).  op & 7: 0 = a datagram with the
 * group's Q_Key (the sender LID and QP from op's high bits), 1 = a datagram
 * with a random Q_Key, 2 = an SA answer: the bytes laid over the last
 * request the endpoint sent (so TIDs match), 3 = raw bytes as an SA MAD,
 * 4 = the bytes as an IPv4 packet to send, 5 = advance the clock by the
 * first two bytes in ms and poll, 6 = a port change (LID, SM, P_Key state,
 * re-registration from the bytes), 7 = an ARP for our address built from
 * the bytes, or with op bit 3 a neighbour discovery message (valid
 * checksum) whose type, flags, addresses and link-layer options come from
 * the bytes.  IPv6 is on, with a usable link-local and a tentative global
 * address.  Checked: every datagram the endpoint sends fits the group MTU
 * plus the header and carries the IPoIB header of ARP, IPv4 or IPv6; every SA
 * request is a 256-byte SA MAD; the endpoint never delivers a packet longer
 * than what came in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "ipoib.h"
#include "ipoib6.h"
#include "ipoib_arp.h"
#include "ipoib_nd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the fake world remembers between calls within one input. */
struct world {
    struct ipoib *ep;
    uint8_t last_sa[256];
    size_t in_len;
    uint64_t now;
};

/* ops.send_dgram: check the frame. */
static int fz_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len)
{
    struct world *w = ctx;
    const uint8_t *p = buf;
    int type;

    if (len < IPOIB_ENCAP_LEN || len > IPOIB_ENCAP_LEN + ipoib_mtu(w->ep))
        abort();
    type = ipoib_encap_read(p, len);
    if (type != IPOIB_ETHERTYPE_ARP && type != IPOIB_ETHERTYPE_IPV4 && type != IPOIB_ETHERTYPE_IPV6)
        abort();
    if (a->dst_qp > IPOIB_QPN_MASK)
        abort();
    return 0;
}

/* ops.send_sa: check it is an SA request and keep it. */
static int fz_send_sa(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl)
{
    struct world *w = ctx;
    (void)dlid;
    (void)sl;

    if (len != 256 || ((const uint8_t *)mad)[1] != IB_SA_CLASS)
        abort();
    memcpy(w->last_sa, mad, 256);
    return 0;
}

/* ops.deliver: never longer than the input. */
static void fz_deliver(void *ctx, const void *pkt, size_t len)
{
    struct world *w = ctx;
    (void)pkt;
    if (len > w->in_len)
        abort();
}

/* ops.set_qkey: accept. */
static int fz_set_qkey(void *ctx, uint32_t qkey)
{
    (void)ctx;
    (void)qkey;
    return 0;
}

static const struct ipoib_ops fz_ops = {
    .send_dgram = fz_send_dgram,
    .send_sa = fz_send_sa,
    .deliver = fz_deliver,
    .set_qkey = fz_set_qkey,
};

/* A port change from the first bytes of p. */
static void port_change(struct world *w, const uint8_t *p, size_t len)
{
    uint8_t b[6] = {0};
    struct ipoib_port port;

    memcpy(b, p, len < sizeof(b) ? len : sizeof(b));
    port = (struct ipoib_port){.active = (b[0] & 1) != 0,
                               .lid = (uint16_t)(b[1] | (b[0] & 0x2) << 7),
                               .gid_prefix = 0xfe80000000000000ull,
                               .port_guid = 0x1000 + b[2],
                               .sm_lid = b[3],
                               .pkey_state = (enum ipoib_pkey_state)(b[4] % 3),
                               .reregister = b[5]};
    ipoib_port_update(w->ep, &port, w->now);
}

/* A good join answer for the last request, so that most inputs reach the joined state. */
static void answer_join(struct world *w)
{
    uint8_t mad[256];

    memcpy(mad, w->last_sa, 256);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_QKEY_F, 0x0b1b);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MLID_F, 0xc000);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MTU_F, 4);
    ipoib_input_sa(w->ep, mad, sizeof(mad), w->now);
}

/*
 * A neighbour discovery message from the bytes: p[0] picks the type and the
 * options, p[1] the NA flags, then source, destination and target tails
 * (the last 2 bytes of each, over our link-local so they often match).
 */
static void nd_message(struct world *w, const struct board_dgram_addr *a, const uint8_t *p,
                       size_t len)
{
    uint8_t b[10] = {0}, buf[300], ours[16];
    struct ipoib_nd m;
    size_t n;

    memcpy(b, p, len < sizeof(b) ? len : sizeof(b));
    memset(&m, 0, sizeof(m));
    m.type = (uint8_t)(IPOIB_ND_RS + (b[0] & 3) + ((b[0] & 3) == 0 ? 2 : 0)); /* NS often */
    ipoib_ip6_linklocal(0x1234, ours);
    memcpy(m.src, ours, 16);
    memcpy(m.dst, ours, 16);
    memcpy(m.target, ours, 16);
    m.src[14] = b[2], m.src[15] = b[3];
    m.target[14] = b[4], m.target[15] = b[5];
    if (b[0] & 0x10)
        memset(m.src, 0, 16);
    if (b[0] & 0x20)
        ipoib_ip6_solicited_node(m.target, m.dst);
    if (b[0] & 0x40)
        ipoib_ip6_all_nodes(m.dst);
    m.na_flags = b[1];
    m.ra_lifetime = (uint16_t)(b[6] << 8 | b[7]);
    m.has_slla = (b[0] & 0x04) != 0;
    m.has_tlla = (b[0] & 0x08) != 0;
    m.slla.qpn = m.tlla.qpn = b[8];
    m.slla.gid[15] = m.tlla.gid[15] = b[9];
    m.n_prefix = b[0] >> 7;
    m.prefix[0].len = 64;
    m.prefix[0].flags = IPOIB_ND_PREFIX_ONLINK;
    m.prefix[0].valid_lifetime = b[6];
    m.prefix[0].prefix[0] = 0xfd;
    buf[0] = 0x86;
    buf[1] = 0xdd;
    buf[2] = buf[3] = 0;
    n = ipoib_nd_build(&m, buf + 4, sizeof(buf) - 4);
    if (!n)
        return;
    w->in_len = n;
    ipoib_input(w->ep, a, buf, 4 + n, w->now);
}

/* Run one record. */
static void run_op(struct world *w, uint8_t op, const uint8_t *p, size_t len)
{
    struct board_dgram_addr a = {.dlid = 3,
                                 .slid = (uint16_t)(op >> 3),
                                 .sl = (uint8_t)(op >> 4),
                                 .src_qp = (uint32_t)(op >> 3) + 0x40,
                                 .qkey = 0x0b1b};
    uint8_t buf[300];

    w->in_len = len;
    switch (op & 7) {
    case 1:
        a.qkey = op;
        /* fall through */
    case 0:
        ipoib_input(w->ep, &a, p, len, w->now);
        break;
    case 2:
        memcpy(buf, w->last_sa, 256);
        memcpy(buf + 36, p, len < 220 ? len : 220);
        ipoib_input_sa(w->ep, buf, 256, w->now);
        break;
    case 3:
        ipoib_input_sa(w->ep, p, len, w->now);
        break;
    case 4:
        ipoib_output(w->ep, p, len, w->now);
        break;
    case 5:
        w->now += len >= 2 ? (uint64_t)(p[0] << 8 | p[1]) : 1000;
        ipoib_poll(w->ep, w->now);
        break;
    case 6:
        port_change(w, p, len);
        break;
    default: {
        if (op & 8) {
            nd_message(w, &a, p, len);
            break;
        }
        struct ipoib_arp arp = {.op = (uint16_t)(1 + (op >> 7)), .tpa = 0x0a000001};
        memcpy(&arp.spa, p, len < 4 ? len : 4);
        arp.sha.qpn = op;
        buf[0] = 0x08;
        buf[1] = 0x06;
        buf[2] = buf[3] = 0;
        ipoib_arp_build(&arp, buf + 4);
        w->in_len = 60;
        ipoib_input(w->ep, &a, buf, 60, w->now);
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ipoib_config cfg = {.pkey = 0xffff,
                               .qpn = 0x48,
                               .addr = 0x0a000001,
                               .netmask = 0xffffff00,
                               .gateway = 0x0a0000fe,
                               .neigh_max = 8,
                               .tid_tag = 7,
                               .ip6 = true};
    struct ipoib6_addr addrs[2] = {{.prefix_len = 64}, {.prefix_len = 64, .tentative = true}};
    struct ipoib_port port = {.active = true,
                              .lid = 3,
                              .gid_prefix = 0xfe80000000000000ull,
                              .port_guid = 0x1234,
                              .sm_lid = 1,
                              .pkey_state = IPOIB_PKEY_FULL};
    struct world w = {.now = 1};

    w.ep = ipoib_create(&cfg, &fz_ops, &w);
    if (!w.ep)
        abort();
    ipoib_port_update(w.ep, &port, w.now);
    answer_join(&w); /* the broadcast group */
    answer_join(&w); /* all-nodes */
    ipoib_ip6_linklocal(0x1234, addrs[0].addr);
    memcpy(addrs[1].addr, addrs[0].addr, 16);
    addrs[1].addr[0] = 0xfd;
    addrs[1].addr[1] = 0;
    ipoib6_set_addrs(w.ep, addrs, 2, w.now);
    answer_join(&w); /* their solicited-node group */
    while (size > 0) {
        uint8_t op = data[0];
        size_t len = size >= 3 ? (size_t)(data[1] << 8 | data[2]) : 0;
        size_t hdr = size >= 3 ? 3 : size;
        if (len > size - hdr)
            len = size - hdr;
        run_op(&w, op, data + hdr, len);
        data += hdr + len;
        size -= hdr + len;
    }
    ipoib_destroy(w.ep);
    return 0;
}
