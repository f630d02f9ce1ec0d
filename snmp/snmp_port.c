/*
 * snmp_port.c - per-request port snapshots for the MIB handlers, and the
 * link rate ifHighSpeed reports.
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pma.h"
#include "sma.h"
#include "snmp_port.h"

/*
 * How long one read of a port's counters serves later requests: a round
 * trip to the ASIC per port and request made a bulkwalk of ifXTable read
 * every port 8 times (8 counter columns); within this age a walk reads each
 * port once, and its In and Out columns come from the same instant.
 */
#define SNMP_PORT_COUNTERS_TTL_NS 50000000ull

int snmp_port_init(struct pz_snmp *s)
{
    s->snaps = calloc(s->num_ports + 1, sizeof(*s->snaps));
    s->gen = 1;
    return s->snaps ? 0 : -1;
}

void snmp_port_invalidate(struct pz_snmp *s)
{
    s->gen++;
}

const struct snmp_port_snap *snmp_port_snap(struct pz_snmp *s, unsigned port)
{
    struct snmp_port_snap *ps;

    if (port < 1 || port > s->num_ports)
        return NULL;
    ps = &s->snaps[port];
    if (ps->gen == s->gen)
        return ps;
    /* Status and configuration are this request's; the counters keep their own age. */
    ps->gen = s->gen;
    memset(&ps->st, 0, sizeof(ps->st));
    memset(&ps->cfg, 0, sizeof(ps->cfg));
    ps->ok_status = board_port_status(s->p.board, port, &ps->st) == 0;
    ps->ok_config = board_port_config_get(s->p.board, port, &ps->cfg) == 0;
    return ps;
}

/*
 * Read the counters of every external port in one board access (over
 * board/sim one round trip instead of one per port: a walk of ifXTable
 * needs them all), all stamped now.  If that fails, only port's, alone.
 */
static void snmp_port_read_counters(struct pz_snmp *s, unsigned port, uint64_t now)
{
    struct pma_counters *pc = malloc(s->num_ports * sizeof(*pc));
    struct snmp_port_snap *ps = &s->snaps[port];

    if (pc && pma_port_counters64_many(s->p.pma, 1, s->num_ports, pc) == 0) {
        for (unsigned p = 1; p <= s->num_ports; p++) {
            s->snaps[p].c = pc[p - 1].total;
            s->snaps[p].ok_counters = true;
            s->snaps[p].counters_ns = now;
        }
    } else {
        struct pma_counters one;

        ps->ok_counters = pma_port_counters64(s->p.pma, port, &one) == 0;
        if (ps->ok_counters)
            ps->c = one.total;
        ps->counters_ns = now;
    }
    free(pc);
}

const struct board_port_counters *snmp_port_counters(struct pz_snmp *s, unsigned port)
{
    struct snmp_port_snap *ps;
    uint64_t now;

    if (!snmp_port_snap(s, port))
        return NULL;
    ps = &s->snaps[port];
    now = board_now_ns(s->p.board);
    if (ps->counters_gen != s->gen &&
        (!ps->ok_counters || now - ps->counters_ns >= SNMP_PORT_COUNTERS_TTL_NS))
        snmp_port_read_counters(s, port, now);
    ps->counters_gen = s->gen;
    return ps->ok_counters ? &ps->c : NULL;
}

/* Lanes of each LinkWidthActive code (0: unknown). */
static const uint8_t width_lanes[] = {[1] = 1, [2] = 4, [4] = 8, [8] = 12, [16] = 2};

/* One lane's signalling rate in kbit/s by LinkSpeedExtActive code (0: none or unknown). */
static const uint32_t ext_lane_kbps[] = {[1] = 14062500 /* FDR */, [2] = 25781250 /* EDR */};

/* One lane's signalling rate in kbit/s by LinkSpeedActive code (0: unknown). */
static const uint32_t lane_kbps[] = {
    [1] = 2500000 /* SDR */, [2] = 5000000 /* DDR */, [4] = 10000000 /* QDR */};

/* The entry of a code table for code, 0 for a code beyond it. */
#define SNMP_PORT_AT(table, code)                                                                  \
    ((unsigned)(code) < sizeof(table) / sizeof((table)[0]) ? (table)[code] : 0)

uint64_t snmp_port_signal_kbps(const struct board_port_status *st)
{
    uint64_t lane = SNMP_PORT_AT(ext_lane_kbps, st->speed_ext_active);

    if (!lane)
        lane = SNMP_PORT_AT(lane_kbps, st->speed_active);
    return SNMP_PORT_AT(width_lanes, st->width_active) * lane;
}

/*
 * Take a port down (PortPhysicalState Disabled) or up (Polling) through
 * the SMA's PortInfo Set, as ibportstate disable/enable does: the SM sees
 * the change and Trap 128 follows.  Returns 0 or -1.
 */
int snmp_port_admin_set(struct pz_snmp *s, unsigned port, bool up)
{
    uint8_t pi[64], out[64];

    if (sma_local_get(s->p.sma, 0, IB_ATTR_PORT_INFO, port, pi) != 0)
        return -1;
    /* Up on a port that is not Disabled: nothing to do (Polling would retrain it). */
    if (up && mad_get_field(pi, 0, IB_PORT_PHYS_STATE_F) != BOARD_PHYS_DISABLED)
        return 0;
    mad_set_field(pi, 0, IB_PORT_STATE_F, BOARD_PORT_NOP);
    mad_set_field(pi, 0, IB_PORT_PHYS_STATE_F, up ? BOARD_PHYS_POLLING : BOARD_PHYS_DISABLED);
    mad_set_field(pi, 0, IB_PORT_LINK_DOWN_DEF_F, 0);
    mad_set_field(pi, 0, IB_PORT_LINK_WIDTH_ENABLED_F, 0);
    mad_set_field(pi, 0, IB_PORT_LINK_SPEED_ENABLED_F, 0);
    mad_set_field(pi, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, 0);
    mad_set_field(pi, 0, IB_PORT_OPER_VLS_F, 0);
    if (sma_local_set(s->p.sma, 0, IB_ATTR_PORT_INFO, port, pi, out) != 0)
        return -1;
    snmp_port_invalidate(s);
    return 0;
}
