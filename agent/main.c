/*
 * main.c - portzerod: the management agent behind a switch's port 0.
 *
 * Wires the modules together: configuration, the board, the SMA/PMA/CC
 * agents and the monitor, MAD I/O through libibumad, the port-0 services
 * (echo, the IP plane, the control socket), and the event loop (pz_loop)
 * they all register with.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#if defined(__SANITIZE_ADDRESS__)
#define PZ_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PZ_LEAK_CHECK 1
#endif
#endif
#ifdef PZ_LEAK_CHECK
#include <sanitizer/lsan_interface.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/mad.h>

#include "board_mem.h"
#include "board_sim.h"
#include "board_sim_dgram.h"
#include "mad_io.h"
#include "mad_router.h"
#include "pz_reach.h"
#include "pz_routes.h"
#include "pz_config.h"
#include "pz_ctl.h"
#include "pz_echo.h"
#include "cc_agent.h"
#include "pma.h"
#include "pz_log.h"
#include "pz_loop.h"
#include "pz_monitor.h"
#include "sma.h"
#ifdef PZ_HAVE_IP
#include "pz_ip.h"
#endif
#ifdef PZ_HAVE_SNMP
#include "pz_ip_snmp.h"
#endif
#ifdef PZ_HAVE_SSH
#include "pz_ip_ssh.h"
#endif

/* Link states are scanned (and SwitchInfo.PortStateChange set) this often. */
#define PZ_SCAN_NS 10000000ull
/* Datagrams taken per wake at most, so a flood of them cannot starve the MADs. */
#define PZ_DGRAM_BUDGET 64
/* MADs served per wake at most, so the other sources get their turn. */
#define PZ_MAD_BUDGET 256

/* Everything the running agent holds. */
struct pz_agent {
    struct pz_config cfg;
    struct board_identity id;
    struct board_mem *bm; /* board = mem */
    struct board_sim *bs; /* board = sim */
    struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cc_agent *cc;
    struct pz_monitor *mon; /* congestion monitor, or NULL (monitor = off) */
    struct mad_io *io;
    struct board_sim_dgram *dgram; /* board = sim: the node's port-0 stack, or NULL */
    struct pz_echo *echo;          /* the echo service, NULL without datagrams */
    struct pz_ip *ip;              /* the IP plane, or NULL */
    struct pz_ip_snmp *snmp;       /* the SNMP agent on it, or NULL */
    struct pz_ip_ssh *ssh;         /* the SSH CLI on it, or NULL */
    struct pz_ctl *ctl;            /* the control socket, or NULL */
    struct pz_routes *routes;      /* the route check over the SA client */
    struct pz_reach *reach;        /* switch-to-switch reachability, or NULL */
    uint32_t echo_qpn;             /* the echo service's QP number */
    struct pz_loop *loop;
    struct mad_router router; /* requests by class, answers by TID */
    int sigfd;
    int exit_code;         /* what main returns once the loop stops */
    uint64_t next_scan_ns; /* board time of the next sma_poll() link scan */
};

/* Print usage to f, with the configuration keys from pz_config's table. */
static void pz_usage(FILE *f)
{
    fprintf(f, "usage: portzerod [-c portzero.conf] [-o key=value]... [-v] [--check-config]\n"
               "  -c FILE         read the configuration file\n"
               "  -o KEY=VALUE    override one setting (the keys below)\n"
               "  -v              more log output (repeatable)\n"
               "  --check-config  parse the configuration, print it, and exit\n"
               "keys (portzero.conf \"key = value\" or -o KEY=VALUE):\n");
    pz_config_print_keys(f);
}

/* Apply a -o KEY=VALUE argument; returns 0 or -1 (message printed). */
static int pz_apply_override(struct pz_config *cfg, const char *arg)
{
    char key[64], err[160];
    const char *eq = strchr(arg, '=');

    if (!eq || (size_t)(eq - arg) >= sizeof(key)) {
        fprintf(stderr, "portzerod: -o expects KEY=VALUE, got '%s'\n", arg);
        return -1;
    }
    memcpy(key, arg, (size_t)(eq - arg));
    key[eq - arg] = '\0';
    if (pz_config_set(cfg, key, eq + 1, err, sizeof(err))) {
        fprintf(stderr, "portzerod: -o %s: %s\n", arg, err);
        return -1;
    }
    return 0;
}

/* Parse the command line into ag->cfg; returns 0, 1 (exit 0) or -1 (exit 2). */
static int pz_parse_args(struct pz_agent *ag, int argc, char **argv, bool *check_only)
{
    static const struct option longopts[] = {
        {"check-config", no_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char err[256];
    int c, verbose = 0;

    pz_config_defaults(&ag->cfg);
    while ((c = getopt_long(argc, argv, "c:o:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (pz_config_load(&ag->cfg, optarg, err, sizeof(err))) {
                fprintf(stderr, "portzerod: %s\n", err);
                return -1;
            }
            break;
        case 'o':
            if (pz_apply_override(&ag->cfg, optarg))
                return -1;
            break;
        case 'v':
            verbose++;
            break;
        case 'C':
            *check_only = true;
            break;
        case 'h':
            pz_usage(stdout);
            return 1;
        default:
            pz_usage(stderr);
            return -1;
        }
    }
    if (optind != argc) {
        pz_usage(stderr);
        return -1;
    }
    ag->cfg.log_level =
        ag->cfg.log_level + (unsigned)verbose > 3 ? 3 : ag->cfg.log_level + (unsigned)verbose;
    return 0;
}

/* Whether the configuration asks for the IP plane (an address, and ip not off). */
static bool pz_wants_ip(const struct pz_config *cfg)
{
    return cfg->ip && cfg->ip_address.addr;
}

/* An in-memory switch shaped by the configuration; returns 0 or -1. */
static int pz_setup_board_mem(struct pz_agent *ag)
{
    board_mem_default_switch_identity(&ag->id, ag->cfg.node_guid, ag->cfg.num_ports);
    memset(ag->id.node_desc, 0, sizeof(ag->id.node_desc)); /* 64 bytes, NUL padded */
    memcpy(ag->id.node_desc, ag->cfg.node_desc,
           strnlen(ag->cfg.node_desc, sizeof(ag->id.node_desc)));
    ag->id.enhanced_port0 = ag->cfg.enhanced_port0;
    ag->id.port0_client_rereg = pz_wants_ip(&ag->cfg);
    ag->id.lft_cap = (uint16_t)ag->cfg.lft_cap;
    ag->id.mft_cap = (uint16_t)ag->cfg.mft_cap;
    ag->bm = board_mem_create(&ag->id);
    if (!ag->bm)
        return -1;
    ag->board = board_mem_board(ag->bm);
    return 0;
}

/* A getenv() that treats unset and empty alike, with a default. */
static const char *pz_env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);

    return v && *v ? v : dflt;
}

/* The pzfabric socket name and node board = sim uses (configuration, then environment). */
static void pz_sim_names(const struct pz_config *cfg, const char **sock, const char **node)
{
    *sock = *cfg->sim_sockname ? cfg->sim_sockname : pz_env_or("IBSIM_SOCKNAME", "sim");
    *node = *cfg->sim_node ? cfg->sim_node : pz_env_or("SIM_HOST", "");
}

/* Attach to a switch of pzfabric over board/sim; returns 0 or -1. */
static int pz_setup_board_sim(struct pz_agent *ag)
{
    const char *sock, *node;
    char err[256];

    pz_sim_names(&ag->cfg, &sock, &node);
    ag->bs = board_sim_connect(sock, node, err, sizeof(err));
    if (!ag->bs) {
        pz_log(PZ_LOG_ERROR, "%s", err);
        return -1;
    }
    board_sim_set_port0_client_rereg(ag->bs, pz_wants_ip(&ag->cfg));
    ag->board = board_sim_board(ag->bs);
    ag->id = *ag->board->id;
    /* The fabric's identity wins over the configuration's. */
    snprintf(ag->cfg.node_desc, sizeof(ag->cfg.node_desc), "%.64s", ag->id.node_desc);
    ag->cfg.node_guid = ag->id.node_guid;
    ag->cfg.num_ports = ag->id.num_ports;
    return 0;
}

/*
 * board = sim: attach as the node's port-0 datagram stack over
 * "<sockname>:dgram" and give the board its dgram operations.  Returns 0,
 * or -1 with a message in err (the agent then runs without datagrams).
 */
static int pz_attach_sim_dgram(struct pz_agent *ag, char *err, size_t errlen)
{
    const char *sock, *node;

    pz_sim_names(&ag->cfg, &sock, &node);
    ag->dgram = board_sim_dgram_connect(sock, node, ag->cfg.dgram_qkey, err, errlen);
    if (!ag->dgram)
        return -1;
    board_sim_set_dgram(ag->bs, ag->dgram);
    return 0;
}

/*
 * Open the port-0 datagram QP and start the echo service on it, if the
 * configuration asks for it (auto: with board = sim).  A refusal is logged
 * as a warning: the agent runs without datagrams.  Returns 0, or -1 on OOM.
 */
static int pz_setup_dgram(struct pz_agent *ag)
{
    bool want = ag->cfg.dgram < 0 ? ag->cfg.board_sim : ag->cfg.dgram;
    uint32_t qpn = 0;
    char err[256];
    int rc;

    if (!want)
        return 0;
    if (ag->bs && pz_attach_sim_dgram(ag, err, sizeof(err))) {
        pz_log(PZ_LOG_WARN, "port-0 datagrams unavailable, running without them: %s", err);
        return 0;
    }
    if (!board_has_dgram(ag->board)) {
        pz_log(PZ_LOG_WARN, "port-0 datagrams: the board has none, running without them");
        return 0;
    }
    rc = board_dgram_open(ag->board, ag->cfg.dgram_qkey, &qpn);
    if (rc) {
        pz_log(PZ_LOG_WARN, "port-0 datagrams: cannot open the QP (%s), running without them",
               strerror(-rc));
        return 0;
    }
    ag->echo = pz_echo_create(ag->board, ag->cfg.dgram_qkey);
    if (!ag->echo)
        return -1;
    ag->echo_qpn = qpn;
    pz_log(PZ_LOG_INFO, "port-0 datagrams: QPN 0x%06x Q_Key 0x%08x (echo service on)",
           (unsigned)qpn, (unsigned)ag->cfg.dgram_qkey);
    return 0;
}

/* Send a MAD the monitor made (neighbour discovery); returns 0 or -1. */
static int pz_monitor_send(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct pz_agent *ag = arg;

    return mad_io_send(ag->io, mad, to);
}

/* Build the board and the agents from the configuration; returns 0 or -1. */
static int pz_setup_switch(struct pz_agent *ag)
{
    char err[160];

    if (ag->cfg.board_sim ? pz_setup_board_sim(ag) : pz_setup_board_mem(ag))
        return -1;
    ag->sma = sma_create(ag->board);
    ag->pma = pma_create(ag->board);
    ag->cc = cc_create(ag->board);
    if (!ag->sma || !ag->pma || !ag->cc || pz_setup_dgram(ag))
        return -1;
    if (!ag->cfg.monitor)
        return 0;
    ag->mon = pz_monitor_create(&ag->cfg, ag->board, ag->sma, ag->pma, pz_monitor_send, ag, err,
                                sizeof(err));
    if (!ag->mon)
        pz_log(PZ_LOG_ERROR, "%s", err);
    return ag->mon ? 0 : -1;
}

/* The termination signals: SIGINT and SIGTERM. */
static void pz_term_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
}

/*
 * Block the termination signals (before any thread exists, so every thread
 * inherits the mask) and return a signalfd for them, or -1.
 */
static int pz_signal_fd(void)
{
    sigset_t set;

    pz_term_signals(&set);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL))
        return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

/*
 * Start-up watcher: while the MAD transport is opening (umad2sim waits for
 * its simulator indefinitely), a termination signal ends the process here.
 * Cancelled once the event loop reads the signalfd itself.
 */
static void *pz_startup_watch(void *arg)
{
    sigset_t set;
    int sig = 0;

    (void)arg;
    pz_term_signals(&set);
    if (sigwait(&set, &sig) == 0) {
        pz_log(PZ_LOG_INFO, "terminated by signal %d while starting", sig);
        _exit(1);
    }
    return NULL;
}

/* Transmit what the SMA asked for; logs failures. */
static void pz_transmit(struct pz_agent *ag, const uint8_t *mad, const struct mad_addr *to)
{
    if (mad_io_send(ag->io, mad, to))
        pz_log(PZ_LOG_WARN, "send to lid %u port %u failed", to->dlid, to->port);
}

/* Router agent: the SMA serves the two SMI classes. */
static enum mad_verdict pz_route_sma(void *arg, const struct mad_addr *from, const uint8_t *in,
                                     struct mad_addr *to, uint8_t *out)
{
    return sma_process(arg, from, in, IB_MAD_SIZE, to, out);
}

/* Router agent: the PMA. */
static enum mad_verdict pz_route_pma(void *arg, const struct mad_addr *from, const uint8_t *in,
                                     struct mad_addr *to, uint8_t *out)
{
    return pma_process(arg, from, in, IB_MAD_SIZE, to, out);
}

/* Router agent: the Congestion Control agent. */
static enum mad_verdict pz_route_cc(void *arg, const struct mad_addr *from, const uint8_t *in,
                                    struct mad_addr *to, uint8_t *out)
{
    return cc_process(arg, from, in, IB_MAD_SIZE, to, out);
}

/* Router client: the monitor's neighbour-discovery answers. */
static void pz_route_monitor(void *arg, const uint8_t *mad)
{
    pz_monitor_take_mad(arg, mad);
}

#ifdef PZ_HAVE_IP
/* Router client: the IP plane's SA answers (joins, path queries). */
static void pz_route_ip(void *arg, const uint8_t *mad)
{
    pz_log(PZ_LOG_DEBUG, "SA answer attr 0x%04x status 0x%04x TID 0x%016llx to the IP plane",
           (unsigned)mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F),
           (unsigned)mad_get_field((void *)mad, 0, IB_MAD_STATUS_F),
           (unsigned long long)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F));
    pz_ip_take_mad(arg, mad);
}
#endif

/*
 * Who gets which MAD: the SMA, PMA and CC agent their classes' requests,
 * the monitor and the IP plane the answers to their own requests (by TID
 * tag).  Returns 0 or -1.
 */
static int pz_setup_router(struct pz_agent *ag)
{
    struct mad_router *r = &ag->router;

    mad_router_init(r);
    if (mad_router_add_agent(r, IB_SMI_CLASS, pz_route_sma, ag->sma) ||
        mad_router_add_agent(r, IB_SMI_DIRECT_CLASS, pz_route_sma, ag->sma) ||
        mad_router_add_agent(r, IB_PERFORMANCE_CLASS, pz_route_pma, ag->pma) ||
        mad_router_add_agent(r, IB_CC_CLASS, pz_route_cc, ag->cc))
        return -1;
    if (ag->mon && mad_router_add_client(r, 0, PZ_MONITOR_TID_MASK, PZ_MONITOR_TID_TAG,
                                         pz_route_monitor, ag->mon))
        return -1;
#ifdef PZ_HAVE_IP
    if (ag->ip &&
        mad_router_add_client(r, IB_SA_CLASS, PZ_IP_TID_MASK, PZ_IP_TID_TAG, pz_route_ip, ag->ip))
        return -1;
#endif
    if (ag->routes && mad_router_add_client_len(r, IB_SA_CLASS, PZ_ROUTES_TID_MASK,
                                                PZ_ROUTES_TID_TAG, pz_routes_take_mad, ag->routes))
        return -1;
    if (ag->reach && mad_router_add_client_len(r, IB_SA_CLASS, PZ_REACH_TID_MASK, PZ_REACH_TID_TAG,
                                               pz_reach_take_mad, ag->reach))
        return -1;
    return 0;
}

/* The route check's SA requests go out through the umad port. */
static int pz_routes_send_mad(void *ctx, const uint8_t *mad, const struct mad_addr *to)
{
    struct pz_agent *ag = ctx;

    return mad_io_send(ag->io, mad, to);
}

/*
 * Take what the switch recorded when an SMP request arrived (board_mad_rx):
 * the ingress port, which umad does not carry, the MAD's bytes 192-255,
 * of which umad2sim does not deliver the last 32 (a DR SMP's
 * ReturnPath[32..63]; reserved, but echoed, in a LID-routed one), and a DR
 * SMP's hop pointer.  Without a record the MAD and mad_io's guess of the
 * port stand.
 */
static void pz_take_rx_record(struct pz_agent *ag, uint8_t *mad, struct mad_addr *from)
{
    unsigned mgmt_class = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);
    struct board_mad_rx rx;

    if ((mgmt_class != IB_SMI_CLASS && mgmt_class != IB_SMI_DIRECT_CLASS) ||
        mad_get_field(mad, 0, IB_MAD_RESPONSE_F) ||
        board_mad_rx(ag->board, mad_get_field64(mad, 0, IB_MAD_TRID_F), &rx))
        return;
    from->port = rx.port;
    memcpy(mad + BOARD_MAD_TAIL_OFFS, rx.tail, BOARD_MAD_TAIL);
    if (mgmt_class == IB_SMI_DIRECT_CLASS)
        mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, rx.hop_ptr);
}

/* Whether a MAD the switch answered may have changed port 0 for the IP plane (an SMP Set). */
static bool pz_is_smp_set(const uint8_t *mad)
{
    unsigned mgmt_class = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);

    return (mgmt_class == IB_SMI_CLASS || mgmt_class == IB_SMI_DIRECT_CLASS) &&
           mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_SET;
}

/*
 * Serve the MADs waiting on the umad port (at most PZ_MAD_BUDGET: the loop
 * comes back while more wait, its descriptor staying readable).  Answers to
 * the agent's own requests go to the client that asked: the monitor's
 * neighbour discovery, the IP plane's SA requests.
 */
static void pz_serve_mads(struct pz_agent *ag)
{
    uint8_t in[IB_MAD_SIZE], out[IB_MAD_SIZE];
    struct mad_addr from, to;
    int rc = 0;

    if (ag->bs)
        board_sim_wake(ag->bs);
    for (int i = 0; i < PZ_MAD_BUDGET && (rc = mad_io_recv(ag->io, in, &from)) > 0; i++) {
        enum mad_route how;
        const uint8_t *whole;
        size_t len = mad_io_recv_whole(ag->io, &whole);

        pz_take_rx_record(ag, in, &from);
        /* a reassembled SA answer (the route check's tables) goes out whole */
        bool send = (len ? mad_router_dispatch_len(&ag->router, &from, whole, len, &to, out, &how)
                         : mad_router_dispatch(&ag->router, &from, in, &to, out, &how)) == MAD_SEND;

        if (how == MAD_ROUTED_ANSWER)
            continue; /* a client's: the monitor's or the IP plane's */
        pz_log(PZ_LOG_DEBUG,
               "SMP class 0x%02x method 0x%02x attr 0x%04x mod 0x%08x from lid %u: %s", in[1],
               in[3], (unsigned)(in[16] << 8 | in[17]),
               (unsigned)mad_get_field(in, 0, IB_MAD_ATTRMOD_F), from.slid,
               send ? "answered" : "dropped");
        if (send)
            pz_transmit(ag, out, &to);
#ifdef PZ_HAVE_IP
        if (send && ag->ip && pz_is_smp_set(in))
            pz_ip_port_changed(ag->ip);
#endif
        if (send && ag->reach && pz_is_smp_set(in))
            pz_reach_port_changed(ag->reach);
    }
    if (rc < 0)
        pz_log(PZ_LOG_WARN, "umad receive failed");
}

/* Board time of the monitor's next work, UINT64_MAX without a monitor. */
static uint64_t pz_monitor_deadline(const struct pz_agent *ag)
{
    return ag->mon ? pz_monitor_next_deadline(ag->mon) : UINT64_MAX;
}

/*
 * Loop deadline of the switch's timers: the SMA's, the PMA's, the monitor's,
 * and the next link scan (sma_poll() scans every port's link state, one
 * board access per port: every PZ_SCAN_NS or when a timer is due, never
 * after every MAD).
 */
static uint64_t pz_switch_deadline(void *arg)
{
    struct pz_agent *ag = arg;
    uint64_t next = ag->next_scan_ns, t;

    if ((t = sma_next_deadline(ag->sma)) < next)
        next = t;
    if ((t = pma_next_deadline(ag->pma)) < next)
        next = t;
    if ((t = pz_monitor_deadline(ag)) < next)
        next = t;
    return next;
}

/* Loop timer: run the SMA's, the PMA's and the monitor's timers and send the traps that are due. */
static void pz_switch_timers(void *arg, uint64_t now)
{
    struct pz_agent *ag = arg;
    uint8_t out[IB_MAD_SIZE];
    struct mad_addr to;

    (void)now;
    now = board_now_ns(ag->board);
    if (ag->bs)
        board_sim_wake(ag->bs);
    ag->next_scan_ns = now + PZ_SCAN_NS;
    if (ag->mon)
        pz_monitor_poll(ag->mon); /* before sma_poll(): it may queue notices */
    while (sma_poll(ag->sma, &to, out) == MAD_SEND)
        pz_transmit(ag, out, &to);
    /*
     * Counter accumulation and sampling only when due (every port's counters
     * cross the board: over board/sim, one request per port).
     */
    if (now >= pma_next_deadline(ag->pma))
        pma_poll(ag->pma);
}

/* Loop: MADs wait on the umad port. */
static void pz_on_mads(void *arg, int fd)
{
    (void)fd;
    pz_serve_mads(arg);
}

/* Loop: a termination signal. */
static void pz_on_signal(void *arg, int fd)
{
    struct pz_agent *ag = arg;
    struct signalfd_siginfo si;

    if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
        return;
    pz_log(PZ_LOG_INFO, "terminating on signal %u", si.ssi_signo);
    pz_loop_stop(ag->loop);
}

/* Loop: pzfabric sent port events on the board/sim connection, or closed it. */
static void pz_on_board(void *arg, int fd)
{
    struct pz_agent *ag = arg;

    (void)fd;
    if (board_sim_pump(ag->bs) >= 0)
        return;
    pz_log(PZ_LOG_ERROR, "the fabric closed the board connection");
    ag->exit_code = 1;
    pz_loop_stop(ag->loop);
}

/*
 * Loop: datagrams wait on the echo QP (at most PZ_DGRAM_BUDGET).  On a lost
 * datagram connection the service stops.
 */
static void pz_on_echo(void *arg, int fd)
{
    struct pz_agent *ag = arg;

    if (pz_echo_poll(ag->echo, PZ_DGRAM_BUDGET) != -ENOTCONN)
        return;
    pz_log(PZ_LOG_WARN, "port-0 datagrams: the fabric closed the connection, echo service off");
    pz_loop_remove_fd(ag->loop, fd);
    pz_echo_destroy(ag->echo);
    ag->echo = NULL;
}

/* Start the IP plane if an address is configured; returns 0, or -1 (message logged). */
static int pz_setup_ip(struct pz_agent *ag)
{
    if (!pz_wants_ip(&ag->cfg))
        return 0;
#ifdef PZ_HAVE_IP
    struct pz_ip_env env = {.board = ag->board, .sma = ag->sma, .io = ag->io, .loop = ag->loop};
    char err[256];

    ag->ip = pz_ip_create(&ag->cfg, &env, err, sizeof(err));
    if (!ag->ip)
        pz_log(PZ_LOG_ERROR, "ip: %s", err);
    return ag->ip ? 0 : -1;
#else
    pz_log(PZ_LOG_ERROR, "ip_address is set but portzerod was built without lwIP");
    return -1;
#endif
}

/* Create the state directory (mode 0700) if missing; returns 0 or -1 (message logged). */
static int pz_make_state_dir(const char *dir)
{
    char path[sizeof(((struct pz_config *)0)->state_dir)];

    snprintf(path, sizeof(path), "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) && errno != EEXIST)
            break;
        *p = '/';
    }
    if (mkdir(path, 0700) && errno != EEXIST) {
        pz_log(PZ_LOG_ERROR, "state_dir %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/*
 * Start the SNMP agent on the IP plane if it is configured (snmp_config,
 * snmp on, an IP plane); returns 0, or -1 (message logged).
 */
static int pz_setup_snmp(struct pz_agent *ag)
{
    if (!ag->cfg.snmp || !*ag->cfg.snmp_config)
        return 0;
#ifdef PZ_HAVE_SNMP
    struct pz_ip_snmp_env env = {.loop = ag->loop,
                                 .board = ag->board,
                                 .sma = ag->sma,
                                 .pma = ag->pma,
                                 .mon = ag->mon,
                                 .plane = pz_ip_plane(ag->ip)};
    char err[256];

    if (!ag->ip) {
        pz_log(PZ_LOG_ERROR, "snmp_config is set but there is no IP plane (ip_address)");
        return -1;
    }
    if (pz_make_state_dir(ag->cfg.state_dir))
        return -1;
    ag->snmp = pz_ip_snmp_create(&ag->cfg, &env, err, sizeof(err));
    if (!ag->snmp)
        pz_log(PZ_LOG_ERROR, "snmp: %s", err);
    return ag->snmp ? 0 : -1;
#else
    pz_log(PZ_LOG_ERROR, "snmp_config is set but portzerod was built without net-snmp or lwIP");
    return -1;
#endif
}

/*
 * Start switch-to-switch reachability (reach = on, with the echo service):
 * its SA requests go out like the route check's.  Returns 0, or -1 (message
 * logged).
 */
static int pz_setup_reach(struct pz_agent *ag)
{
    struct pz_reach_env env = {.board = ag->board,
                               .sma = ag->sma,
                               .echo = ag->echo,
                               .echo_qpn = ag->echo_qpn,
                               .echo_qkey = ag->cfg.dgram_qkey,
                               .send = pz_routes_send_mad,
                               .send_ctx = ag};
    char err[160];

    if (!ag->cfg.reach || !ag->echo)
        return 0;
#ifdef PZ_HAVE_SNMP
    env.publish = ag->snmp ? pz_ip_snmp_set_reach : NULL;
    env.publish_arg = ag->snmp;
#endif
    ag->reach = pz_reach_create(&ag->cfg, &env, err, sizeof(err));
    if (!ag->reach)
        pz_log(PZ_LOG_ERROR, "reach: %s", err);
    if (!ag->reach || pz_loop_add_timer(ag->loop, pz_reach_deadline, pz_reach_on_timer, ag->reach))
        return -1;
    return 0;
}

/* Whether a user of the SSH CLI has a key file or a password hash. */
static bool pz_ssh_has_user(const struct pz_config *cfg)
{
    return *cfg->ssh_authorized_keys || *cfg->ssh_password_hash ||
           *cfg->ssh_monitor_authorized_keys || *cfg->ssh_monitor_password_hash;
}

/*
 * Start the SSH CLI on the IP plane if a user is set up (keys or password;
 * with none, there is no login at all); returns 0, or -1 (message logged).
 */
static int pz_setup_ssh(struct pz_agent *ag)
{
    if (!ag->cfg.ssh || !pz_ssh_has_user(&ag->cfg))
        return 0;
#ifdef PZ_HAVE_SSH
    struct cli_env cli = {.board = ag->board,
                          .sma = ag->sma,
                          .pma = ag->pma,
                          .mon = ag->mon,
                          .plane = pz_ip_plane(ag->ip),
                          .routes = ag->routes,
                          .reach = ag->reach,
                          .cfg = &ag->cfg,
                          .start_ns = pz_loop_now_ns()};
    char err[256] = "";

    if (!ag->ip) {
        pz_log(PZ_LOG_ERROR, "ssh users are set up but there is no IP plane (ip_address)");
        return -1;
    }
    if (pz_make_state_dir(ag->cfg.state_dir))
        return -1;
    ag->ssh = pz_ip_ssh_create(&ag->cfg, ag->loop, &cli, err, sizeof(err));
    if (!ag->ssh)
        pz_log(PZ_LOG_ERROR, "ssh: %s", err);
    return ag->ssh ? 0 : -1;
#else
    pz_log(PZ_LOG_ERROR, "ssh users are set up but portzerod was built without the SSH server");
    return -1;
#endif
}

/* Open the control socket if one is configured; returns 0, or -1 (message logged). */
static int pz_setup_ctl(struct pz_agent *ag)
{
    struct pz_ctl_env env = {.loop = ag->loop,
                             .board = ag->board,
                             .sma = ag->sma,
                             .pma = ag->pma,
                             .mon = ag->mon,
#ifdef PZ_HAVE_IP
                             .plane = pz_ip_plane(ag->ip),
#endif
                             .routes = ag->routes,
                             .reach = ag->reach,
                             .cfg = &ag->cfg};
    char err[256];

    if (!*ag->cfg.ctl_socket)
        return 0;
    ag->ctl = pz_ctl_open(ag->cfg.ctl_socket, &env, err, sizeof(err));
    if (!ag->ctl)
        pz_log(PZ_LOG_ERROR, "%s", err);
    return ag->ctl ? 0 : -1;
}

/* Register the switch's descriptors and timers with the loop; returns 0 or -1. */
static int pz_setup_loop(struct pz_agent *ag)
{
    ag->loop = pz_loop_create();
    if (!ag->loop)
        return -1;
    if (pz_loop_add_fd(ag->loop, mad_io_fd(ag->io), pz_on_mads, ag) ||
        pz_loop_add_fd(ag->loop, ag->sigfd, pz_on_signal, ag) ||
        (ag->bs && pz_loop_add_fd(ag->loop, board_sim_fd(ag->bs), pz_on_board, ag)) ||
        pz_loop_add_timer(ag->loop, pz_switch_deadline, pz_switch_timers, ag))
        return -1;
    /*
     * A board without a datagram descriptor (board_mem) has nothing to poll;
     * its echo service has no fabric behind it either.
     */
    if (ag->echo && board_dgram_fd(ag->board) >= 0 &&
        pz_loop_add_fd(ag->loop, board_dgram_fd(ag->board), pz_on_echo, ag))
        return -1;
    ag->routes = pz_routes_create(pz_routes_send_mad, ag, ag->sma);
    if (!ag->routes)
        return -1;
    if (pz_setup_ip(ag) || pz_setup_snmp(ag) || pz_setup_reach(ag) || pz_setup_ssh(ag) ||
        pz_setup_ctl(ag))
        return -1;
    return pz_setup_router(ag);
}

/* Free everything the agent holds. */
static void pz_teardown(struct pz_agent *ag)
{
    pz_ctl_close(ag->ctl);
#ifdef PZ_HAVE_SSH
    pz_ip_ssh_destroy(ag->ssh);
#endif
#ifdef PZ_HAVE_SNMP
    pz_ip_snmp_destroy(ag->snmp);
#endif
#ifdef PZ_HAVE_IP
    pz_ip_destroy(ag->ip);
#endif
    pz_reach_destroy(ag->reach); /* its Delete goes out through the umad port */
    mad_io_close(ag->io);
    pz_routes_destroy(ag->routes);
    pz_echo_destroy(ag->echo);
    if (ag->bs)
        board_sim_set_dgram(ag->bs, NULL);
    board_sim_dgram_close(ag->dgram);
    pz_monitor_destroy(ag->mon); /* before the PMA it is attached to */
    sma_destroy(ag->sma);
    pma_destroy(ag->pma);
    cc_destroy(ag->cc);
    board_mem_destroy(ag->bm);
    board_sim_close(ag->bs);
    pz_loop_destroy(ag->loop);
    if (ag->sigfd >= 0)
        close(ag->sigfd);
}

/*
 * End the process after a clean teardown without running other libraries'
 * exit destructors: umad2sim's tears its sockets down under its own reader
 * thread, which then crashes on a MAD in flight (mad_io_umad.c).  Output is
 * flushed first; a sanitizer build still runs its leak check.
 */
static _Noreturn void pz_exit(int rc)
{
    fflush(NULL);
#ifdef PZ_LEAK_CHECK
    __lsan_do_leak_check();
#endif
    _exit(rc);
}

int main(int argc, char **argv)
{
    struct pz_agent ag = {.sigfd = -1};
    bool check_only = false;
    pthread_t watcher;
    char err[256];
    int rc = pz_parse_args(&ag, argc, argv, &check_only);

    if (rc)
        return rc > 0 ? 0 : 2;
    if (check_only) {
        pz_config_print(&ag.cfg, stdout);
        return 0;
    }
    pz_log_set_level((enum pz_log_level)ag.cfg.log_level);
    ag.sigfd = pz_signal_fd();
    if (ag.sigfd < 0) {
        pz_log(PZ_LOG_ERROR, "start-up failed");
        return 1;
    }
    if (pthread_create(&watcher, NULL, pz_startup_watch, NULL)) {
        pz_log(PZ_LOG_ERROR, "cannot start the start-up watcher");
        pz_teardown(&ag);
        return 1;
    }
    ag.io = mad_io_open(ag.cfg.ca, ag.cfg.port, err, sizeof(err));
    pthread_cancel(watcher);
    pthread_join(watcher, NULL);
    if (!ag.io) {
        pz_log(PZ_LOG_ERROR, "%s", err);
        pz_teardown(&ag);
        return 1;
    }
    /* After the umad port: with board = sim the fabric matches the two by pid. */
    if (pz_setup_switch(&ag) || pz_setup_loop(&ag)) {
        pz_log(PZ_LOG_ERROR, "start-up failed");
        pz_teardown(&ag);
        return 1;
    }
    pz_log(PZ_LOG_INFO, "serving SMPs as \"%s\" (%u ports, GUID 0x%016llx)", ag.cfg.node_desc,
           ag.cfg.num_ports, (unsigned long long)ag.cfg.node_guid);
    printf("ready\n");
    fflush(stdout);
    if (pz_loop_run(ag.loop)) {
        pz_log(PZ_LOG_ERROR, "poll: %s", strerror(errno));
        ag.exit_code = 1;
    }
    rc = ag.exit_code;
    pz_teardown(&ag);
    pz_exit(rc);
}
