/*
 * pz_netif6.h - IPv6 on the lwIP netif (pz_netif.c's helpers, not for its
 * callers): lwIP keeps the address life cycle (link-local, duplicate
 * address detection, SLAAC, MLD membership) and the IPoIB endpoint reads
 * its address table; the 20-byte link-layer address stays in the endpoint.
 */
#ifndef PZ_NETIF6_H
#define PZ_NETIF6_H

#include <lwip/netif.h>

#include "ipoib6.h"
#include "pz_netif.h"

/*
 * Core lock held, at netif_add: the IPv6 flags of the interface and its
 * addresses, fe80::<IID of cfg->port_guid> and cfg->ip6_addr, both
 * tentative (lwIP's DAD runs on them), SLAAC on.  Returns 0, or -1 when
 * lwIP refuses the configured address.
 */
int pz_netif6_setup(struct netif *netif, const struct pz_netif_config *cfg);

/*
 * Core lock held: copy lwIP's usable and tentative IPv6 addresses into out
 * (at most max; duplicated and invalid ones are left out), with the prefix
 * length of cfg->ip6_addr for that address and 64 for the others (lwIP
 * knows no prefix lengths).  Returns how many were copied.
 */
unsigned pz_netif6_addrs(const struct netif *netif, const struct pz_netif_config *cfg,
                         struct ipoib6_addr *out, unsigned max);

/*
 * Core lock held: the same addresses with their state (tentative,
 * preferred, deprecated) and, for the ones SLAAC formed (lwIP gives them
 * lifetimes; the link-local and the configured address are static), the
 * valid and preferred lifetimes left.  Returns how many were copied.
 */
unsigned pz_netif6_addr_info(const struct netif *netif, const struct pz_netif_config *cfg,
                             struct pz_netif6_addr_info *out, unsigned max);

#endif
