/*
 * pz_iphost.c - pz-iphost: an emulated IP host on pzfabric.
 *
 *   pz-iphost --sockname NAME --ca CA --address A.B.C.D/PREFIX --netns NS
 *             [--gateway A.B.C.D] [--pkey P] [--ifname IF]
 *             [--ipv6] [--address6 X:Y::Z/PREFIX] [--gateway6 X:Y::Z] [-v]
 *
 * Attaches to pzfabric as the CA named CA (MADs over ibsim's client
 * protocol, the port's UD QP over NAME:dgram), runs the IPoIB endpoint of
 * ipoib/ on it, and bridges it to a TUN device IF (default ib0) inside the
 * network namespace NS, created if absent and then removed on exit.  Linux
 * tools run with `ip netns exec NS ...` reach the fabric's IPoIB addresses
 * through it: every packet crosses pzfabric's LID routes.  Prints "ready"
 * once the broadcast group is joined; SIGTERM/SIGINT stop it (exit 0).
 *
 * With --ipv6 (implied by --address6) the endpoint carries IPv6 too: the
 * interface gets fe80::<interface identifier of the port GUID>/64 (Linux's
 * own link-local generation is turned off: addrgenmode none) and the
 * --address6 address, both without DAD (Linux does none on a NOARP TUN
 * device; the endpoint answers neighbour discovery for them on the fabric).
 */
#define _GNU_SOURCE /* setns, CLONE_NEWNET */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>

#include "board_sim_dgram.h"
#include "iphost_addr6.h"
#include "ipoib.h"
#include "ipoib6.h"
#include "pz_simclient.h"

extern char **environ;

#define PORT_POLL_MS 200
#define TUN_BURST 64

/* Command-line settings. */
struct opts {
    const char *sockname;
    const char *ca;
    const char *netns;
    const char *ifname;
    uint32_t addr, netmask, gateway;
    uint16_t pkey;
    int verbose;
    bool ip6;
    bool has_addr6;
    uint8_t addr6[16];
    unsigned plen6;
    uint8_t gateway6[16];
};

/* Everything the host holds. */
struct iphost {
    struct opts o;
    struct pz_simclient *sim;
    struct board_sim_dgram *dg;
    struct ipoib *ep;
    int tun_fd;
    int ifctl_fd; /* an AF_INET socket inside the namespace, for interface ioctls */
    int sig_fd;
    struct iphost_addr6 addr6w; /* Linux's IPv6 addresses on the TUN device (--ipv6) */
    struct ipoib6_addr mirror[IPOIB6_ADDRS_MAX]; /* what the endpoint answers for */
    unsigned n_mirror;
    bool ns_created;
    bool ready_printed;
    uint64_t guid;
    uint64_t next_port_poll;
};

/* Milliseconds on the monotonic clock. */
static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One message on stderr. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    fputs("pz-iphost: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Run a command (argv[0] looked up in PATH) and wait; returns its exit status or -1. */
static int run(char *const argv[])
{
    pid_t pid;
    int st;

    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
        return -1;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Create the namespace unless it exists; returns 0 or -1. */
static int netns_prepare(struct iphost *h)
{
    char path[256];
    struct stat st;

    snprintf(path, sizeof(path), "/run/netns/%s", h->o.netns);
    if (stat(path, &st) == 0)
        return 0;
    char *argv[] = {"ip", "netns", "add", (char *)h->o.netns, NULL};
    if (run(argv) != 0) {
        say("cannot create network namespace \"%s\" (ip netns add failed)", h->o.netns);
        return -1;
    }
    h->ns_created = true;
    return 0;
}

/* Remove the namespace if we created it. */
static void netns_remove(struct iphost *h)
{
    if (!h->ns_created)
        return;
    char *argv[] = {"ip", "netns", "delete", (char *)h->o.netns, NULL};
    if (run(argv) != 0)
        say("could not remove network namespace \"%s\"", h->o.netns);
}

/* Set or clear IFF_UP (and the MTU when mtu != 0) of the TUN device; returns 0 or -1. */
static int if_set(struct iphost *h, bool up, unsigned mtu)
{
    struct ifreq ifr = {0};

    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", h->o.ifname);
    if (mtu) {
        ifr.ifr_mtu = (int)mtu;
        if (ioctl(h->ifctl_fd, SIOCSIFMTU, &ifr))
            return -1;
    }
    if (ioctl(h->ifctl_fd, SIOCGIFFLAGS, &ifr))
        return -1;
    if (up)
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    else
        ifr.ifr_flags &= ~IFF_UP;
    return ioctl(h->ifctl_fd, SIOCSIFFLAGS, &ifr);
}

/* Give the interface its address and netmask; returns 0 or -1. */
static int if_address(struct iphost *h)
{
    struct ifreq ifr = {0};
    struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", h->o.ifname);
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(h->o.addr);
    if (ioctl(h->ifctl_fd, SIOCSIFADDR, &ifr))
        return -1;
    sin->sin_addr.s_addr = htonl(h->o.netmask);
    return ioctl(h->ifctl_fd, SIOCSIFNETMASK, &ifr);
}

/* Run `ip -n NS ARGS...` (at most 8 ARGS); returns its exit status or -1. */
static int ip_ns(const struct iphost *h, const char *const args[])
{
    char *argv[16] = {"ip", "-n", (char *)h->o.netns};
    unsigned n = 3;

    for (unsigned i = 0; args[i] && n < 15; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    return run(argv);
}

/*
 * IPv6 on the interface: no address of Linux's choosing, our link-local
 * and the configured address, no DAD; again at each link up (Linux drops
 * link-local addresses when the interface goes down).  Returns 0 or -1.
 */
static int if_address6(struct iphost *h)
{
    char ll[64], text[INET6_ADDRSTRLEN];
    uint8_t addr[16];

    ipoib_ip6_linklocal(h->guid, addr);
    snprintf(ll, sizeof(ll), "%s/64", ipoib_ip6_str(addr, text));
    if (ip_ns(h, (const char *const[]){"link", "set", "dev", h->o.ifname, "addrgenmode", "none",
                                       NULL}) ||
        ip_ns(h, (const char *const[]){"-6", "addr", "replace", ll, "dev", h->o.ifname, "nodad",
                                       NULL}))
        return -1;
    if (h->o.has_addr6) {
        char g[64];
        snprintf(g, sizeof(g), "%s/%u", ipoib_ip6_str(h->o.addr6, text), h->o.plen6);
        if (ip_ns(h, (const char *const[]){"-6", "addr", "replace", g, "dev", h->o.ifname, "nodad",
                                           NULL}))
            return -1;
    }
    return 0;
}

/* Bring lo up in the namespace (tools expect it). */
static void lo_up(struct iphost *h)
{
    struct ifreq ifr = {0};

    snprintf(ifr.ifr_name, IFNAMSIZ, "lo");
    if (ioctl(h->ifctl_fd, SIOCGIFFLAGS, &ifr) == 0) {
        ifr.ifr_flags |= IFF_UP;
        ioctl(h->ifctl_fd, SIOCSIFFLAGS, &ifr);
    }
}

/*
 * Keep the global IPv6 address while the interface is down (the endpoint
 * takes it down on every rejoin; Linux would drop it, and drops the
 * link-local even so: op_link gives them back).  Runs inside the
 * namespace: /proc/sys/net is the opener's.  Returns 0 or -1.
 */
static int keep_addr_on_down(const struct iphost *h)
{
    char path[128];
    int fd, ok;

    snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/keep_addr_on_down", h->o.ifname);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        say("cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    ok = write(fd, "1\n", 2) == 2;
    close(fd);
    return ok ? 0 : -1;
}

/*
 * Follow the TUN device's IPv6 addresses with rtnetlink.  Runs inside the
 * namespace, after the device exists.  Returns 0 or -1.
 */
static int addr6_watch(struct iphost *h)
{
    struct ifreq ifr = {0};

    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", h->o.ifname);
    if (ioctl(h->ifctl_fd, SIOCGIFINDEX, &ifr) ||
        iphost_addr6_open(&h->addr6w, (unsigned)ifr.ifr_ifindex)) {
        say("cannot follow the IPv6 addresses of %s: %s", h->o.ifname, strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * Enter the namespace, create the TUN device and a socket for interface
 * ioctls there, and come back: both descriptors keep working in it.
 */
static int tun_open(struct iphost *h)
{
    char path[256];
    int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), ns;
    struct ifreq ifr = {0};
    int rc = -1;

    snprintf(path, sizeof(path), "/run/netns/%s", h->o.netns);
    ns = open(path, O_RDONLY | O_CLOEXEC);
    if (self < 0 || ns < 0 || setns(ns, CLONE_NEWNET)) {
        say("cannot enter network namespace \"%s\": %s", h->o.netns, strerror(errno));
        goto out;
    }
    h->tun_fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", h->o.ifname);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
    if (h->tun_fd < 0 || ioctl(h->tun_fd, TUNSETIFF, &ifr)) {
        say("cannot create TUN device \"%s\": %s", h->o.ifname, strerror(errno));
    } else {
        h->ifctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        rc = h->ifctl_fd < 0 || (h->o.ip6 && (keep_addr_on_down(h) || addr6_watch(h))) ? -1 : 0;
    }
    if (setns(self, CLONE_NEWNET)) {
        say("cannot return to the original network namespace: %s", strerror(errno));
        rc = -1;
    }
out:
    if (self >= 0)
        close(self);
    if (ns >= 0)
        close(ns);
    if (rc == 0 && (if_address(h) || if_set(h, false, 0))) {
        say("cannot configure %s: %s", h->o.ifname, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && h->o.ip6 && if_address6(h)) {
        say("cannot give %s its IPv6 addresses", h->o.ifname);
        rc = -1;
    }
    if (rc == 0)
        lo_up(h);
    return rc;
}

/* ops.send_dgram: post on the CA port's UD QP. */
static int op_send_dgram(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len)
{
    struct iphost *h = ctx;
    return board_sim_dgram_send(h->dg, a, buf, len);
}

/* ops.send_sa: a GMP from QP1 to the SM's QP1. */
static int op_send_sa(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl)
{
    struct iphost *h = ctx;
    (void)sl; /* ibsim's protocol carries no SL */
    return pz_simclient_send_gmp(h->sim, dlid, mad, len);
}

/* ops.deliver: one IPv4 or IPv6 packet into the namespace (TUN reads the version). */
static void op_deliver(void *ctx, const void *pkt, size_t len)
{
    struct iphost *h = ctx;
    if (write(h->tun_fd, pkt, len) < 0 && h->o.verbose)
        say("TUN write: %s", strerror(errno));
}

/* ops.set_qkey: the QP takes the group's Q_Key. */
static int op_set_qkey(void *ctx, uint32_t qkey)
{
    struct iphost *h = ctx;
    uint32_t qpn;
    return board_sim_dgram_open(h->dg, qkey, &qpn);
}

/* ops.link: the interface follows the group membership. */
static void op_link(void *ctx, bool up, unsigned mtu)
{
    struct iphost *h = ctx;

    if (if_set(h, up, up ? mtu : 0))
        say("cannot set %s %s: %s", h->o.ifname, up ? "up" : "down", strerror(errno));
    if (up && h->o.ip6 && if_address6(h))
        say("cannot give %s its IPv6 addresses", h->o.ifname);
    if (up && h->o.ip6 && !ipoib_ip6_is_unspecified(h->o.gateway6)) {
        char gw[INET6_ADDRSTRLEN];
        ipoib_ip6_str(h->o.gateway6, gw);
        ip_ns(h, (const char *const[]){"-6", "route", "replace", "default", "via", gw, "dev",
                                       h->o.ifname, NULL});
    }
    if (up && !h->ready_printed) {
        printf("ready\n");
        fflush(stdout);
        h->ready_printed = true;
    }
}

/* ops.log. */
static void op_log(void *ctx, int level, const char *msg)
{
    struct iphost *h = ctx;
    if (level <= 1 + h->o.verbose)
        say("%s", msg);
}

static const struct ipoib_ops iphost_ops = {
    .send_dgram = op_send_dgram,
    .send_sa = op_send_sa,
    .deliver = op_deliver,
    .set_qkey = op_set_qkey,
    .link = op_link,
    .log = op_log,
};

/* True if addr is among the first n of list. */
static bool addr6_listed(const struct ipoib6_addr *list, unsigned n, const uint8_t addr[16])
{
    for (unsigned i = 0; i < n; i++)
        if (memcmp(list[i].addr, addr, 16) == 0)
            return true;
    return false;
}

/*
 * Give the endpoint the addresses it answers for: our link-local and
 * --address6 always (Linux drops the link-local while the interface is
 * down; the endpoint keeps it, as before), then every other IPv6 address
 * Linux has on the device now.  Linux does no DAD on a NOARP TUN device, so
 * its addresses are usable at once.  Returns 0 or -1.
 */
static int addr6_sync(struct iphost *h, uint64_t now)
{
    struct ipoib6_addr a[IPOIB6_ADDRS_MAX], linux6[IPOIB6_ADDRS_MAX];
    unsigned n = 0;
    int n_linux =
        h->addr6w.dump_fd >= 0 ? iphost_addr6_list(&h->addr6w, linux6, IPOIB6_ADDRS_MAX) : 0;

    memset(a, 0, sizeof(a));
    ipoib_ip6_linklocal(h->guid, a[n].addr);
    a[n++].prefix_len = 64;
    if (h->o.has_addr6) {
        memcpy(a[n].addr, h->o.addr6, 16);
        a[n++].prefix_len = (uint8_t)h->o.plen6;
    }
    if (n_linux < 0)
        say("cannot list the IPv6 addresses of %s: %s", h->o.ifname, strerror(errno));
    for (int i = 0; i < n_linux && n < IPOIB6_ADDRS_MAX; i++)
        if (!addr6_listed(a, n, linux6[i].addr))
            a[n++] = linux6[i];
    if (n == h->n_mirror && memcmp(a, h->mirror, n * sizeof(a[0])) == 0)
        return 0;
    memcpy(h->mirror, a, sizeof(a));
    h->n_mirror = n;
    if (h->o.verbose > 1)
        say("IPv6: the endpoint answers for %u addresses", n);
    return ipoib6_set_addrs(h->ep, a, n, now) ? -1 : 0;
}

/* Read the port's state from the simulator and pass it on. */
static void port_poll(struct iphost *h, uint64_t now)
{
    struct ipoib_port p = {0};

    h->next_port_poll = now + PORT_POLL_MS;
    if (pz_simclient_ipoib_port(h->sim, h->guid, h->o.pkey, &p) == 0)
        ipoib_port_update(h->ep, &p, now);
}

/* Packets from the namespace to the fabric (IPv4, and IPv6 when on). */
static void tun_readable(struct iphost *h, uint64_t now)
{
    uint8_t pkt[65536];

    for (int i = 0; i < TUN_BURST; i++) {
        ssize_t n = read(h->tun_fd, pkt, sizeof(pkt));
        if (n <= 0)
            return;
        if ((pkt[0] >> 4) == 4 || ((pkt[0] >> 4) == 6 && h->o.ip6))
            ipoib_output(h->ep, pkt, (size_t)n, now);
    }
}

/* Datagrams from the fabric; returns 0, or -1 when the fabric is gone. */
static int dgram_readable(struct iphost *h, uint64_t now)
{
    uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
    struct board_dgram_addr a;
    int n;

    while ((n = board_sim_dgram_recv(h->dg, &a, buf, sizeof(buf))) != -EAGAIN) {
        if (n >= 0)
            ipoib_input(h->ep, &a, buf, (size_t)n, now);
        else if (n != -EMSGSIZE && n != -EPROTO) {
            say("datagram connection lost: %s", strerror(-n));
            return -1;
        }
    }
    return 0;
}

/* SA answers from the simulator; returns 0, or -1 when the simulator is gone. */
static int sim_readable(struct iphost *h, uint64_t now)
{
    uint8_t mad[256];
    uint16_t slid;
    uint32_t status;
    int rc;

    while ((rc = pz_simclient_recv(h->sim, mad, &slid, &status)) != -EAGAIN) {
        if (rc == 0 && status == 0)
            ipoib_input_sa(h->ep, mad, sizeof(mad), now);
        else if (rc < 0 && rc != -EPROTO) {
            say("simulator connection lost: %s", strerror(-rc));
            return -1;
        }
    }
    return 0;
}

/* The poll timeout until the next deadline (port poll or endpoint timer). */
static int poll_timeout(const struct iphost *h, uint64_t now)
{
    uint64_t d = ipoib_next_deadline(h->ep);

    if (h->next_port_poll < d)
        d = h->next_port_poll;
    return d <= now ? 0 : (int)(d - now);
}

/* The event loop; returns when a termination signal arrives. */
static void serve(struct iphost *h)
{
    for (;;) {
        uint64_t now = now_ms();
        struct pollfd pfd[5] = {{.fd = h->tun_fd, .events = POLLIN},
                                {.fd = board_sim_dgram_fd(h->dg), .events = POLLIN},
                                {.fd = pz_simclient_fd(h->sim), .events = POLLIN},
                                {.fd = h->sig_fd, .events = POLLIN},
                                {.fd = h->addr6w.event_fd, .events = POLLIN}};

        if (poll(pfd, 5, poll_timeout(h, now)) < 0 && errno != EINTR)
            return;
        now = now_ms();
        if (pfd[3].revents)
            return;
        if (pfd[1].revents && dgram_readable(h, now))
            return;
        if (pfd[2].revents && sim_readable(h, now))
            return;
        if (pfd[0].revents)
            tun_readable(h, now);
        if (pfd[4].revents && iphost_addr6_changed(&h->addr6w))
            addr6_sync(h, now);
        if (now >= h->next_port_poll)
            port_poll(h, now);
        ipoib_poll(h->ep, now);
    }
}

/* Parse A.B.C.D/PREFIX. */
static int parse_prefix(const char *s, uint32_t *addr, uint32_t *mask)
{
    char buf[32];
    char *slash, *end;
    struct in_addr in;
    long plen = 24;

    snprintf(buf, sizeof(buf), "%s", s);
    slash = strchr(buf, '/');
    if (slash) {
        *slash = '\0';
        plen = strtol(slash + 1, &end, 10);
        if (*end || plen < 1 || plen > 30)
            return -1;
    }
    if (inet_pton(AF_INET, buf, &in) != 1)
        return -1;
    *addr = ntohl(in.s_addr);
    *mask = (uint32_t)(0xffffffffu << (32 - plen));
    return (*addr & ~*mask) == 0 || (*addr | *mask) == 0xffffffffu ? -1 : 0;
}

/* Parse X:Y::Z/PREFIX (prefix 1..128, default 64, not multicast); returns 0 or -1. */
static int parse_prefix6(const char *s, uint8_t addr[16], unsigned *plen)
{
    char buf[64];
    char *slash, *end;
    long p = 64;

    snprintf(buf, sizeof(buf), "%s", s);
    slash = strchr(buf, '/');
    if (slash) {
        *slash = '\0';
        p = strtol(slash + 1, &end, 10);
        if (*end || p < 1 || p > 128)
            return -1;
    }
    if (inet_pton(AF_INET6, buf, addr) != 1 || ipoib_ip6_is_multicast(addr) ||
        ipoib_ip6_is_unspecified(addr))
        return -1;
    *plen = (unsigned)p;
    return 0;
}

/* Print usage and exit 2. */
static void usage(void)
{
    fprintf(stderr,
            "usage: pz-iphost --sockname NAME --ca CA --address A.B.C.D/PREFIX --netns NS\n"
            "                 [--gateway A.B.C.D] [--pkey P] [--ifname IF]\n"
            "                 [--ipv6] [--address6 X:Y::Z/PREFIX] [--gateway6 X:Y::Z] [-v]\n");
    exit(2);
}

/* Parse the command line into *o; exits 2 on a bad one. */
static void parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"sockname", required_argument, NULL, 's'}, {"ca", required_argument, NULL, 'c'},
        {"address", required_argument, NULL, 'a'},  {"netns", required_argument, NULL, 'n'},
        {"gateway", required_argument, NULL, 'g'},  {"pkey", required_argument, NULL, 'p'},
        {"ifname", required_argument, NULL, 'i'},   {"verbose", no_argument, NULL, 'v'},
        {"ipv6", no_argument, NULL, '6'},           {"address6", required_argument, NULL, 'A'},
        {"gateway6", required_argument, NULL, 'G'}, {NULL, 0, NULL, 0}};
    struct in_addr in;
    char *end;
    int c;

    *o = (struct opts){.sockname = getenv("IBSIM_SOCKNAME"), .ifname = "ib0", .pkey = 0xffff};
    while ((c = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            o->sockname = optarg;
            break;
        case 'c':
            o->ca = optarg;
            break;
        case 'n':
            o->netns = optarg;
            break;
        case 'i':
            o->ifname = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case '6':
            o->ip6 = true;
            break;
        case 'A':
            if (parse_prefix6(optarg, o->addr6, &o->plen6)) {
                say("bad IPv6 address \"%s\" (want X:Y::Z/PREFIX, unicast)", optarg);
                exit(2);
            }
            o->has_addr6 = o->ip6 = true;
            break;
        case 'G':
            if (inet_pton(AF_INET6, optarg, o->gateway6) != 1 ||
                ipoib_ip6_is_multicast(o->gateway6)) {
                say("bad IPv6 gateway \"%s\"", optarg);
                exit(2);
            }
            o->ip6 = true;
            break;
        case 'a':
            if (parse_prefix(optarg, &o->addr, &o->netmask)) {
                say("bad address \"%s\" (want A.B.C.D/PREFIX, a host address)", optarg);
                exit(2);
            }
            break;
        case 'g':
            if (inet_pton(AF_INET, optarg, &in) != 1) {
                say("bad gateway \"%s\"", optarg);
                exit(2);
            }
            o->gateway = ntohl(in.s_addr);
            break;
        case 'p': {
            unsigned long v = strtoul(optarg, &end, 0);
            if (*end || (v & 0x7fff) == 0 || v > 0xffff) {
                say("bad P_Key \"%s\"", optarg);
                exit(2);
            }
            o->pkey = (uint16_t)(v | 0x8000);
            break;
        }
        default:
            usage();
        }
    }
    if (optind != argc || !o->ca || !o->addr || !o->netns)
        usage();
    if (!o->sockname)
        o->sockname = "sim";
    if (strlen(o->ifname) >= IFNAMSIZ || strlen(o->netns) > 200 || strchr(o->netns, '/')) {
        say("bad interface or namespace name");
        exit(2);
    }
}

/* Attach to the fabric: MAD client, datagram stack, the node's GUID; returns 0 or -1. */
static int attach(struct iphost *h)
{
    char err[256];
    uint8_t ni[64];

    h->sim = pz_simclient_connect(h->o.sockname, h->o.ca, err, sizeof(err));
    if (!h->sim) {
        say("%s", err);
        return -1;
    }
    if (pz_simclient_nodeinfo(h->sim, ni)) {
        say("cannot read NodeInfo of \"%s\"", h->o.ca);
        return -1;
    }
    if (mad_get_field(ni, 0, IB_NODE_TYPE_F) != 1) {
        say("\"%s\" is not a CA", h->o.ca);
        return -1;
    }
    h->guid = mad_get_field64(ni, 0, IB_NODE_PORT_GUID_F);
    h->dg = board_sim_dgram_connect(h->o.sockname, h->o.ca, IPOIB_DEFAULT_QKEY, err, sizeof(err));
    if (!h->dg) {
        say("%s", err);
        return -1;
    }
    return 0;
}

/* Create the endpoint on the attached QP; returns 0 or -1. */
static int endpoint(struct iphost *h)
{
    struct ipoib_config cfg = {.pkey = h->o.pkey,
                               .qpn = board_sim_dgram_qpn(h->dg),
                               .addr = h->o.addr,
                               .netmask = h->o.netmask,
                               .gateway = h->o.gateway,
                               .tid_tag = 0x49,
                               .ip6 = h->o.ip6};

    memcpy(cfg.ip6_gateway, h->o.gateway6, 16);
    h->ep = ipoib_create(&cfg, &iphost_ops, h);
    if (!h->ep) {
        say("cannot create the IPoIB endpoint");
        return -1;
    }
    if (!h->o.ip6)
        return 0;
    return addr6_sync(h, now_ms());
}

/* Block the termination signals and read them from a signalfd. */
static int signals(struct iphost *h)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL))
        return -1;
    h->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    return h->sig_fd < 0 ? -1 : 0;
}

/* Print the counters once at exit (-v). */
static void print_stats(const struct iphost *h)
{
    const struct ipoib_stats *s = ipoib_stats(h->ep);

    say("rx %llu packets %llu bytes, tx %llu packets %llu bytes, arp rx %llu tx %llu, "
        "joins %llu, dropped rx %llu tx %llu",
        (unsigned long long)s->rx_packets, (unsigned long long)s->rx_bytes,
        (unsigned long long)s->tx_packets, (unsigned long long)s->tx_bytes,
        (unsigned long long)s->rx_arp, (unsigned long long)s->tx_arp, (unsigned long long)s->joins,
        (unsigned long long)(s->rx_dropped_short + s->rx_dropped_type + s->rx_dropped_ip +
                             s->rx_dropped_arp + s->rx_dropped_oversize + s->rx_dropped_qkey),
        (unsigned long long)(s->tx_dropped_down + s->tx_dropped_no_route +
                             s->tx_dropped_unresolved + s->tx_dropped_bad));
    if (h->o.ip6) {
        const struct ipoib6_stats *s6 = ipoib6_stats(h->ep);
        say("ipv6: rx %llu tx %llu packets, nd rx %llu tx %llu, nd dropped %llu, "
            "groups joined %llu refused %llu, dad conflicts %llu, dropped: no route %llu, "
            "not ours %llu, no group %llu",
            (unsigned long long)s6->rx_packets, (unsigned long long)s6->tx_packets,
            (unsigned long long)s6->rx_nd, (unsigned long long)s6->tx_nd,
            (unsigned long long)s6->rx_dropped_nd, (unsigned long long)s6->mcast_joins,
            (unsigned long long)s6->mcast_join_failures, (unsigned long long)s6->dad_conflicts,
            (unsigned long long)s6->tx_dropped_no_route, (unsigned long long)s6->rx_dropped_dst,
            (unsigned long long)s6->tx_dropped_mcast);
    }
}

int main(int argc, char **argv)
{
    struct iphost h = {
        .tun_fd = -1, .ifctl_fd = -1, .sig_fd = -1, .addr6w = {.event_fd = -1, .dump_fd = -1}};
    int status = 1;

    parse_args(argc, argv, &h.o);
    if (signals(&h) || attach(&h) || endpoint(&h) || netns_prepare(&h) || tun_open(&h) ||
        (h.o.ip6 && addr6_sync(&h, now_ms())))
        goto out;
    port_poll(&h, now_ms());
    serve(&h);
    if (h.o.verbose)
        print_stats(&h);
    status = 0;
out:
    if (h.tun_fd >= 0)
        close(h.tun_fd);
    if (h.ifctl_fd >= 0)
        close(h.ifctl_fd);
    iphost_addr6_close(&h.addr6w);
    netns_remove(&h);
    ipoib_destroy(h.ep);
    board_sim_dgram_close(h.dg);
    pz_simclient_close(h.sim);
    return status;
}
