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

/* The state of slot i in the words of RFC 4862. */
static enum pz_ip6_state pz_netif6_state(const struct netif *netif, int i)
{
    u8_t state = netif_ip6_addr_state(netif, i);

    if (ip6_addr_istentative(state))
        return PZ_IP6_TENTATIVE;
    return ip6_addr_isdeprecated(state) ? PZ_IP6_DEPRECATED : PZ_IP6_PREFERRED;
}

/* A lifetime of lwIP's in seconds, or PZ_IP6_LIFE_INFINITE. */
static uint32_t pz_netif6_life(u32_t life)
{
    return ip6_addr_life_isinfinite(life) ? PZ_IP6_LIFE_INFINITE : (uint32_t)life;
}

/* Every valid or tentative slot of the table, with its state and lifetimes. */
unsigned pz_netif6_addr_info(const struct netif *netif, const struct pz_netif_config *cfg,
                             struct pz_netif6_addr_info *out, unsigned max)
{
    unsigned n = 0;

    for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES && n < max; i++) {
        u8_t state = netif_ip6_addr_state(netif, i);
        struct pz_netif6_addr_info *a = &out[n];

        if (!ip6_addr_isvalid(state) && !ip6_addr_istentative(state))
            continue;
        memset(a, 0, sizeof(*a));
        memcpy(a->addr, netif_ip6_addr(netif, i)->addr, 16);
        a->state = pz_netif6_state(netif, i);
        a->prefix_len =
            cfg->ip6_prefix && memcmp(a->addr, cfg->ip6_addr, 16) == 0 ? cfg->ip6_prefix : 64;
        a->autoconf = !netif_ip6_addr_isstatic(netif, i);
        if (a->autoconf) {
            a->valid_life = pz_netif6_life(netif_ip6_addr_valid_life(netif, i));
            a->pref_life = pz_netif6_life(netif_ip6_addr_pref_life(netif, i));
        }
        n++;
    }
    return n;
}

/* The endpoint's view of the same slots: address, prefix length, tentative. */
unsigned pz_netif6_addrs(const struct netif *netif, const struct pz_netif_config *cfg,
                         struct ipoib6_addr *out, unsigned max)
{
    struct pz_netif6_addr_info info[LWIP_IPV6_NUM_ADDRESSES];
    unsigned n = pz_netif6_addr_info(netif, cfg, info,
                                     max < LWIP_IPV6_NUM_ADDRESSES ? max : LWIP_IPV6_NUM_ADDRESSES);

    for (unsigned i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        memcpy(out[i].addr, info[i].addr, 16);
        out[i].prefix_len = info[i].prefix_len;
        out[i].tentative = info[i].state == PZ_IP6_TENTATIVE;
    }
    return n;
}
