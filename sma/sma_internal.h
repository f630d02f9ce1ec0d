/*
 * sma_internal.h - state and helpers shared by the SMA's source files.
 * Not part of the library's interface.
 */
#ifndef PZ_SMA_INTERNAL_H
#define PZ_SMA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sma.h"

/* MAD status values: mad.h (MAD_STATUS_*; the DR D bit is separate). */

/* Subnet management attribute IDs not named by libibmad's enum MAD_ATTR_ID. */
#define SMA_ATTR_NOTICE 0x0002
#define SMA_ATTR_RANDOM_FT 0x001A
#define SMA_ATTR_VENDOR_DIAG 0x0030
#define SMA_ATTR_LED_INFO 0x0031

/* PortInfo.CapabilityMask bits (IBA 14.2.5.6). */
#define SMA_CAP_IS_SM 0x00000002u
#define SMA_CAP_NOTICE 0x00000004u
#define SMA_CAP_TRAP 0x00000008u
#define SMA_CAP_SL_MAP 0x00000040u
#define SMA_CAP_SYS_IMAGE_GUID 0x00000800u
#define SMA_CAP_EXT_SPEEDS 0x00004000u
#define SMA_CAP_CAPMASK2 0x00008000u
#define SMA_CAP_DR_NOTICE 0x00200000u
#define SMA_CAP_CAPMASK_NOTICE 0x00400000u
#define SMA_CAP_CLIENT_REREG 0x02000000u
#define SMA_CAP_OTHER_LOCAL_CHANGES 0x04000000u
#define SMA_CAP_MFT_TOP 0x40000000u

/* PortInfo.CapabilityMask2 bits. */
#define SMA_CAP2_SET_NODE_DESC 0x0001u

/* SMP data area. */
#define SMA_DATA_OFFS 64
#define SMA_DATA_SIZE 64

#define SMA_TRAP_QUEUE 8
#define SMA_MAX_GUIDS 8

/* SMA state of one port.  Switch: end-port fields live in port 0 only. */
struct sma_port {
    /* End-port fields (PortInfo of a switch's port 0, or of a CA port). */
    uint64_t mkey;
    uint64_t gid_prefix;
    uint16_t lid;
    uint8_t lmc;
    uint16_t master_sm_lid;
    uint8_t master_sm_sl;
    uint16_t mkey_lease_period; /* seconds, 0 = never expires */
    uint8_t mkey_protect;       /* M_KeyProtectBits */
    uint16_t mkey_violations;
    uint16_t qkey_violations;
    uint8_t subnet_timeout;
    uint8_t resp_time_value;
    bool client_rereg;
    uint32_t rereg_count; /* PortInfo Sets with ClientReregister 1 (sma_client_reregister_count) */
    uint32_t capmask;
    uint16_t capmask2;
    uint64_t lease_deadline_ns; /* 0 = lease timer not running */
    uint64_t alias_guid[SMA_MAX_GUIDS];

    /* Physical-port fields. */
    uint16_t pkey_violations;
    uint8_t local_phy_errors_threshold;
    uint8_t overrun_errors_threshold;
    uint8_t last_port_state;  /* for PortStateChange detection */
    uint32_t last_link_downs; /* board's link_down_events at the last scan */

    /* MlnxExtPortInfo (sma_mlnx.c); zero is the hardware default. */
    uint8_t mlnx_state_change_enable; /* StateChangeEnable bit 0 */
    uint8_t mlnx_speed_disabled;      /* LinkSpeedSupported bits the SM disabled */
};

/* One trap waiting for its TrapRepress. */
struct sma_trap {
    bool used;
    uint8_t port; /* CA: the port it concerns */
    uint64_t tid;
    uint8_t notice[SMA_DATA_SIZE];
    uint64_t next_send_ns; /* 0 = send at the next poll */
};

struct sma {
    const struct board *board;
    bool is_switch;
    unsigned num_ports;
    struct sma_port *ports; /* num_ports + 1 */

    /* SwitchInfo. */
    uint16_t lft_top;
    uint16_t mft_top;
    uint8_t default_port;
    uint8_t default_mcast_primary;
    uint8_t default_mcast_not_primary;
    uint8_t life_time;
    bool port_state_change;
    bool port_state_change_pending; /* an SMA-requested Down bounced a link */
    /* The board's port status generation at the last scan (if it keeps one). */
    bool scanned_gen_valid;
    uint64_t scanned_gen;

    char node_desc[64];
    uint64_t system_image_guid;
    uint64_t next_tid;

    struct sma_trap traps[SMA_TRAP_QUEUE];
    unsigned traps_queued; /* traps[] in use: with none, the trap timers are not walked */
    struct sma_stats stats;
};

/* One SMP being answered by an attribute handler. */
struct sma_req {
    uint8_t method;
    uint16_t attr_id;
    uint32_t attr_mod;
    unsigned in_port;    /* physical ingress port (LocalPortNum) */
    struct sma_port *ep; /* end port whose M_Key and LID apply */
    bool hide_mkey;      /* M_Key protection level 1, key not matched */
    const uint8_t *in;   /* request SMP data, 64 bytes */
    uint8_t *out;        /* response SMP data, 64 bytes */
};

/*
 * An attribute handler: fills req->out, returns a MAD status.  The
 * handlers below are declared with this type, one line per attribute.
 */
typedef uint16_t sma_attr_fn(struct sma *sma, struct sma_req *req);

/* The end port that owns M_Key, LID and SM fields for SMPs entering on port. */
struct sma_port *sma_end_port(struct sma *sma, unsigned in_port);

/*
 * GUIDCap of an end port: the GUIDInfo entries the SMA really keeps (GUID 0
 * always exists; at most SMA_MAX_GUIDS), so GUIDInfo answers every block
 * PortInfo.GUIDCap promises (sma_node.c).
 */
unsigned sma_guid_cap(const struct sma *sma);

/* Attribute handlers (sma_node.c). */
sma_attr_fn sma_node_info_get;
sma_attr_fn sma_node_desc_get, sma_node_desc_set;
sma_attr_fn sma_guid_info_get, sma_guid_info_set;

/* Attribute handlers (sma_switch.c). */
sma_attr_fn sma_switch_info_get, sma_switch_info_set;
sma_attr_fn sma_lft_get, sma_lft_set;
sma_attr_fn sma_mft_get, sma_mft_set;

/* Attribute handlers (sma_port_info.c). */
sma_attr_fn sma_port_info_get, sma_port_info_set;

/* Attribute handlers (sma_tables.c). */
sma_attr_fn sma_pkey_get, sma_pkey_set;
sma_attr_fn sma_sl2vl_get, sma_sl2vl_set;
sma_attr_fn sma_vlarb_get, sma_vlarb_set;

/* Attribute handlers (sma_mlnx.c): Mellanox vendor attributes. */
sma_attr_fn sma_mlnx_ext_port_info_get, sma_mlnx_ext_port_info_set;

/* M_Key (sma_mkey.c). */
enum sma_mkey_verdict {
    SMA_MKEY_OK,       /* proceed */
    SMA_MKEY_OK_HIDE,  /* proceed, but report PortInfo.M_Key as 0 */
    SMA_MKEY_VIOLATION /* drop silently; Trap 256 queued */
};
enum sma_mkey_verdict sma_mkey_check(struct sma *sma, struct sma_port *ep, const uint8_t *mad,
                                     unsigned in_port, uint16_t slid);
void sma_mkey_lease_poll(struct sma *sma, uint64_t now);

/* Traps (sma_trap.c). */
int sma_trap_queue_notice(struct sma *sma, unsigned port, const uint8_t notice[SMA_DATA_SIZE]);
void sma_trap_link_state_change(struct sma *sma);
void sma_trap_local_changes(struct sma *sma, unsigned port, uint16_t change_flags);
void sma_trap_sys_image_guid(struct sma *sma);
void sma_trap_repress(struct sma *sma, const uint8_t *mad);
enum mad_verdict sma_trap_poll(struct sma *sma, uint64_t now, struct mad_addr *out_addr,
                               uint8_t *out);
uint64_t sma_trap_next_deadline(const struct sma *sma);
uint64_t sma_trap_resend_interval_ns(uint8_t subnet_timeout);
void sma_notice_init(const struct sma *sma, uint8_t *notice, unsigned type, unsigned trap_num);

/* Link state tracking (sma_port_info.c). */
void sma_scan_port_states(struct sma *sma);

#endif /* PZ_SMA_INTERNAL_H */
