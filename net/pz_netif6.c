/*
 * pz_netif6.c - IPv6 on the lwIP netif: its addresses at creation and the
 * table the IPoIB endpoint mirrors (see pz_netif6.h).
 */
#include "pz_netif6.h"

#include <string.h>

#include <lwip/ip6_addr.h>

#include "ipoib_ip6.h"

/* lwIP's form of a 16-byte network-order address. */
static ip6_addr_t pz_netif6_ip6_addr(const uint8_t a[16])
{
    ip6_addr_t ip;

    memset(&ip, 0, sizeof(ip));
    memcpy(ip.addr, a, 16);
    return ip;
}

/* Link-local at index 0, then the configured address; both tentative. */
int pz_netif6_setup(struct netif *netif, const struct pz_netif_config *cfg)
{
    uint8_t ll[16];
    ip6_addr_t ip;
    s8_t idx;

    netif->flags |= NETIF_FLAG_MLD6; /* the mld_mac_filter is pz_netif.c's */
    ipoib_ip6_linklocal(cfg->port_guid, ll);
    ip = pz_netif6_ip6_addr(ll);
    netif_ip6_addr_set(netif, 0, &ip);
    netif_ip6_addr_set_state(netif, 0, IP6_ADDR_TENTATIVE);
    netif_set_ip6_autoconfig_enabled(netif, 1);
    if (!cfg->ip6_prefix)
        return 0;
    ip = pz_netif6_ip6_addr(cfg->ip6_addr);
    return netif_add_ip6_address(netif, &ip, &idx) == ERR_OK ? 0 : -1;
}

/* Every valid or tentative slot of the table. */
unsigned pz_netif6_addrs(const struct netif *netif, const struct pz_netif_config *cfg,
                         struct ipoib6_addr *out, unsigned max)
{
    unsigned n = 0;

    for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES && n < max; i++) {
        u8_t state = netif_ip6_addr_state(netif, i);
        struct ipoib6_addr *a = &out[n];

        if (!ip6_addr_isvalid(state) && !ip6_addr_istentative(state))
            continue;
        memset(a, 0, sizeof(*a));
        memcpy(a->addr, netif_ip6_addr(netif, i)->addr, 16);
        a->tentative = ip6_addr_istentative(state) != 0;
        a->prefix_len =
            cfg->ip6_prefix && memcmp(a->addr, cfg->ip6_addr, 16) == 0 ? cfg->ip6_prefix : 64;
        n++;
    }
    return n;
}
