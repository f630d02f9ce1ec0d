/*
 * sma_core.c - SMA instance, SMP reception, dispatch and response routing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"
#include "smi_dr.h"

/* How the SMA answers one attribute. */
struct sma_attr_entry {
    uint16_t id;
    sma_attr_fn *get;
    sma_attr_fn *set;
    bool switch_only;
};

/* Every attribute the SMA answers; all others get status 0x0C. */
static const struct sma_attr_entry sma_attrs[] = {
    {IB_ATTR_NODE_DESC, sma_node_desc_get, sma_node_desc_set, false},
    {IB_ATTR_NODE_INFO, sma_node_info_get, NULL, false},
    {IB_ATTR_SWITCH_INFO, sma_switch_info_get, sma_switch_info_set, true},
    {IB_ATTR_GUID_INFO, sma_guid_info_get, sma_guid_info_set, false},
    {IB_ATTR_PORT_INFO, sma_port_info_get, sma_port_info_set, false},
    {IB_ATTR_PKEY_TBL, sma_pkey_get, sma_pkey_set, false},
    {IB_ATTR_SLVL_TABLE, sma_sl2vl_get, sma_sl2vl_set, false},
    {IB_ATTR_VL_ARBITRATION, sma_vlarb_get, sma_vlarb_set, false},
    {IB_ATTR_LINEARFORWTBL, sma_lft_get, sma_lft_set, true},
    {IB_ATTR_MULTICASTFORWTBL, sma_mft_get, sma_mft_set, true},
    {IB_ATTR_MLNX_EXT_PORT_INFO, sma_mlnx_ext_port_info_get, sma_mlnx_ext_port_info_set, false},
};

/* The table entry for attr_id on this node, or NULL. */
static const struct sma_attr_entry *sma_find_attr(const struct sma *sma, unsigned attr_id)
{
    for (size_t i = 0; i < sizeof(sma_attrs) / sizeof(sma_attrs[0]); i++) {
        if (sma_attrs[i].id != attr_id)
            continue;
        if (sma_attrs[i].switch_only && !sma->is_switch)
            return NULL;
        return &sma_attrs[i];
    }
    return NULL;
}

struct sma_port *sma_end_port(struct sma *sma, unsigned in_port)
{
    if (sma->is_switch || in_port == 0 || in_port > sma->num_ports)
        return &sma->ports[sma->is_switch ? 0 : 1];
    return &sma->ports[in_port];
}

/* Default PortInfo.CapabilityMask of an end port, from what the board can do. */
static uint32_t sma_default_capmask(const struct sma *sma)
{
    const struct board_identity *id = sma->board->id;
    uint32_t cap = SMA_CAP_TRAP | SMA_CAP_SYS_IMAGE_GUID | SMA_CAP_CAPMASK2 |
                   SMA_CAP_CAPMASK_NOTICE | SMA_CAP_OTHER_LOCAL_CHANGES | SMA_CAP_DR_NOTICE;

    if (id->vl_cap > 1)
        cap |= SMA_CAP_SL_MAP;
    if (id->speed_ext_supported)
        cap |= SMA_CAP_EXT_SPEEDS;
    if (sma->is_switch)
        cap |= SMA_CAP_MFT_TOP;
    if (!sma->is_switch || id->port0_client_rereg)
        cap |= SMA_CAP_CLIENT_REREG;
    return cap;
}

/* Power-on state of one port's SMA fields. */
static void sma_init_port(struct sma *sma, unsigned port)
{
    struct sma_port *p = &sma->ports[port];
    struct board_port_status st;

    p->capmask = sma_default_capmask(sma);
    p->capmask2 = SMA_CAP2_SET_NODE_DESC;
    p->resp_time_value = 8;
    p->local_phy_errors_threshold = 8;
    p->overrun_errors_threshold = 8;
    p->alias_guid[0] = sma->board->id->port_guid[port];
    if (board_port_status(sma->board, port, &st) == 0) {
        p->last_port_state = st.port_state;
        p->last_link_downs = st.link_down_events;
    }
}

/*
 * Whether an external port's link is up (PortState past Down) when the SMA
 * starts.  A switch's ports that came up before its SMA ran changed state
 * unseen, and everything the SM wrote into the SMA (LID, master SM, M_Key)
 * is gone if the agent restarted while the ASIC kept its links: the SMA
 * starts with SwitchInfo.PortStateChange set, so the SM's next light sweep
 * turns into a heavy one that configures the switch again.
 */
static bool sma_any_link_up(const struct sma *sma)
{
    for (unsigned p = 1; p <= sma->num_ports; p++)
        if (sma->ports[p].last_port_state > BOARD_PORT_DOWN)
            return true;
    return false;
}

struct sma *sma_create(const struct board *board)
{
    struct sma *sma;

    if (!board || !board->id || !board->ops || board->id->num_ports == 0)
        return NULL;
    sma = calloc(1, sizeof(*sma));
    if (!sma)
        return NULL;
    sma->board = board;
    sma->is_switch = board->id->node_type == BOARD_NODE_SWITCH;
    sma->num_ports = board->id->num_ports;
    sma->ports = calloc(sma->num_ports + 1, sizeof(*sma->ports));
    if (!sma->ports) {
        free(sma);
        return NULL;
    }
    for (unsigned p = 0; p <= sma->num_ports; p++)
        if (sma->is_switch || p > 0)
            sma_init_port(sma, p);
    sma->port_state_change = sma->is_switch && sma_any_link_up(sma);
    memcpy(sma->node_desc, board->id->node_desc, sizeof(sma->node_desc));
    sma->system_image_guid = board->id->system_image_guid;
    sma->mft_top = 0xBFFF; /* "no multicast entries" */
    sma->next_tid = (board->id->node_guid & 0xFFFFFFFFu) << 32;
    return sma;
}

void sma_destroy(struct sma *sma)
{
    if (!sma)
        return;
    free(sma->ports);
    free(sma);
}

/* Fill *addr for a LID-routed SMP from this node to dlid. */
static void sma_lid_route(const struct sma *sma, const struct mad_addr *in, uint16_t dlid,
                          struct mad_addr *addr)
{
    unsigned ep = 0;

    if (!sma->is_switch)
        ep = in->port >= 1 && in->port <= sma->num_ports ? in->port : 1;
    memset(addr, 0, sizeof(*addr));
    addr->lid_routed = true;
    addr->port = (uint8_t)ep;
    addr->dlid = dlid;
    addr->slid = sma->ports[ep].lid;
    addr->sl = in->sl;
}

/* Fill *addr for a directed-route hop out of port. */
static void sma_dr_hop(unsigned port, struct mad_addr *addr)
{
    memset(addr, 0, sizeof(*addr));
    addr->port = (uint8_t)port;
    addr->slid = SMI_PERMISSIVE_LID;
    addr->dlid = SMI_PERMISSIVE_LID;
}

/* Turn a DR routing decision into a transmit order; returns the verdict. */
static enum mad_verdict sma_dr_transmit(struct sma *sma, enum smi_action action, unsigned port,
                                        const struct mad_addr *in, const uint8_t *mad,
                                        struct mad_addr *out_addr)
{
    struct board_port_status st;

    switch (action) {
    case SMI_FORWARD:
        /*
         * A directed-route hop needs a trained link (PortState may be Init).
         * The port the SMP came in on is up by definition.
         */
        if (port != in->port &&
            (board_port_status(sma->board, port, &st) || st.phys_state != BOARD_PHYS_LINKUP))
            break;
        sma_dr_hop(port, out_addr);
        return MAD_SEND;
    case SMI_LID_DRDLID:
        sma_lid_route(sma, in, (uint16_t)mad_get_field((void *)mad, 0, IB_DRSMP_DRDLID_F),
                      out_addr);
        return MAD_SEND;
    case SMI_LID_DRSLID:
        sma_lid_route(sma, in, (uint16_t)mad_get_field((void *)mad, 0, IB_DRSMP_DRSLID_F),
                      out_addr);
        return MAD_SEND;
    case SMI_LID_SOURCE:
        sma_lid_route(sma, in, in->slid, out_addr);
        return MAD_SEND;
    case SMI_TO_SM:
        /* For an SM on this node's management port; portzero runs none. */
        sma_dr_hop(0, out_addr);
        return MAD_SEND;
    case SMI_LOCAL:
    case SMI_DISCARD:
        break;
    }
    return MAD_DROP;
}

/* Method byte (with the response bit) of a MAD. */
static unsigned sma_method(const uint8_t *mad)
{
    return mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) |
           (mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F) << 7);
}

/* Run the attribute handler for a Get or Set; returns the MAD status. */
static uint16_t sma_dispatch(struct sma *sma, struct sma_req *req)
{
    const struct sma_attr_entry *e;

    if (req->method != IB_MAD_METHOD_GET && req->method != IB_MAD_METHOD_SET)
        return MAD_STATUS_BAD_METHOD;
    e = sma_find_attr(sma, req->attr_id);
    if (!e)
        return MAD_STATUS_BAD_METHOD_ATTR;
    if (req->method == IB_MAD_METHOD_GET)
        return e->get(sma, req);
    if (!e->set)
        return MAD_STATUS_BAD_METHOD_ATTR;
    return e->set(sma, req);
}

/*
 * Answer an SMP addressed to this node (already in out[]); returns the
 * verdict.  Counts what it drops in the statistics (a TrapRepress consumed
 * here is not a drop).
 */
static enum mad_verdict sma_answer(struct sma *sma, const struct mad_addr *in,
                                   const uint8_t *req_mad, struct mad_addr *out_addr, uint8_t *out)
{
    unsigned mgmt_class = mad_get_field(out, 0, IB_MAD_MGMTCLASS_F);
    struct sma_req req = {
        .method = (uint8_t)sma_method(out),
        .attr_id = (uint16_t)mad_get_field(out, 0, IB_MAD_ATTRID_F),
        .attr_mod = mad_get_field(out, 0, IB_MAD_ATTRMOD_F),
        .in_port = in->port,
        .ep = sma_end_port(sma, in->port),
        .in = req_mad + SMA_DATA_OFFS,
        .out = out + SMA_DATA_OFFS,
    };
    struct smi_node node = {.num_ports = sma->num_ports, .is_switch = sma->is_switch};
    enum sma_mkey_verdict mk;
    enum smi_action action;
    enum mad_verdict v;
    uint16_t status;
    unsigned port = 0;

    if (req.method & IB_MAD_RESPONSE || req.method == IB_MAD_METHOD_TRAP) {
        sma->stats.dropped++;
        return MAD_DROP; /* nobody here asked; traps go to SMs */
    }
    mk = sma_mkey_check(sma, req.ep, out, in->port, in->slid);
    if (mk == SMA_MKEY_VIOLATION) {
        sma->stats.mkey_violations++;
        return MAD_DROP;
    }
    req.hide_mkey = mk == SMA_MKEY_OK_HIDE;
    if (req.method == IB_MAD_METHOD_TRAP_REPRESS) {
        if (req.attr_id == SMA_ATTR_NOTICE)
            sma_trap_repress(sma, out);
        return MAD_DROP; /* TrapRepress is never answered */
    }
    memset(req.out, 0, SMA_DATA_SIZE);
    if (mad_get_field(out, 0, IB_MAD_CLASSVER_F) != 1)
        status = MAD_STATUS_BAD_VERSION;
    else
        status = sma_dispatch(sma, &req);

    mad_set_field(out, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE & 0x7F);
    mad_set_field(out, 0, IB_MAD_RESPONSE_F, 1);
    if (mgmt_class == IB_SMI_CLASS) {
        mad_set_field(out, 0, IB_MAD_STATUS_F, status);
        sma_lid_route(sma, in, in->slid, out_addr);
        v = MAD_SEND;
    } else {
        mad_set_field(out, 0, IB_DRSMP_STATUS_F, status);
        action = smi_dr_respond(out, &node, &port);
        /* SMI_TO_SM here is a requester on the local stack: out port 0. */
        v = sma_dr_transmit(sma, action, port, in, out, out_addr);
    }
    if (v == MAD_SEND)
        sma->stats.responses_sent++;
    else
        sma->stats.dropped++; /* no way back to the requester */
    return v;
}

enum mad_verdict sma_process(struct sma *sma, const struct mad_addr *in_addr, const uint8_t *in,
                             size_t in_len, struct mad_addr *out_addr, uint8_t out[IB_MAD_SIZE])
{
    struct smi_node node = {.num_ports = sma->num_ports, .is_switch = sma->is_switch};
    enum smi_action action;
    enum mad_verdict v;
    unsigned mgmt_class, port = 0;

    sma->stats.smps_received++;
    if (in_len < IB_MAD_SIZE || in_addr->port > sma->num_ports)
        goto drop;
    memcpy(out, in, IB_MAD_SIZE);
    if (mad_get_field(out, 0, IB_MAD_BASEVER_F) != 1)
        goto drop; /* not an IBA MAD: its layout is unknown */
    mgmt_class = mad_get_field(out, 0, IB_MAD_MGMTCLASS_F);
    if (mgmt_class == IB_SMI_DIRECT_CLASS) {
        action = smi_dr_receive(out, in_addr->port, &node, &port);
        if (action != SMI_LOCAL) {
            v = sma_dr_transmit(sma, action, port, in_addr, out, out_addr);
            if (v == MAD_SEND && action != SMI_TO_SM) {
                sma->stats.dr_forwarded++;
                return v;
            }
            goto drop; /* discarded, or for an SM that is not here */
        }
    } else if (mgmt_class != IB_SMI_CLASS) {
        goto drop;
    }
    return sma_answer(sma, in_addr, in, out_addr, out);
drop:
    sma->stats.dropped++;
    return MAD_DROP;
}

enum mad_verdict sma_poll(struct sma *sma, struct mad_addr *out_addr, uint8_t out[IB_MAD_SIZE])
{
    uint64_t now = board_now_ns(sma->board);

    sma_scan_port_states(sma);
    sma_mkey_lease_poll(sma, now);
    return sma_trap_poll(sma, now, out_addr, out);
}

uint64_t sma_next_deadline(const struct sma *sma)
{
    uint64_t next = sma_trap_next_deadline(sma);

    /* M_Key lease timers run on end ports only (sma_end_port): a switch's port 0. */
    for (unsigned p = sma->is_switch ? 0 : 1; p <= (sma->is_switch ? 0 : sma->num_ports); p++) {
        uint64_t d = sma->ports[p].lease_deadline_ns;
        if (d && d < next)
            next = d;
    }
    return next;
}

int sma_set_node_description(struct sma *sma, const char *desc)
{
    char nd[sizeof(sma->node_desc)] = {0};

    if (!desc)
        return -EINVAL;
    memcpy(nd, desc, strnlen(desc, sizeof(nd))); /* 64 bytes, NUL not required */
    if (memcmp(nd, sma->node_desc, sizeof(nd)) == 0)
        return 0;
    memcpy(sma->node_desc, nd, sizeof(nd));
    sma_trap_local_changes(sma, sma->is_switch ? 0 : 1, 0x0001);
    return 0;
}

int sma_set_capability_mask(struct sma *sma, unsigned port, uint32_t capmask, uint16_t capmask2)
{
    struct sma_port *p;

    if (port > sma->num_ports || (!sma->is_switch && port == 0) || (sma->is_switch && port))
        return -EINVAL;
    p = &sma->ports[port];
    if (p->capmask == capmask && p->capmask2 == capmask2)
        return 0;
    p->capmask = capmask;
    p->capmask2 = capmask2;
    sma_trap_local_changes(sma, port, 0);
    return 0;
}

int sma_set_system_image_guid(struct sma *sma, uint64_t guid)
{
    if (sma->system_image_guid == guid)
        return 0;
    sma->system_image_guid = guid;
    sma_trap_sys_image_guid(sma);
    return 0;
}

/*
 * Run the handler of attr_id for method (Get or Set) as the node's own
 * software does (sma_local_get/set: no M_Key check, not counted), from port
 * (0 beyond the ports); out is zeroed first.  Returns the MAD status.
 */
static unsigned sma_local_call(struct sma *sma, uint8_t method, unsigned port, unsigned attr_id,
                               uint32_t attr_mod, const uint8_t *in, uint8_t *out)
{
    struct sma_req req = {
        .method = method,
        .attr_id = (uint16_t)attr_id,
        .attr_mod = attr_mod,
        .in_port = port <= sma->num_ports ? port : 0,
        .in = in,
        .out = out,
    };

    req.ep = sma_end_port(sma, req.in_port);
    memset(out, 0, SMA_DATA_SIZE);
    return sma_dispatch(sma, &req);
}

unsigned sma_local_get(struct sma *sma, unsigned port, unsigned attr_id, uint32_t attr_mod,
                       uint8_t data[64])
{
    uint8_t in[SMA_DATA_SIZE] = {0};

    return sma_local_call(sma, IB_MAD_METHOD_GET, port, attr_id, attr_mod, in, data);
}

unsigned sma_local_set(struct sma *sma, unsigned port, unsigned attr_id, uint32_t attr_mod,
                       const uint8_t in[64], uint8_t out[64])
{
    return sma_local_call(sma, IB_MAD_METHOD_SET, port, attr_id, attr_mod, in, out);
}

uint16_t sma_lid(const struct sma *sma, unsigned port)
{
    if (port > sma->num_ports)
        return 0;
    return sma->ports[sma->is_switch ? 0 : port].lid;
}

uint16_t sma_master_sm_lid(const struct sma *sma, unsigned port)
{
    if (port > sma->num_ports)
        return 0;
    return sma->ports[sma->is_switch ? 0 : port].master_sm_lid;
}

uint32_t sma_client_reregister_count(const struct sma *sma, unsigned port)
{
    if (port > sma->num_ports)
        return 0;
    return sma->ports[sma->is_switch ? 0 : port].rereg_count;
}

const char *sma_node_description(const struct sma *sma)
{
    return sma->node_desc;
}

void sma_get_stats(const struct sma *sma, struct sma_stats *stats)
{
    *stats = sma->stats;
}

unsigned sma_traps_pending(const struct sma *sma)
{
    return sma->traps_queued;
}
