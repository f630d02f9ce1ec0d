/*
 * snmp_testd.c - an in-process switch (board_mem + SMA + PMA + congestion
 * monitor) served by the SNMP agent library (snmp/) on a Linux UDP socket,
 * through the same callbacks portzerod's lwIP glue uses, so that the real
 * net-snmp tools can query it.
 *
 *   snmp_testd --port N --state DIR [--config FILE] [--ports N]
 *              [--mgmt-port P] [--ctl FIFO] [--ipv6]
 *
 * Serves 127.0.0.1:N, and [::1]:N with --ipv6 (its datagrams reach the
 * agent as IPv6 peers; the agent's answers and notifications to IPv6 peers
 * leave from it).  Every port is cabled and Active, ports face CAs (so
 * the monitor can call them hot-spots).  Prints "ready" once it serves;
 * exits 0 on SIGTERM/SIGINT.  Commands, one a line, from the FIFO:
 *   add PORT COUNTER N    add N to a hardware counter (xmit_data, rcv_data,
 *                         xmit_wait, unicast_xmit_pkts, unicast_rcv_pkts,
 *                         rcv_errors, xmit_discards, symbol_errors)
 *   unplug PORT / plug PORT   pull / reconnect the cable (plug: Active again)
 *   state PORT            print "state PORT <PortState> <PhysState>"
 *   pma PORT              print "pma PORT <PortXmitData> <PortRcvData>" (64-bit)
 *   cong PORT             print "cong PORT <class> <ticks/s> <util permille>"
 *   reach LID 0|1         set the reachability table to one peer
 *   net 0 / net 1         every send fails (the IP path is down) / works again
 *   conf                  print what show snmp lists: "conf KIND|NAME|DETAIL"
 *                         per item, then "conf end"
 *   nodedesc TEXT         set the switch's NodeDescription (as the CLI does)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board_mem.h"
#include "cong_monitor.h"
#include "pma.h"
#include "pz_snmp.h"
#include "sma.h"

struct testd {
    int udp;
    int udp6;      /* [::1]:N with --ipv6, else -1 */
    bool net_down; /* "net 0": every send fails, as lwIP's without a route */
    struct board_mem *bm;
    struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cong_monitor *cong;
    struct pz_snmp *snmp;
};

/* Send callback: one datagram on the UDP socket; 0 or -1. */
static int testd_send(void *arg, const struct pz_snmp_peer *to, const void *buf, size_t len)
{
    struct testd *t = arg;
    struct sockaddr_in sin = {.sin_family = AF_INET};
    struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6};

    if (t->net_down)
        return -1;
    if (to->ipv6) {
        memcpy(sin6.sin6_addr.s6_addr, to->addr6, 16);
        sin6.sin6_port = htons(to->port);
        sin6.sin6_scope_id = to->scope;
        return t->udp6 >= 0 && sendto(t->udp6, buf, len, 0, (struct sockaddr *)&sin6,
                                      sizeof(sin6)) == (ssize_t)len
                   ? 0
                   : -1;
    }
    sin.sin_addr.s_addr = htonl(to->addr);
    sin.sin_port = htons(to->port);
    return sendto(t->udp, buf, len, 0, (struct sockaddr *)&sin, sizeof(sin)) == (ssize_t)len ? 0
                                                                                             : -1;
}

/* Bring a cabled port to Active as an SM would; 0 or a negative errno. */
static int testd_activate(struct testd *t, unsigned port)
{
    int rc = board_port_state_set(t->board, port, BOARD_PORT_ARMED);

    return rc ? rc : board_port_state_set(t->board, port, BOARD_PORT_ACTIVE);
}

/* The hardware counter called name of c, or NULL. */
static uint64_t *testd_counter(struct board_port_counters *c, const char *name)
{
    static const struct {
        const char *name;
        size_t offset;
    } map[] = {
        {"xmit_data", offsetof(struct board_port_counters, xmit_data)},
        {"rcv_data", offsetof(struct board_port_counters, rcv_data)},
        {"xmit_wait", offsetof(struct board_port_counters, xmit_wait)},
        {"unicast_xmit_pkts", offsetof(struct board_port_counters, unicast_xmit_pkts)},
        {"unicast_rcv_pkts", offsetof(struct board_port_counters, unicast_rcv_pkts)},
        {"rcv_errors", offsetof(struct board_port_counters, rcv_errors)},
        {"xmit_discards", offsetof(struct board_port_counters, xmit_discards)},
        {"symbol_errors", offsetof(struct board_port_counters, symbol_errors)},
    };

    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i].name, name) == 0)
            return (uint64_t *)((char *)c + map[i].offset);
    return NULL;
}

/* Print the configured items show snmp lists (pz_snmp_conf_items). */
static void testd_conf(struct testd *t)
{
    struct pz_snmp_conf_item items[32];
    size_t n = pz_snmp_conf_items(t->snmp, items, 32);

    for (size_t i = 0; i < n; i++)
        printf("conf %s|%s|%s\n", items[i].kind, items[i].name, items[i].detail);
    printf("conf end\n");
}

/* Run one control command line; prints answers on stdout. */
static void testd_command(struct testd *t, char *line)
{
    char cmd[32] = "", name[40] = "";
    unsigned port = 0;
    unsigned long long n = 0;
    struct board_port_status st;
    struct pma_counters pc;
    struct cong_port_view v;

    if (strcmp(line, "conf") == 0) {
        testd_conf(t);
        fflush(stdout);
        return;
    }
    if (strncmp(line, "nodedesc ", 9) == 0) {
        sma_set_node_description(t->sma, line + 9);
        return;
    }
    if (sscanf(line, "%31s %u %39s %llu", cmd, &port, name, &n) < 2)
        return;
    if (strcmp(cmd, "add") == 0) {
        struct board_port_counters *c = board_mem_counters(t->bm, port);
        uint64_t *ctr = c ? testd_counter(c, name) : NULL;

        if (ctr)
            board_mem_counter_add(t->bm, ctr, n);
    } else if (strcmp(cmd, "unplug") == 0) {
        board_mem_set_connected(t->bm, port, false);
    } else if (strcmp(cmd, "plug") == 0) {
        board_mem_set_connected(t->bm, port, true);
        testd_activate(t, port);
    } else if (strcmp(cmd, "state") == 0 && board_port_status(t->board, port, &st) == 0) {
        printf("state %u %u %u\n", port, st.port_state, st.phys_state);
    } else if (strcmp(cmd, "pma") == 0 && pma_port_counters64(t->pma, port, &pc) == 0) {
        printf("pma %u %llu %llu\n", port, (unsigned long long)pc.total.xmit_data,
               (unsigned long long)pc.total.rcv_data);
    } else if (strcmp(cmd, "cong") == 0 && cong_monitor_port(t->cong, port, &v) == 0) {
        printf("cong %u %u %llu %u\n", port, v.cls, (unsigned long long)v.last.congestion,
               v.last.util_permille);
    } else if (strcmp(cmd, "net") == 0) {
        t->net_down = port == 0;
    } else if (strcmp(cmd, "reach") == 0) {
        struct pz_snmp_reach r = {.lid = (uint16_t)port,
                                  .node_guid = 0x1234,
                                  .reachable = strcmp(name, "1") == 0,
                                  .rtt_us = 42};

        snprintf(r.name, sizeof(r.name), "switch-%u", port);
        pz_snmp_set_reach(t->snmp, &r, 1);
    }
    fflush(stdout);
}

/* Read what the FIFO holds and run its complete lines. */
static void testd_read_ctl(struct testd *t, int fd, char *buf, size_t cap, size_t *len)
{
    ssize_t n = read(fd, buf + *len, cap - 1 - *len);
    char *nl;

    if (n <= 0)
        return;
    *len += (size_t)n;
    buf[*len] = '\0';
    while ((nl = strchr(buf, '\n'))) {
        *nl = '\0';
        testd_command(t, buf);
        memmove(buf, nl + 1, *len - (size_t)(nl + 1 - buf) + 1);
        *len -= (size_t)(nl + 1 - buf);
    }
    if (*len == cap - 1)
        *len = 0; /* an overlong line: dropped */
}

/* Take one datagram from the IPv6 socket into the agent, as an IPv6 peer. */
static void testd_read_udp6(struct testd *t)
{
    uint8_t buf[65536];
    struct sockaddr_in6 from;
    socklen_t fl = sizeof(from);
    ssize_t n = recvfrom(t->udp6, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
    struct pz_snmp_peer peer = {.ipv6 = true};

    if (n < 0)
        return;
    memcpy(peer.addr6, from.sin6_addr.s6_addr, 16);
    peer.port = ntohs(from.sin6_port);
    peer.scope = from.sin6_scope_id;
    pz_snmp_input(t->snmp, &peer, buf, (size_t)n);
}

/* Take one datagram from the socket into the agent. */
static void testd_read_udp(struct testd *t)
{
    uint8_t buf[65536];
    struct sockaddr_in from;
    socklen_t fl = sizeof(from);
    ssize_t n = recvfrom(t->udp, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
    struct pz_snmp_peer peer = {0};

    if (n < 0)
        return;
    peer.addr = ntohl(from.sin_addr.s_addr);
    peer.port = ntohs(from.sin_port);
    pz_snmp_input(t->snmp, &peer, buf, (size_t)n);
}

/* Build the switch: every port cabled and Active, facing a CA. */
static int testd_switch(struct testd *t, unsigned ports)
{
    struct board_identity id;
    struct cong_monitor_config cc;

    board_mem_default_switch_identity(&id, 0x0002c90300001234ull, ports);
    t->bm = board_mem_create(&id);
    if (!t->bm)
        return -1;
    t->board = board_mem_board(t->bm);
    for (unsigned p = 1; p <= ports; p++) {
        board_mem_set_connected(t->bm, p, true);
        testd_activate(t, p);
    }
    t->sma = sma_create(t->board);
    t->pma = pma_create(t->board);
    cong_monitor_default_config(&cc);
    cc.interval_ms = 200;
    t->cong = t->pma ? cong_monitor_create(t->board, cong_monitor_read_pma, t->pma, &cc) : NULL;
    if (!t->sma || !t->pma || !t->cong)
        return -1;
    for (unsigned p = 1; p <= ports; p++)
        cong_monitor_set_peer(t->cong, p, CONG_PEER_CA);
    return 0;
}

/* Open the IPv6 UDP socket on [::1]:port (IPv6 only); 0 or -1. */
static int testd_socket6(struct testd *t, unsigned port)
{
    struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int one = 1;

    t->udp6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sin6.sin6_port = htons((uint16_t)port);
    return t->udp6 >= 0 && setsockopt(t->udp6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) == 0 &&
                   bind(t->udp6, (struct sockaddr *)&sin6, sizeof(sin6)) == 0
               ? 0
               : -1;
}

/* Open the UDP socket on 127.0.0.1:port; 0 or -1. */
static int testd_socket(struct testd *t, unsigned port)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};

    t->udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sin.sin_port = htons((uint16_t)port);
    return t->udp >= 0 && bind(t->udp, (struct sockaddr *)&sin, sizeof(sin)) == 0 ? 0 : -1;
}

/* Serve until SIGTERM/SIGINT. */
static void testd_loop(struct testd *t, int ctl, int sfd)
{
    char ctl_buf[1024];
    size_t ctl_len = 0;

    for (;;) {
        struct pollfd pfd[5] = {
            {.fd = t->udp, .events = POLLIN},  {.fd = pz_snmp_fd(t->snmp), .events = POLLIN},
            {.fd = ctl, .events = POLLIN},     {.fd = sfd, .events = POLLIN},
            {.fd = t->udp6, .events = POLLIN},
        };
        int timeout = pz_snmp_timeout_ms(t->snmp);

        if (timeout > 50)
            timeout = 50; /* the PMA and the monitor sample at least that often */
        if (poll(pfd, 5, timeout) < 0 && errno != EINTR)
            return;
        if (pfd[3].revents)
            return;
        if (pfd[0].revents & POLLIN)
            testd_read_udp(t);
        if (pfd[4].revents & POLLIN)
            testd_read_udp6(t);
        if (pfd[2].revents & POLLIN)
            testd_read_ctl(t, ctl, ctl_buf, sizeof(ctl_buf), &ctl_len);
        pma_poll(t->pma);
        cong_monitor_poll(t->cong);
        while (cong_monitor_next_event(t->cong, &(struct cong_event){0}))
            ;
        pz_snmp_process(t->snmp);
    }
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, 0, 'p'},
        {"state", required_argument, 0, 's'},
        {"config", required_argument, 0, 'c'},
        {"ports", required_argument, 0, 'n'},
        {"mgmt-port", required_argument, 0, 'm'},
        {"ctl", required_argument, 0, 'f'},
        {"ipv6", no_argument, 0, '6'},
        {0, 0, 0, 0},
    };
    struct testd t = {.udp = -1, .udp6 = -1};
    bool ipv6 = false;
    struct pz_snmp_params sp = {.send = testd_send, .send_arg = &t};
    struct pz_snmp_mgmt_if mif = {.up = true, .ipv4 = 0x0A4E0001, .mtu = 2044};
    unsigned udp_port = 0, ports = 36;
    const char *ctl_path = NULL;
    char err[256];
    sigset_t mask;
    int c, ctl = -1, sfd;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            udp_port = (unsigned)atoi(optarg);
            break;
        case 's':
            sp.state_dir = optarg;
            break;
        case 'c':
            sp.config_file = optarg;
            break;
        case 'n':
            ports = (unsigned)atoi(optarg);
            break;
        case 'm':
            sp.mgmt_port = (unsigned)atoi(optarg);
            break;
        case 'f':
            ctl_path = optarg;
            break;
        case '6':
            ipv6 = true;
            break;
        default:
            return 2;
        }
    }
    if (!udp_port || !sp.state_dir || ports < 1 || ports > 254) {
        fprintf(stderr, "usage: snmp_testd --port N --state DIR [--config FILE] [--ports N] "
                        "[--mgmt-port P] [--ctl FIFO] [--ipv6]\n");
        return 2;
    }
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    if (ctl_path)
        ctl = open(ctl_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (testd_switch(&t, ports) != 0 || testd_socket(&t, udp_port) != 0 ||
        (ipv6 && testd_socket6(&t, udp_port) != 0) || sfd < 0 || (ctl_path && ctl < 0)) {
        perror("snmp_testd: setup");
        return 1;
    }
    sp.board = t.board;
    sp.sma = t.sma;
    sp.pma = t.pma;
    sp.cong = t.cong;
    t.snmp = pz_snmp_create(&sp, err, sizeof(err));
    if (!t.snmp) {
        fprintf(stderr, "snmp_testd: %s\n", err);
        return 1;
    }
    pz_snmp_set_mgmt_if(t.snmp, &mif);
    printf("ready\n");
    fflush(stdout);
    testd_loop(&t, ctl, sfd);
    pz_snmp_destroy(t.snmp);
    cong_monitor_destroy(t.cong);
    pma_destroy(t.pma);
    sma_destroy(t.sma);
    board_mem_destroy(t.bm);
    close(t.udp);
    if (t.udp6 >= 0)
        close(t.udp6);
    return 0;
}
