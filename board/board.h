/*
 * board.h - the switch ASIC as the management CPU sees it.
 *
 * Everything above board/ (sma/, pma/, the IP plane) is hardware
 * independent and touches the forwarding hardware only through this
 * interface.  A board is a table of operations plus an opaque context, so
 * one process can hold many boards (the emulator holds one per switch).
 *
 * Conventions: ports are numbered 0..num_ports (0 = the management port);
 * every operation returns 0 on success or a negative errno value; values use
 * the IBA encodings of the corresponding PortInfo/SwitchInfo fields.
 */
#ifndef PZ_BOARD_H
#define PZ_BOARD_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad.h"

#define BOARD_MAX_PORTS 254
#define BOARD_LFT_BLOCK 64   /* entries per LinearForwardingTable block */
#define BOARD_MFT_BLOCK 32   /* MLIDs per MulticastForwardingTable block */
#define BOARD_PKEY_BLOCK 32  /* entries per P_KeyTable block */
#define BOARD_VLARB_BLOCK 32 /* entries per VLArbitrationTable block */
#define BOARD_LFT_DROP 0xFF  /* LFT entry: no route */

/* PortInfo.PortState values. */
enum board_port_state {
    BOARD_PORT_NOP = 0,
    BOARD_PORT_DOWN = 1,
    BOARD_PORT_INIT = 2,
    BOARD_PORT_ARMED = 3,
    BOARD_PORT_ACTIVE = 4,
};

/* PortInfo.PortPhysicalState values. */
enum board_phys_state {
    BOARD_PHYS_NOP = 0,
    BOARD_PHYS_SLEEP = 1,
    BOARD_PHYS_POLLING = 2,
    BOARD_PHYS_DISABLED = 3,
    BOARD_PHYS_TRAINING = 4,
    BOARD_PHYS_LINKUP = 5,
    BOARD_PHYS_ERROR_RECOVERY = 6,
    BOARD_PHYS_TEST = 7,
};

/* What kind of node the board is (NodeInfo.NodeType). */
enum board_node_type {
    BOARD_NODE_CA = 1,
    BOARD_NODE_SWITCH = 2,
};

/* Fixed facts about the device: read once, never change at run time. */
struct board_identity {
    enum board_node_type node_type;
    uint64_t node_guid;
    uint64_t system_image_guid;
    uint64_t port_guid[BOARD_MAX_PORTS + 1]; /* switch: [0] only; CA: [1..n] */
    uint8_t num_ports;                       /* external (physical) ports */
    uint32_t vendor_id;                      /* 24 bits */
    uint16_t device_id;
    uint32_t revision;
    char node_desc[64]; /* default NodeDescription, NUL padded */

    /* Switch capacities (ignored for CAs). */
    uint16_t lft_cap;                   /* LinearFDBCap: entries, multiple of 64 */
    uint16_t mft_cap;                   /* MulticastFDBCap: MLIDs, multiple of 32 */
    uint16_t partition_cap;             /* P_Key entries on port 0 (CA: every port) */
    uint16_t partition_enforcement_cap; /* P_Key entries on external ports */
    bool enhanced_port0;
    /*
     * The management port (switch port 0): its active width and speed as
     * PortInfo reports them (LinkWidthActive code 1 1x, 2 4x, 4 8x, 8 12x;
     * LinkSpeedActive 1 SDR, 2 DDR, 4 QDR; 0 = 4x SDR), which is what the SM
     * rates it by for multicast joins (real switches: 1x SDR); and whether
     * clients behind it (the IP plane) take the SM's ClientReregister.
     */
    uint8_t port0_width;
    uint8_t port0_speed;
    bool port0_client_rereg;
    bool optimized_sl2vl;  /* OptimizedSLtoVLMappingProgramming */
    bool enforcement_caps; /* inbound/outbound partition + raw filtering */

    /* Link capabilities, the same for every port. */
    uint8_t vl_cap;              /* 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14 */
    uint8_t mtu_cap;             /* 1 = 256 ... 5 = 4096 */
    uint8_t vlarb_high_cap;      /* entries, <= 64 */
    uint8_t vlarb_low_cap;       /* entries, <= 64 */
    uint8_t width_supported;     /* LinkWidthSupported bits: 1 1x, 2 4x, 4 8x, 8 12x */
    uint8_t speed_supported;     /* LinkSpeedSupported bits: 1 SDR, 2 DDR, 4 QDR */
    uint8_t speed_ext_supported; /* LinkSpeedExtSupported bits: 1 FDR, 2 EDR; 0 none */
    uint8_t guid_cap;            /* GUIDInfo entries on port 0 (CA: per port) */
    uint8_t counter_bits;        /* width of the hardware counters, 1..64 (0 = 64) */
};

/* Link status of one port, as the hardware reports it. */
struct board_port_status {
    uint8_t phys_state; /* enum board_phys_state */
    uint8_t port_state; /* enum board_port_state */
    uint8_t width_active;
    uint8_t speed_active;
    uint8_t speed_ext_active;
    uint32_t link_down_events; /* times the link went down; wraps */
};

/* Per-port datapath settings the SMA programs (PortInfo Set). */
struct board_port_config {
    uint8_t width_enabled;
    uint8_t speed_enabled;
    uint8_t speed_ext_enabled;
    uint8_t link_down_default; /* 1 Sleep, 2 Polling */
    uint8_t neighbor_mtu;
    uint8_t oper_vls;
    uint8_t vl_high_limit;
    uint8_t hoq_life;
    uint8_t vl_stall_count;
    bool part_enf_inbound;
    bool part_enf_outbound;
    bool filter_raw_inbound;
    bool filter_raw_outbound;
};

#define BOARD_NUM_VLS 16
#define BOARD_NUM_SLS 16

/*
 * Hardware counters of one port, as free-running values of identity's
 * counter_bits width: they wrap, never saturate and are never reset by
 * software (the PMA keeps 64-bit software counters and computes deltas).
 * Data counters count 4-byte words, XmitWait counts ticks.
 */
struct board_port_counters {
    uint64_t symbol_errors;
    uint64_t link_error_recovery;
    uint64_t link_downed;
    uint64_t rcv_errors;
    uint64_t rcv_remote_phys_errors;
    uint64_t rcv_switch_relay_errors;
    uint64_t xmit_discards;
    uint64_t xmit_constraint_errors;
    uint64_t rcv_constraint_errors;
    uint64_t local_link_integrity_errors;
    uint64_t excessive_buffer_overrun_errors;
    uint64_t vl15_dropped;
    uint64_t qp1_dropped;
    uint64_t xmit_data;
    uint64_t rcv_data;
    uint64_t xmit_pkts;
    uint64_t rcv_pkts;
    uint64_t xmit_wait;
    uint64_t unicast_xmit_pkts;
    uint64_t unicast_rcv_pkts;
    uint64_t multicast_xmit_pkts;
    uint64_t multicast_rcv_pkts;
    /* PortRcvErrorDetails */
    uint64_t local_phy_errors;
    uint64_t malformed_pkt_errors;
    uint64_t buffer_overrun_errors;
    uint64_t dlid_mapping_errors;
    uint64_t vl_mapping_errors;
    uint64_t looping_errors;
    /* PortXmitDiscardDetails */
    uint64_t inactive_discards;
    uint64_t neighbor_mtu_discards;
    uint64_t sw_lifetime_limit_discards;
    uint64_t sw_hoq_lifetime_limit_discards;
    /* PortOpRcvCounters, PortFlowCtlCounters */
    uint64_t op_rcv_pkts;
    uint64_t op_rcv_data;
    uint64_t xmit_flow_pkts;
    uint64_t rcv_flow_pkts;
    /* Congestion */
    uint64_t pkt_rcv_fecn;
    uint64_t pkt_rcv_becn;
    uint64_t xmit_time_cong;
    /* Per VL */
    uint64_t vl_op_packets[BOARD_NUM_VLS];
    uint64_t vl_op_data[BOARD_NUM_VLS];
    uint64_t vl_xmit_flow_ctl_update_errors[BOARD_NUM_VLS];
    uint64_t vl_xmit_wait[BOARD_NUM_VLS];
    uint64_t vl_xmit_time_cong[BOARD_NUM_VLS];
    uint64_t sw_port_vl_congestion[BOARD_NUM_VLS];
    /* Per SL */
    uint64_t xmit_data_sl[BOARD_NUM_SLS];
    uint64_t rcv_data_sl[BOARD_NUM_SLS];
    uint64_t rcv_fecn_sl[BOARD_NUM_SLS];
    uint64_t rcv_becn_sl[BOARD_NUM_SLS];
};

/*
 * What the switch recorded when an SMP for its management port arrived: the
 * port it entered by, the hop pointer and the MAD's bytes 192-255 after the
 * switch's receive processing (a directed-route SMP's ReturnPath, IBA
 * 14.2.2: HopPointer HopCount + 1, ReturnPath[HopCount] = the ingress port;
 * reserved in a LID-routed SMP).  umad tells neither the port nor (under
 * umad2sim) the MAD's last 32 bytes.
 */
#define BOARD_MAD_TAIL_OFFS 192
#define BOARD_MAD_TAIL 64
struct board_mad_rx {
    uint8_t port;
    uint8_t hop_ptr; /* directed route only */
    uint8_t tail[BOARD_MAD_TAIL];
};

/*
 * Port-0 datagrams: the management CPU's unreliable datagram (UD) queue pair
 * behind port 0, as hardware UD send and receive work requests see it (what
 * IPoIB-UD needs).  The payload is what follows the DETH (IPoIB's 4-byte
 * encapsulation header is payload), 0..BOARD_DGRAM_MAX_PAYLOAD bytes and at
 * most the path MTU; the board adds LRH, (GRH), BTH (UD SEND_ONLY), DETH and
 * the CRCs.  QPs 0 and 1 are the MAD interfaces, not datagrams.
 *
 * P_Key: by value (what the BTH carries and what IPoIB knows from its
 * partition), not by index: a send whose P_Key is no entry of port 0's P_Key
 * table (the same value, membership bit included) is dropped, as hardware
 * cannot send with a P_Key index that holds another key.
 */
#define BOARD_DGRAM_MAX_PAYLOAD 4096 /* largest IB MTU */
#define BOARD_DGRAM_GRH_LEN 40
#define BOARD_DGRAM_MCAST_QPN 0xFFFFFFu /* destination QP of every multicast packet */
#define BOARD_DGRAM_QKEY_CONTROLLED 0x80000000u
#define BOARD_QP_MAX 8 /* port-0 UD QPs a board opens at once (qp_open) */

/* The address part of a UD send work request or of a UD receive completion. */
struct board_dgram_addr {
    uint16_t dlid;   /* tx: destination LID (unicast, or an MLID 0xC000..0xFFFE); rx: LRH DLID */
    uint16_t slid;   /* rx: LRH SLID; tx: ignored (port 0's LID) */
    uint8_t sl;      /* service level, 0..15 */
    bool has_grh;    /* tx: send with a GRH (LNH global); rx: the packet carried one */
    uint16_t pkey;   /* BTH P_Key, by value (see above) */
    uint32_t src_qp; /* rx: the sender's QP; tx: ignored (this board's UD QP) */
    uint32_t dst_qp; /* tx: remote QP (BOARD_DGRAM_MCAST_QPN for multicast); rx: as sent */
    uint32_t qkey;   /* DETH Q_Key; tx: with BOARD_DGRAM_QKEY_CONTROLLED set, the QP's own */
    /*
     * The GRH as on the wire (big-endian), valid if has_grh.  tx: the caller
     * fills TClass, FlowLabel, HopLimit, SGID (port 0's GID) and DGID (the
     * MGID for multicast); the board sets IPVer 6, PayLen and NxtHdr 0x1B.
     */
    uint8_t grh[BOARD_DGRAM_GRH_LEN];
};

/* The operations a board implements.  ctx is struct board.ctx. */
struct board_ops {
    int (*port_status)(void *ctx, unsigned port, struct board_port_status *st);
    int (*port_config_get)(void *ctx, unsigned port, struct board_port_config *cfg);
    int (*port_config_set)(void *ctx, unsigned port, const struct board_port_config *cfg);
    /* Request a logical state change: DOWN, ARMED or ACTIVE. */
    int (*port_state_set)(void *ctx, unsigned port, enum board_port_state state);
    /* Request a physical state change: POLLING (enable) or DISABLED. */
    int (*phys_state_set)(void *ctx, unsigned port, enum board_phys_state state);

    int (*lft_get)(void *ctx, unsigned block, uint8_t entries[BOARD_LFT_BLOCK]);
    int (*lft_set)(void *ctx, unsigned block, const uint8_t entries[BOARD_LFT_BLOCK]);
    /* Multicast: 32 MLIDs of a block, port mask bits 16*position..+15. */
    int (*mft_get)(void *ctx, unsigned block, unsigned position, uint16_t masks[BOARD_MFT_BLOCK]);
    int (*mft_set)(void *ctx, unsigned block, unsigned position,
                   const uint16_t masks[BOARD_MFT_BLOCK]);
    int (*pkey_get)(void *ctx, unsigned port, unsigned block, uint16_t keys[BOARD_PKEY_BLOCK]);
    int (*pkey_set)(void *ctx, unsigned port, unsigned block,
                    const uint16_t keys[BOARD_PKEY_BLOCK]);
    /* vl[sl] for traffic entering in_port and leaving out_port. */
    int (*sl2vl_get)(void *ctx, unsigned in_port, unsigned out_port, uint8_t vl[16]);
    int (*sl2vl_set)(void *ctx, unsigned in_port, unsigned out_port, const uint8_t vl[16]);
    /* block 0/1 = low priority entries 0-31/32-63, 2/3 = high; 2 bytes each: vl, weight. */
    int (*vlarb_get)(void *ctx, unsigned port, unsigned block,
                     uint8_t entries[2 * BOARD_VLARB_BLOCK]);
    int (*vlarb_set)(void *ctx, unsigned port, unsigned block,
                     const uint8_t entries[2 * BOARD_VLARB_BLOCK]);

    /* The switch's LID range and top of the unicast table, for the datapath. */
    int (*set_lid)(void *ctx, unsigned port, uint16_t lid, uint8_t lmc);
    int (*set_lft_top)(void *ctx, uint16_t top);

    /* Monotonic time in nanoseconds. */
    uint64_t (*now_ns)(void *ctx);

    /* Read the free-running hardware counters of a port. */
    int (*port_counters)(void *ctx, unsigned port, struct board_port_counters *c);

    /*
     * Port-0 datagrams (optional: NULL = not supported).  dgram_open creates
     * the UD QP with Q_Key qkey (or, if it exists, changes its Q_Key, as after
     * an IPoIB join) and reports its number; nothing is received before.
     * dgram_send posts one datagram (0 when posted: what happens on the way
     * is not reported, as for a UD send); -EINVAL bad address or length,
     * -ENOTCONN not open.  dgram_recv never blocks: the payload length, or
     * -EAGAIN (nothing waiting), -EMSGSIZE (cap too small: the datagram is
     * dropped, as a UD receive into a short buffer).  dgram_fd: a descriptor
     * that polls readable when a datagram may be waiting, or -1.
     */
    int (*dgram_open)(void *ctx, uint32_t qkey, uint32_t *qpn);
    int (*dgram_send)(void *ctx, const struct board_dgram_addr *a, const void *payload, size_t len);
    int (*dgram_recv)(void *ctx, struct board_dgram_addr *a, void *buf, size_t cap);
    int (*dgram_fd)(void *ctx);
    /*
     * Port-0 queue pairs (optional: NULL = not supported): several UD QPs
     * at once (up to BOARD_QP_MAX), each with its own QP number and Q_Key,
     * so that services with different Q_Keys (IPoIB, the echo service)
     * share port 0.  qp_open creates one with Q_Key qkey and returns its
     * handle (0..BOARD_QP_MAX-1) with its QP number in *qpn, or -ENOSPC (all
     * in use), -EIO (the transport failed).  qp_set_qkey changes its Q_Key
     * (as after an IPoIB join); qp_send, qp_recv and qp_fd are dgram_send,
     * dgram_recv and dgram_fd of that QP; a bad or closed handle gives
     * -EBADF (qp_fd: -1).  qp_close frees the handle (a bad one is ignored).
     * dgram_* above is the single-QP interface: on a board with both it is
     * QP handle 0 (dgram_open opens handle 0, or changes its Q_Key).
     */
    int (*qp_open)(void *ctx, uint32_t qkey, uint32_t *qpn);
    int (*qp_set_qkey)(void *ctx, int qp, uint32_t qkey);
    int (*qp_send)(void *ctx, int qp, const struct board_dgram_addr *a, const void *payload,
                   size_t len);
    int (*qp_recv)(void *ctx, int qp, struct board_dgram_addr *a, void *buf, size_t cap);
    int (*qp_fd)(void *ctx, int qp);
    void (*qp_close)(void *ctx, int qp);
    /*
     * The receive record of the MAD with this TID that the switch delivered
     * to the management port last (optional: NULL = the MAD alone says).
     * Records are kept in delivery order: asking for one forgets the older
     * ones.  0, or -ENOENT if the switch knows no such MAD.
     */
    int (*mad_rx)(void *ctx, uint64_t tid, struct board_mad_rx *rx);

    /*
     * The counters of count ports from first at once (optional: NULL = one
     * port_counters call each), for boards where every read is a round trip
     * (board/sim: one request, count answers).  0, or the first error.
     */
    int (*port_counters_many)(void *ctx, unsigned first, unsigned count,
                              struct board_port_counters *c);
};

/* A board instance: identity, operations and their context. */
struct board {
    const struct board_identity *id;
    const struct board_ops *ops;
    void *ctx;
};

/* Thin wrappers, so callers read board_lft_set(b, ...) rather than b->ops->... */
static inline int board_port_status(const struct board *b, unsigned port,
                                    struct board_port_status *st)
{
    return b->ops->port_status(b->ctx, port, st);
}

static inline int board_port_config_get(const struct board *b, unsigned port,
                                        struct board_port_config *cfg)
{
    return b->ops->port_config_get(b->ctx, port, cfg);
}

static inline int board_port_config_set(const struct board *b, unsigned port,
                                        const struct board_port_config *cfg)
{
    return b->ops->port_config_set(b->ctx, port, cfg);
}

static inline int board_port_state_set(const struct board *b, unsigned port,
                                       enum board_port_state state)
{
    return b->ops->port_state_set(b->ctx, port, state);
}

static inline int board_phys_state_set(const struct board *b, unsigned port,
                                       enum board_phys_state state)
{
    return b->ops->phys_state_set(b->ctx, port, state);
}

static inline int board_lft_get(const struct board *b, unsigned block, uint8_t *e)
{
    return b->ops->lft_get(b->ctx, block, e);
}

static inline int board_lft_set(const struct board *b, unsigned block, const uint8_t *e)
{
    return b->ops->lft_set(b->ctx, block, e);
}

static inline int board_mft_get(const struct board *b, unsigned block, unsigned pos, uint16_t *m)
{
    return b->ops->mft_get(b->ctx, block, pos, m);
}

static inline int board_mft_set(const struct board *b, unsigned block, unsigned pos,
                                const uint16_t *m)
{
    return b->ops->mft_set(b->ctx, block, pos, m);
}

static inline int board_pkey_get(const struct board *b, unsigned port, unsigned block, uint16_t *k)
{
    return b->ops->pkey_get(b->ctx, port, block, k);
}

static inline int board_pkey_set(const struct board *b, unsigned port, unsigned block,
                                 const uint16_t *k)
{
    return b->ops->pkey_set(b->ctx, port, block, k);
}

static inline int board_sl2vl_get(const struct board *b, unsigned in, unsigned out, uint8_t *vl)
{
    return b->ops->sl2vl_get(b->ctx, in, out, vl);
}

static inline int board_sl2vl_set(const struct board *b, unsigned in, unsigned out,
                                  const uint8_t *vl)
{
    return b->ops->sl2vl_set(b->ctx, in, out, vl);
}

static inline int board_vlarb_get(const struct board *b, unsigned port, unsigned block, uint8_t *e)
{
    return b->ops->vlarb_get(b->ctx, port, block, e);
}

static inline int board_vlarb_set(const struct board *b, unsigned port, unsigned block,
                                  const uint8_t *e)
{
    return b->ops->vlarb_set(b->ctx, port, block, e);
}

static inline int board_set_lid(const struct board *b, unsigned port, uint16_t lid, uint8_t lmc)
{
    return b->ops->set_lid(b->ctx, port, lid, lmc);
}

static inline int board_set_lft_top(const struct board *b, uint16_t top)
{
    return b->ops->set_lft_top(b->ctx, top);
}

static inline uint64_t board_now_ns(const struct board *b)
{
    return b->ops->now_ns(b->ctx);
}

static inline int board_port_counters(const struct board *b, unsigned port,
                                      struct board_port_counters *c)
{
    return b->ops->port_counters(b->ctx, port, c);
}

/*
 * The counters of ports first .. first + count - 1 into c[0 .. count - 1]:
 * what board_port_counters() reads port by port, in one board access where
 * the board has one (over board/sim one round trip instead of count).
 * Returns 0, or the first port's error (the ports before it are filled).
 */
static inline int board_port_counters_many(const struct board *b, unsigned first, unsigned count,
                                           struct board_port_counters *c)
{
    int rc = 0;

    if (b->ops->port_counters_many)
        return b->ops->port_counters_many(b->ctx, first, count, c);
    for (unsigned i = 0; i < count && rc == 0; i++)
        rc = b->ops->port_counters(b->ctx, first + i, &c[i]);
    return rc;
}

/* Whether the board does port-0 datagrams. */
static inline bool board_has_dgram(const struct board *b)
{
    return b->ops->dgram_open && b->ops->dgram_send && b->ops->dgram_recv;
}

static inline int board_dgram_open(const struct board *b, uint32_t qkey, uint32_t *qpn)
{
    return b->ops->dgram_open ? b->ops->dgram_open(b->ctx, qkey, qpn) : -EOPNOTSUPP;
}

static inline int board_dgram_send(const struct board *b, const struct board_dgram_addr *a,
                                   const void *payload, size_t len)
{
    return b->ops->dgram_send ? b->ops->dgram_send(b->ctx, a, payload, len) : -EOPNOTSUPP;
}

static inline int board_dgram_recv(const struct board *b, struct board_dgram_addr *a, void *buf,
                                   size_t cap)
{
    return b->ops->dgram_recv ? b->ops->dgram_recv(b->ctx, a, buf, cap) : -EOPNOTSUPP;
}

/* Whether the board does several port-0 QPs (board_qp_*). */
static inline bool board_has_qps(const struct board *b)
{
    return b->ops->qp_open && b->ops->qp_send && b->ops->qp_recv && b->ops->qp_close;
}

/* Open a port-0 UD QP with Q_Key qkey: its handle (>= 0, QP number in *qpn) or a negative errno. */
static inline int board_qp_open(const struct board *b, uint32_t qkey, uint32_t *qpn)
{
    return b->ops->qp_open ? b->ops->qp_open(b->ctx, qkey, qpn) : -EOPNOTSUPP;
}

/* Change QP qp's Q_Key; 0 or a negative errno. */
static inline int board_qp_set_qkey(const struct board *b, int qp, uint32_t qkey)
{
    return b->ops->qp_set_qkey ? b->ops->qp_set_qkey(b->ctx, qp, qkey) : -EOPNOTSUPP;
}

/* Post one datagram on QP qp (as board_dgram_send). */
static inline int board_qp_send(const struct board *b, int qp, const struct board_dgram_addr *a,
                                const void *payload, size_t len)
{
    return b->ops->qp_send ? b->ops->qp_send(b->ctx, qp, a, payload, len) : -EOPNOTSUPP;
}

/* Take one datagram of QP qp, never blocking (as board_dgram_recv). */
static inline int board_qp_recv(const struct board *b, int qp, struct board_dgram_addr *a,
                                void *buf, size_t cap)
{
    return b->ops->qp_recv ? b->ops->qp_recv(b->ctx, qp, a, buf, cap) : -EOPNOTSUPP;
}

/* A descriptor that polls readable when QP qp may have a datagram, or -1. */
static inline int board_qp_fd(const struct board *b, int qp)
{
    return b->ops->qp_fd ? b->ops->qp_fd(b->ctx, qp) : -1;
}

/* Close QP qp. */
static inline void board_qp_close(const struct board *b, int qp)
{
    if (b->ops->qp_close)
        b->ops->qp_close(b->ctx, qp);
}

static inline int board_mad_rx(const struct board *b, uint64_t tid, struct board_mad_rx *rx)
{
    return b->ops->mad_rx ? b->ops->mad_rx(b->ctx, tid, rx) : -EOPNOTSUPP;
}

static inline int board_dgram_fd(const struct board *b)
{
    return b->ops->dgram_fd ? b->ops->dgram_fd(b->ctx) : -1;
}

/* Number of P_Key entries on a port: port 0 (or any CA port) uses PartitionCap. */
static inline unsigned board_pkey_cap(const struct board *b, unsigned port)
{
    if (b->id->node_type == BOARD_NODE_CA || port == 0)
        return b->id->partition_cap;
    return b->id->partition_enforcement_cap;
}

/*
 * Data rate of a trained link in bits per second, after line encoding
 * (8b/10b for SDR/DDR/QDR, 64b/66b for FDR/EDR): what the link can carry
 * in packet bytes.  LinkSpeedExtActive wins over LinkSpeedActive when set.
 * Returns 0 for an unknown width or speed.
 */
static inline uint64_t board_link_data_rate_bps(const struct board_port_status *st)
{
    uint64_t lanes, lane_bps;

    switch (st->width_active) {
    case 1:
        lanes = 1;
        break;
    case 2:
        lanes = 4;
        break;
    case 4:
        lanes = 8;
        break;
    case 8:
        lanes = 12;
        break;
    case 16:
        lanes = 2;
        break;
    default:
        return 0;
    }
    switch (st->speed_ext_active) {
    case 1:
        lane_bps = 14062500000ull / 66 * 64;
        break; /* FDR: 13.64 Gb/s */
    case 2:
        lane_bps = 25781250000ull / 66 * 64;
        break; /* EDR: 25 Gb/s */
    default:
        switch (st->speed_active) {
        case 1:
            lane_bps = 2000000000ull;
            break; /* SDR */
        case 2:
            lane_bps = 4000000000ull;
            break; /* DDR */
        case 4:
            lane_bps = 8000000000ull;
            break; /* QDR */
        default:
            return 0;
        }
    }
    return lanes * lane_bps;
}

#endif /* PZ_BOARD_H */
