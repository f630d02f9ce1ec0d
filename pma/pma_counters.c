/*
 * pma_counters.c - hardware counter reads, 64-bit software counters and the
 * per-view reset baselines every counter attribute is computed from.
 *
 * The hardware counters are free running and wrap at the board's
 * counter_bits; each read adds (new - old) modulo 2^counter_bits to a 64-bit
 * software counter.  A view's value is total - baseline; a reset moves the
 * baseline up to the total, so resets never disturb other views.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pma_internal.h"

_Static_assert(sizeof(struct board_port_counters) % sizeof(uint64_t) == 0,
               "struct board_port_counters must hold only uint64_t counters");

/* Whether port has hardware counters: switch 1..N (and 0 with ESP0), CA 1..N. */
static bool pma_port_has_counters(const struct pma *pma, unsigned port)
{
    if (port > pma->num_ports)
        return false;
    if (port == 0)
        return pma->is_switch && pma->board->id->enhanced_port0;
    return true;
}

/* Read port's hardware counters into hw[]; returns 0 or the board's error. */
static int pma_read_hw(const struct pma *pma, unsigned port, uint64_t hw[PMA_NCTR])
{
    struct board_port_counters c;
    int rc = board_port_counters(pma->board, port, &c);

    if (rc == 0)
        memcpy(hw, &c, sizeof(c));
    return rc;
}

/* Whether the hardware counters are 64 bits wide (they never wrap). */
static bool pma_hw_is_64(const struct pma *pma)
{
    return pma->hw_mask == UINT64_MAX;
}

/*
 * Give port p its counter arrays: narrow hardware two (last raw value,
 * software total), 64-bit hardware one that serves as both (total ==
 * hardware value).  Returns 0 or -ENOMEM.
 */
static int pma_port_alloc(const struct pma *pma, struct pma_port *p)
{
    bool one = pma_hw_is_64(pma);
    uint64_t *a = calloc(one ? PMA_NCTR : 2 * PMA_NCTR, sizeof(uint64_t));

    if (!a)
        return -ENOMEM;
    p->total = a;
    p->hw_last = one ? a : a + PMA_NCTR;
    return 0;
}

/* Accumulate the deltas of port's hardware reading hw since the last one. */
static void pma_take_hw(struct pma *pma, unsigned port, const uint64_t *hw)
{
    struct pma_port *p = &pma->ports[port];

    /* 64-bit hardware: a port's first read gives its arrays (starting at 0 = the hardware's 0). */
    if (!p->present || (!p->total && pma_port_alloc(pma, p)))
        return;
    for (size_t i = 0; i < PMA_NCTR; i++) {
        p->total[i] += (hw[i] - p->hw_last[i]) & pma->hw_mask;
        p->hw_last[i] = hw[i];
    }
}

/* Read one port's hardware and accumulate the deltas since the last read. */
static void pma_poll_port(struct pma *pma, unsigned port)
{
    uint64_t hw[PMA_NCTR];

    if (pma->ports[port].present && pma_read_hw(pma, port, hw) == 0)
        pma_take_hw(pma, port, hw);
}

/*
 * Read the hardware of count ports from first in one board access
 * (board_port_counters_many: over board/sim one round trip, not count)
 * and accumulate each.  If that read fails, port by port.
 */
static void pma_poll_range(struct pma *pma, unsigned first, unsigned count)
{
    struct board_port_counters *c = malloc(count * sizeof(*c));

    if (c && board_port_counters_many(pma->board, first, count, c) == 0) {
        for (unsigned i = 0; i < count; i++)
            pma_take_hw(pma, first + i, (const uint64_t *)&c[i]);
    } else {
        for (unsigned i = 0; i < count; i++)
            pma_poll_port(pma, first + i);
    }
    free(c);
}

void pma_counters_init(struct pma *pma)
{
    unsigned bits = pma->board->id->counter_bits;

    pma->hw_mask = bits == 0 || bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    for (unsigned port = 0; port <= pma->num_ports; port++) {
        struct pma_port *p = &pma->ports[port];

        p->present = pma_port_has_counters(pma, port);
        /* 64-bit hardware needs no starting point: its arrays come with the first read. */
        if (!p->present || pma_hw_is_64(pma) || pma_port_alloc(pma, p) ||
            pma_read_hw(pma, port, p->hw_last) != 0)
            continue;
        /* Software counters start where the hardware is. */
        for (size_t i = 0; i < PMA_NCTR; i++) {
            p->hw_last[i] &= pma->hw_mask;
            p->total[i] = p->hw_last[i];
        }
    }
}

void pma_refresh(struct pma *pma, unsigned port_select)
{
    if (port_select == PMA_ALL_PORTS) {
        pma_refresh_all(pma);
        return;
    }
    if (port_select <= pma->num_ports)
        pma_poll_port(pma, port_select);
}

void pma_refresh_all(struct pma *pma)
{
    /* Port 0 of a switch without enhanced port 0 has no counters: left out. */
    unsigned first = pma->ports[0].present ? 0 : 1;

    if (first <= pma->num_ports)
        pma_poll_range(pma, first, pma->num_ports + 1 - first);
}

uint16_t pma_check_port_select(const struct pma *pma, unsigned port_select)
{
    if (port_select == PMA_ALL_PORTS)
        return pma->is_switch ? MAD_STATUS_OK : MAD_STATUS_BAD_FIELD;
    return pma_port_has_counters(pma, port_select) ? MAD_STATUS_OK : MAD_STATUS_BAD_FIELD;
}

/* Software counter ctr of port p (0 before its first read). */
static uint64_t pma_total(const struct pma_port *p, size_t ctr)
{
    return p->total ? p->total[ctr] : 0;
}

/* Whether port is one of those port_select names. */
static bool pma_selected(const struct pma *pma, unsigned port_select, unsigned port)
{
    if (!pma->ports[port].present)
        return false;
    return port_select == PMA_ALL_PORTS || port_select == port;
}

uint64_t pma_view_value(const struct pma *pma, unsigned port_select, enum pma_view view, size_t ctr)
{
    uint64_t sum = 0;

    for (unsigned port = 0; port <= pma->num_ports; port++) {
        const struct pma_port *p = &pma->ports[port];

        if (pma_selected(pma, port_select, port))
            sum = gmp_sat_add(sum, pma_total(p, ctr) - (p->base[view] ? p->base[view][ctr] : 0));
    }
    return sum;
}

uint64_t pma_total_value(const struct pma *pma, unsigned port_select, size_t ctr)
{
    uint64_t sum = 0;

    for (unsigned port = 0; port <= pma->num_ports; port++)
        if (pma_selected(pma, port_select, port))
            sum = gmp_sat_add(sum, pma_total(&pma->ports[port], ctr));
    return sum;
}

void pma_view_reset(struct pma *pma, unsigned port_select, enum pma_view view, size_t ctr)
{
    for (unsigned port = 0; port <= pma->num_ports; port++) {
        struct pma_port *p = &pma->ports[port];

        if (!pma_selected(pma, port_select, port))
            continue;
        if (!p->base[view])
            p->base[view] = calloc(PMA_NCTR, sizeof(uint64_t)); /* the view's first reset */
        if (p->base[view])
            p->base[view][ctr] = pma_total(p, ctr);
    }
}

void pma_counters_free(struct pma *pma)
{
    for (unsigned port = 0; port <= pma->num_ports; port++) {
        for (unsigned v = 0; v < PMA_NVIEWS; v++)
            free(pma->ports[port].base[v]);
        free(pma->ports[port].total); /* hw_last is in the same allocation */
    }
}

int pma_port_counters64_many(struct pma *pma, unsigned first, unsigned count,
                             struct pma_counters *c)
{
    if (count == 0 || first + count > pma->num_ports + 1)
        return -EINVAL;
    for (unsigned i = 0; i < count; i++)
        if (!pma->ports[first + i].present)
            return -EINVAL;
    pma_poll_range(pma, first, count);
    for (unsigned i = 0; i < count; i++) {
        if (!pma->ports[first + i].total)
            return -ENOMEM;
        memcpy(&c[i].total, pma->ports[first + i].total, sizeof(c[i].total));
    }
    return 0;
}

int pma_port_counters64(struct pma *pma, unsigned port, struct pma_counters *c)
{
    if (port > pma->num_ports || !pma->ports[port].present)
        return -EINVAL;
    pma_poll_port(pma, port);
    if (!pma->ports[port].total)
        return -ENOMEM;
    memcpy(&c->total, pma->ports[port].total, sizeof(c->total));
    return 0;
}
