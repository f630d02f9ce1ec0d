/*
 * sma_port_info.c - PortInfo Get and Set, and link state change tracking
 * (SwitchInfo.PortStateChange, Trap 128).
 *
 * On a switch, port 0 carries the switch-wide end-port fields (M_Key, LID,
 * SM, capability masks); external ports carry link fields only.  A Set is
 * validated completely before anything is applied, so an invalid field
 * leaves the port untouched.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"

#define SMA_PI_EXT_SPEEDS_MOD 0x80000000u
#define SMA_PI_PORT_MASK 0x000000FFu

#define SMA_WIDTH_SET_SUPPORTED 255
#define SMA_SPEED_SET_SUPPORTED 15
#define SMA_SPEED_EXT_DISABLE 30
#define SMA_SPEED_EXT_SET_SUPPORTED 31

/* Everything a PortInfo Set may change, parsed and validated. */
struct sma_pi_update {
    struct board_port_config cfg;
    uint8_t port_state; /* BOARD_PORT_NOP or the requested state */
    uint8_t phys_state; /* BOARD_PHYS_NOP or the requested state */
    bool end_port;      /* the end-port fields below apply */
    struct sma_port ep; /* new end-port fields */
    uint8_t local_phy_threshold;
    uint8_t overrun_threshold;
    bool reset_pkey_violations;
};

/* Resolve the port a PortInfo SMP selects; returns false if invalid. */
static bool sma_pi_port(const struct sma *sma, const struct sma_req *req, unsigned *port)
{
    unsigned p = req->attr_mod & SMA_PI_PORT_MASK;

    if (req->attr_mod & ~(SMA_PI_PORT_MASK | SMA_PI_EXT_SPEEDS_MOD))
        return false;
    if (!sma->is_switch && p == 0)
        p = req->in_port;
    *port = p;
    if (sma->is_switch)
        return p <= sma->num_ports;
    return p >= 1 && p <= sma->num_ports;
}

/* Whether port p of this node has end-port fields (switch port 0, CA ports). */
static bool sma_pi_is_end_port(const struct sma *sma, unsigned p)
{
    return sma->is_switch ? p == 0 : true;
}

/* Whether port p has a link of its own (not the base switch port 0). */
static bool sma_pi_has_link(const struct sma *sma, unsigned p)
{
    return !sma->is_switch || p > 0;
}

/* Whether port p carries link/VL fields (ext ports, ESP0, CA ports). */
static bool sma_pi_has_vls(const struct sma *sma, unsigned p)
{
    return sma_pi_has_link(sma, p) || sma->board->id->enhanced_port0;
}

/* Fill the end-port fields of a PortInfo (switch port 0, CA port). */
static void sma_pi_fill_end_port(const struct sma_port *ep, bool hide_mkey, uint8_t *d)
{
    mad_set_field64(d, 0, IB_PORT_MKEY_F, hide_mkey ? 0 : ep->mkey);
    mad_set_field64(d, 0, IB_PORT_GID_PREFIX_F, ep->gid_prefix);
    mad_set_field(d, 0, IB_PORT_LID_F, ep->lid);
    mad_set_field(d, 0, IB_PORT_SMLID_F, ep->master_sm_lid);
    mad_set_field(d, 0, IB_PORT_CAPMASK_F, ep->capmask);
    mad_set_field(d, 0, IB_PORT_MKEY_LEASE_F, ep->mkey_lease_period);
    mad_set_field(d, 0, IB_PORT_MKEY_PROT_BITS_F, ep->mkey_protect);
    mad_set_field(d, 0, IB_PORT_LMC_F, ep->lmc);
    mad_set_field(d, 0, IB_PORT_SMSL_F, ep->master_sm_sl);
    mad_set_field(d, 0, IB_PORT_MKEY_VIOL_F, ep->mkey_violations);
    mad_set_field(d, 0, IB_PORT_QKEY_VIOL_F, ep->qkey_violations);
    mad_set_field(d, 0, IB_PORT_CLIENT_REREG_F, ep->client_rereg);
    mad_set_field(d, 0, IB_PORT_SUBN_TIMEOUT_F, ep->subnet_timeout);
    mad_set_field(d, 0, IB_PORT_RESP_TIME_VAL_F, ep->resp_time_value);
    mad_set_field(d, 0, IB_PORT_CAPMASK2_F, ep->capmask2);
}

/* Fill the link fields of port p from the board. */
static void sma_pi_fill_link(const struct sma *sma, unsigned p, uint8_t *d)
{
    const struct board_identity *id = sma->board->id;
    const struct sma_port *sp = &sma->ports[p];
    struct board_port_status st = {0};
    struct board_port_config cfg = {0};

    board_port_status(sma->board, p, &st);
    board_port_config_get(sma->board, p, &cfg);
    mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F, cfg.width_enabled);
    mad_set_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, id->width_supported);
    mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, st.width_active);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, id->speed_supported);
    mad_set_field(d, 0, IB_PORT_STATE_F, st.port_state);
    mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, st.phys_state);
    mad_set_field(d, 0, IB_PORT_LINK_DOWN_DEF_F, cfg.link_down_default);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, st.speed_active);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F, cfg.speed_enabled);
    mad_set_field(d, 0, IB_PORT_NEIGHBOR_MTU_F, cfg.neighbor_mtu);
    mad_set_field(d, 0, IB_PORT_VL_CAP_F, id->vl_cap);
    mad_set_field(d, 0, IB_PORT_VL_HIGH_LIMIT_F, cfg.vl_high_limit);
    mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_HIGH_CAP_F, id->vlarb_high_cap);
    mad_set_field(d, 0, IB_PORT_VL_ARBITRATION_LOW_CAP_F, id->vlarb_low_cap);
    mad_set_field(d, 0, IB_PORT_MTU_CAP_F, id->mtu_cap);
    mad_set_field(d, 0, IB_PORT_VL_STALL_COUNT_F, cfg.vl_stall_count);
    mad_set_field(d, 0, IB_PORT_HOQ_LIFE_F, cfg.hoq_life);
    mad_set_field(d, 0, IB_PORT_OPER_VLS_F, cfg.oper_vls);
    mad_set_field(d, 0, IB_PORT_PART_EN_INB_F, cfg.part_enf_inbound);
    mad_set_field(d, 0, IB_PORT_PART_EN_OUTB_F, cfg.part_enf_outbound);
    mad_set_field(d, 0, IB_PORT_FILTER_RAW_INB_F, cfg.filter_raw_inbound);
    mad_set_field(d, 0, IB_PORT_FILTER_RAW_OUTB_F, cfg.filter_raw_outbound);
    mad_set_field(d, 0, IB_PORT_PKEY_VIOL_F, sp->pkey_violations);
    mad_set_field(d, 0, IB_PORT_LOCAL_PHYS_ERR_F, sp->local_phy_errors_threshold);
    mad_set_field(d, 0, IB_PORT_OVERRUN_ERR_F, sp->overrun_errors_threshold);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, st.speed_ext_active);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, id->speed_ext_supported);
    mad_set_field(d, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, cfg.speed_ext_enabled);
}

/* PortInfo Get. */
uint16_t sma_port_info_get(struct sma *sma, struct sma_req *req)
{
    unsigned p;

    if (!sma_pi_port(sma, req, &p))
        return MAD_STATUS_BAD_FIELD;
    sma_pi_fill_link(sma, p, req->out);
    if (sma_pi_is_end_port(sma, p))
        sma_pi_fill_end_port(&sma->ports[p], req->hide_mkey, req->out);
    mad_set_field(req->out, 0, IB_PORT_LOCAL_PORT_F, req->in_port);
    mad_set_field(req->out, 0, IB_PORT_GUID_CAP_F,
                  sma_pi_is_end_port(sma, p) ? sma_guid_cap(sma) : 0);
    return MAD_STATUS_OK;
}

/* Resolve an "enabled" field: 0 keeps cur, all_value means supported. */
static bool sma_pi_enable(unsigned v, unsigned all_value, unsigned supported, uint8_t *cur)
{
    if (v == 0)
        return true;
    if (v == all_value) {
        *cur = (uint8_t)supported;
        return true;
    }
    if (v & ~supported)
        return false;
    *cur = (uint8_t)v;
    return true;
}

/* Validate the requested PortState against the current one. */
static bool sma_pi_port_state_ok(unsigned req, unsigned cur)
{
    switch (req) {
    case BOARD_PORT_NOP:
    case BOARD_PORT_DOWN:
        return true;
    case BOARD_PORT_ARMED:
        return cur == BOARD_PORT_INIT || cur == BOARD_PORT_ARMED;
    case BOARD_PORT_ACTIVE:
        return cur == BOARD_PORT_ARMED || cur == BOARD_PORT_ACTIVE;
    default:
        return false;
    }
}

/* Parse and validate the link fields of a Set; false on an invalid field. */
static bool sma_pi_parse_link(const struct sma *sma, unsigned p, const struct sma_req *req,
                              struct sma_pi_update *u)
{
    const struct board_identity *id = sma->board->id;
    uint8_t *in = (uint8_t *)req->in;
    struct board_port_status st = {0};
    unsigned v, mtu, phys, ldd;

    board_port_status(sma->board, p, &st);
    if (!sma_pi_enable(mad_get_field(in, 0, IB_PORT_LINK_WIDTH_ENABLED_F), SMA_WIDTH_SET_SUPPORTED,
                       id->width_supported, &u->cfg.width_enabled) ||
        !sma_pi_enable(mad_get_field(in, 0, IB_PORT_LINK_SPEED_ENABLED_F), SMA_SPEED_SET_SUPPORTED,
                       id->speed_supported, &u->cfg.speed_enabled))
        return false;
    if ((req->attr_mod & SMA_PI_EXT_SPEEDS_MOD) && id->speed_ext_supported) {
        v = mad_get_field(in, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
        if (v == SMA_SPEED_EXT_DISABLE)
            u->cfg.speed_ext_enabled = 0;
        else if (!sma_pi_enable(v, SMA_SPEED_EXT_SET_SUPPORTED, id->speed_ext_supported,
                                &u->cfg.speed_ext_enabled))
            return false;
    }
    u->port_state = (uint8_t)mad_get_field(in, 0, IB_PORT_STATE_F);
    phys = mad_get_field(in, 0, IB_PORT_PHYS_STATE_F);
    ldd = mad_get_field(in, 0, IB_PORT_LINK_DOWN_DEF_F);
    if (!sma_pi_port_state_ok(u->port_state, st.port_state) ||
        (phys != BOARD_PHYS_NOP && phys != BOARD_PHYS_POLLING && phys != BOARD_PHYS_DISABLED) ||
        ldd > BOARD_PHYS_POLLING)
        return false;
    u->phys_state = (uint8_t)phys;
    if (ldd)
        u->cfg.link_down_default = (uint8_t)ldd;
    u->local_phy_threshold = (uint8_t)mad_get_field(in, 0, IB_PORT_LOCAL_PHYS_ERR_F);
    u->overrun_threshold = (uint8_t)mad_get_field(in, 0, IB_PORT_OVERRUN_ERR_F);
    u->reset_pkey_violations = mad_get_field(in, 0, IB_PORT_PKEY_VIOL_F) == 0;
    if (id->enforcement_caps && sma->is_switch) {
        u->cfg.part_enf_inbound = mad_get_field(in, 0, IB_PORT_PART_EN_INB_F);
        u->cfg.part_enf_outbound = mad_get_field(in, 0, IB_PORT_PART_EN_OUTB_F);
        u->cfg.filter_raw_inbound = mad_get_field(in, 0, IB_PORT_FILTER_RAW_INB_F);
        u->cfg.filter_raw_outbound = mad_get_field(in, 0, IB_PORT_FILTER_RAW_OUTB_F);
    }
    mtu = mad_get_field(in, 0, IB_PORT_NEIGHBOR_MTU_F);
    if (mtu < 1 || mtu > id->mtu_cap)
        return false;
    u->cfg.neighbor_mtu = (uint8_t)mtu;
    return true;
}

/* Parse and validate the VL fields (ext ports, ESP0, CA ports). */
static bool sma_pi_parse_vls(const struct sma *sma, const struct sma_req *req,
                             struct sma_pi_update *u)
{
    uint8_t *in = (uint8_t *)req->in;
    unsigned op_vls = mad_get_field(in, 0, IB_PORT_OPER_VLS_F);

    if (op_vls > sma->board->id->vl_cap)
        return false;
    if (op_vls)
        u->cfg.oper_vls = (uint8_t)op_vls;
    u->cfg.vl_high_limit = (uint8_t)mad_get_field(in, 0, IB_PORT_VL_HIGH_LIMIT_F);
    u->cfg.hoq_life = (uint8_t)mad_get_field(in, 0, IB_PORT_HOQ_LIFE_F);
    u->cfg.vl_stall_count = (uint8_t)mad_get_field(in, 0, IB_PORT_VL_STALL_COUNT_F);
    return true;
}

/* Parse and validate the end-port fields; false on an invalid field. */
static bool sma_pi_parse_end_port(const struct sma *sma, const struct sma_req *req,
                                  struct sma_pi_update *u)
{
    uint8_t *in = (uint8_t *)req->in;
    struct sma_port *ep = &u->ep;
    unsigned lid = mad_get_field(in, 0, IB_PORT_LID_F);
    unsigned smlid = mad_get_field(in, 0, IB_PORT_SMLID_F);

    if (lid >= 0xC000 || smlid >= 0xC000)
        return false; /* multicast or permissive LIDs cannot be unicast LIDs */
    ep->mkey = mad_get_field64(in, 0, IB_PORT_MKEY_F);
    ep->gid_prefix = mad_get_field64(in, 0, IB_PORT_GID_PREFIX_F);
    ep->lid = (uint16_t)lid;
    ep->master_sm_lid = (uint16_t)smlid;
    ep->mkey_lease_period = (uint16_t)mad_get_field(in, 0, IB_PORT_MKEY_LEASE_F);
    ep->mkey_protect = (uint8_t)mad_get_field(in, 0, IB_PORT_MKEY_PROT_BITS_F);
    ep->master_sm_sl = (uint8_t)mad_get_field(in, 0, IB_PORT_SMSL_F);
    ep->subnet_timeout = (uint8_t)mad_get_field(in, 0, IB_PORT_SUBN_TIMEOUT_F);
    if (!sma->is_switch || sma->board->id->enhanced_port0)
        ep->lmc = (uint8_t)mad_get_field(in, 0, IB_PORT_LMC_F);
    if (ep->capmask & SMA_CAP_CLIENT_REREG) {
        ep->client_rereg = mad_get_field(in, 0, IB_PORT_CLIENT_REREG_F);
        ep->rereg_count += ep->client_rereg; /* the port's clients must re-register */
    }
    if (mad_get_field(in, 0, IB_PORT_MKEY_VIOL_F) == 0)
        ep->mkey_violations = 0;
    if (mad_get_field(in, 0, IB_PORT_QKEY_VIOL_F) == 0)
        ep->qkey_violations = 0;
    return true;
}

/* Whether port p's PortState is Down now. */
static bool sma_pi_is_down(const struct sma *sma, unsigned p)
{
    struct board_port_status st;

    return board_port_status(sma->board, p, &st) == 0 && st.port_state == BOARD_PORT_DOWN;
}

/* Apply a validated update to port p. */
static void sma_pi_apply(struct sma *sma, unsigned p, const struct sma_pi_update *u)
{
    struct sma_port *sp = &sma->ports[p];

    if (u->end_port) {
        bool lid_changed = sp->lid != u->ep.lid || sp->lmc != u->ep.lmc;

        *sp = u->ep;
        if (lid_changed)
            board_set_lid(sma->board, p, sp->lid, sp->lmc);
    }
    if (!sma_pi_has_vls(sma, p))
        return;
    board_port_config_set(sma->board, p, &u->cfg);
    if (!sma_pi_has_link(sma, p))
        return;
    sp->local_phy_errors_threshold = u->local_phy_threshold;
    sp->overrun_errors_threshold = u->overrun_threshold;
    if (u->reset_pkey_violations)
        sp->pkey_violations = 0;
    if (u->phys_state != BOARD_PHYS_NOP)
        board_phys_state_set(sma->board, p, u->phys_state);
    if (u->port_state == BOARD_PORT_NOP)
        return;
    /*
     * Down takes the link down even if it retrains to Init at once, so the
     * scan cannot see it: note the change here.  A port that is already
     * Down does not change state.
     */
    if (u->port_state == BOARD_PORT_DOWN && sma->is_switch && !sma_pi_is_down(sma, p))
        sma->port_state_change_pending = true;
    board_port_state_set(sma->board, p, u->port_state);
}

/* PortInfo Set: validate everything, then apply, then answer with a Get. */
uint16_t sma_port_info_set(struct sma *sma, struct sma_req *req)
{
    struct sma_pi_update u;
    unsigned p;
    bool ok = true;

    if (!sma_pi_port(sma, req, &p))
        return MAD_STATUS_BAD_FIELD;
    memset(&u, 0, sizeof(u));
    board_port_config_get(sma->board, p, &u.cfg);
    u.end_port = sma_pi_is_end_port(sma, p);
    u.ep = sma->ports[p];
    if (u.end_port)
        ok = sma_pi_parse_end_port(sma, req, &u);
    if (ok && sma_pi_has_vls(sma, p))
        ok = sma_pi_parse_vls(sma, req, &u);
    if (ok && sma_pi_has_link(sma, p))
        ok = sma_pi_parse_link(sma, p, req, &u);
    if (ok)
        sma_pi_apply(sma, p, &u);
    sma_port_info_get(sma, req);
    if (ok)
        sma_scan_port_states(sma);
    return ok ? MAD_STATUS_OK : MAD_STATUS_BAD_FIELD;
}

/* Set SwitchInfo.PortStateChange; Trap 128 when it goes from 0 to 1. */
static void sma_port_state_changed(struct sma *sma)
{
    if (sma->port_state_change)
        return;
    sma->port_state_change = true;
    sma_trap_link_state_change(sma);
}

/*
 * Whether the ports' statuses may have moved since the last scan (the
 * board's status generation, where it keeps one); notes the generation
 * this scan sees.
 */
static bool sma_ports_moved(struct sma *sma)
{
    uint64_t gen;

    if (!board_port_status_gen(sma->board, &gen)) {
        sma->scanned_gen_valid = false;
        return true;
    }
    if (sma->scanned_gen_valid && gen == sma->scanned_gen)
        return false;
    sma->scanned_gen_valid = true;
    sma->scanned_gen = gen;
    return true;
}

void sma_scan_port_states(struct sma *sma)
{
    bool changed = sma->port_state_change_pending;

    if (!sma->is_switch || (!sma_ports_moved(sma) && !changed))
        return;
    sma->port_state_change_pending = false;
    for (unsigned p = 1; p <= sma->num_ports; p++) {
        struct board_port_status st;
        uint8_t old = sma->ports[p].last_port_state;

        if (board_port_status(sma->board, p, &st))
            continue;
        sma->ports[p].last_port_state = st.port_state;
        /* Into or out of Down (Active -> Init means it went through Down). */
        if (old != st.port_state && (old == BOARD_PORT_DOWN || st.port_state == BOARD_PORT_DOWN ||
                                     st.port_state == BOARD_PORT_INIT))
            changed = true;
        /* A bounce that ended before this scan (Init -> Down -> Init). */
        if (st.link_down_events != sma->ports[p].last_link_downs)
            changed = true;
        sma->ports[p].last_link_downs = st.link_down_events;
    }
    if (changed)
        sma_port_state_changed(sma);
}
