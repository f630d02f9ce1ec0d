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
 * the bytes.  Checked: every datagram the endpoint sends fits the group MTU
 * plus the header and carries the IPoIB header of ARP or IPv4; every SA
 * request is a 256-byte SA MAD; the endpoint never delivers a packet longer
 * than what came in.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "ipoib.h"
#include "ipoib_arp.h"

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
    if (type != IPOIB_ETHERTYPE_ARP && type != IPOIB_ETHERTYPE_IPV4)
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
                               .tid_tag = 7};
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
    answer_join(&w);
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
