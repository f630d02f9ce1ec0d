/*
 * pz_ip_snmp.h - portzerod's SNMP agent (snmp/) on UDP 161 of the IP plane
 * (net/pz_udp), run on the agent loop.
 */
#ifndef PZ_IP_SNMP_H
#define PZ_IP_SNMP_H

#include <stddef.h>

#include "board.h"
#include "pz_config.h"
#include "pz_loop.h"

struct sma;
struct pma;
struct cong_monitor;
struct pz_ipplane;
struct pz_routes;
struct pz_ip_snmp;

/* What the SNMP agent reads and where it runs. */
struct pz_ip_snmp_env {
    struct pz_loop *loop;
    const struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cong_monitor *mon; /* NULL: monitor off */
    struct pz_ipplane *plane; /* the IPoIB interface row */
    struct pz_routes *routes; /* the route check (pzRouteCheck), or NULL */
};

/* Start the agent as cfg says (snmp_config, state_dir); NULL with a message in err. */
struct pz_ip_snmp *pz_ip_snmp_create(const struct pz_config *cfg, const struct pz_ip_snmp_env *env,
                                     char *err, size_t errlen);

struct reach_peer;

/*
 * Replace PORTZERO-MIB's reachability table with the peers that have a
 * verdict (reachable or unreachable; pz_snmp_set_reach: a peer whose flag
 * changed, or whose first verdict is unreachable, raises pzReachLost /
 * pzReachRegained).  arg is the struct pz_ip_snmp (NULL is fine): the
 * publish callback of traffic/pz_reach.h.
 */
void pz_ip_snmp_set_reach(void *arg, const struct reach_peer *peers, size_t n);

/* The agent inside (for the CLI's show snmp); NULL for NULL. */
struct pz_snmp *pz_ip_snmp_agent(struct pz_ip_snmp *s);

/* Stop it (state stored), unregister, free (NULL is fine). */
void pz_ip_snmp_destroy(struct pz_ip_snmp *s);

#endif
