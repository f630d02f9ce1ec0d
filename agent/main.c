/*
 * main.c - portzerod: the management agent behind a switch's port 0.
 *
 * Wiring only: the configuration, signals, the umad port (mad_io), the
 * switch (pz_switch: the board and the node/ object on it), the port-0
 * services (pz_dgram's echo, reachability, the route check, the IP plane with SNMP and SSH, the
 * control socket) and the event loop (pz_loop) they all register with; start-up order and teardown.
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

#include "mad_io.h"
#include "node.h"
#include "pz_reach.h"
#include "pz_routes.h"
#include "pz_config.h"
#include "pz_ctl.h"
#include "pz_dgram.h"
#include "pz_log.h"
#include "pz_loop.h"
#include "pz_switch.h"
#ifdef PZ_HAVE_IP
#include "pz_ip.h"
#endif
#ifdef PZ_HAVE_SNMP
#include "pz_ip_snmp.h"
#endif
#ifdef PZ_HAVE_SSH
#include "pz_ip_ssh.h"
#endif

/* Everything the running agent holds. */
struct pz_agent {
    struct pz_config cfg;
    struct mad_io *io;
    struct pz_switch *sw;      /* the board and the node on it */
    struct pz_dgram *dgram;    /* port-0 datagrams and the echo service, or NULL */
    struct pz_ip *ip;          /* the IP plane, or NULL */
    struct pz_ip_snmp *snmp;   /* the SNMP agent on it, or NULL */
    struct pz_ip_ssh *ssh;     /* the SSH CLI on it, or NULL */
    struct pz_ctl *ctl;        /* the control socket, or NULL */
    struct pz_routes *routes;  /* the route check over the SA client */
    struct pz_reach *reach;    /* switch-to-switch reachability, or NULL */
    struct cli_config cli_cfg; /* what the CLI shows of cfg */
    struct pz_loop *loop;
    int sigfd;
    int exit_code; /* what main returns once the loop stops */
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

#ifdef PZ_HAVE_IP
/* Router client: the IP plane's SA answers (joins, path queries). */
static void pz_route_ip(void *arg, const uint8_t *mad, size_t len)
{
    (void)len; /* the IPoIB endpoint's SA answers are single MADs */
    pz_log(PZ_LOG_DEBUG, "SA answer attr 0x%04x status 0x%04x TID 0x%016llx to the IP plane",
           (unsigned)mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F),
           (unsigned)mad_get_field((void *)mad, 0, IB_MAD_STATUS_F),
           (unsigned long long)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F));
    pz_ip_take_mad(arg, mad);
}
#endif

/* The switch answered an SMP Set: port 0's LID, SM or P_Key may have changed. */
static void pz_on_smp_set(void *arg)
{
    struct pz_agent *ag = arg;

#ifdef PZ_HAVE_IP
    if (ag->ip)
        pz_ip_port_changed(ag->ip);
#endif
    if (ag->reach)
        pz_reach_port_changed(ag->reach);
}

/* The route check's and reachability's SA requests go out through the umad port. */
static int pz_routes_send_mad(void *ctx, const uint8_t *mad, const struct mad_addr *to)
{
    struct pz_agent *ag = ctx;

    return mad_io_send(ag->io, mad, to);
}

/*
 * The route check over the switch's SA client: its (reassembled) SA
 * answers come back through the node's router by TID tag.  Returns 0, or
 * -1 (message logged).
 */
static int pz_setup_routes(struct pz_agent *ag)
{
    struct node *node = pz_switch_node(ag->sw);

    ag->routes = pz_routes_create(pz_routes_send_mad, ag, node_sma(node));
    if (!ag->routes || node_add_client(node, IB_SA_CLASS, PZ_ROUTES_TID_MASK, PZ_ROUTES_TID_TAG,
                                       pz_routes_take_mad, ag->routes)) {
        pz_log(PZ_LOG_ERROR, "route check: out of memory or the MAD router is full");
        return -1;
    }
    return 0;
}

/* Start the IP plane if an address is configured; returns 0, or -1 (message logged). */
static int pz_setup_ip(struct pz_agent *ag)
{
    if (!pz_config_wants_ip(&ag->cfg))
        return 0;
#ifdef PZ_HAVE_IP
    struct node *node = pz_switch_node(ag->sw);
    struct pz_ip_env env = {
        .board = node_board(node), .sma = node_sma(node), .io = ag->io, .loop = ag->loop};
    char err[256];

    ag->ip = pz_ip_create(&ag->cfg, &env, err, sizeof(err));
    if (!ag->ip) {
        pz_log(PZ_LOG_ERROR, "ip: %s", err);
        return -1;
    }
    /* Its SA answers come back through the switch's MAD port; an SMP Set may change port 0. */
    if (node_add_client(node, IB_SA_CLASS, PZ_IP_TID_MASK, PZ_IP_TID_TAG, pz_route_ip, ag->ip)) {
        pz_log(PZ_LOG_ERROR, "ip: the MAD router is full");
        return -1;
    }
    return 0;
#else
    pz_log(PZ_LOG_ERROR, "ip_address is set but portzerod was built without lwIP");
    return -1;
#endif
}

#if defined(PZ_HAVE_SNMP) || defined(PZ_HAVE_SSH)
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
 * Check what an IP service that is configured (wanted says how, for the
 * message) needs to start: an IP plane, and the state directory, created if
 * missing.  Returns 0, or -1 (message logged).
 */
static int pz_ip_service_ready(struct pz_agent *ag, const char *wanted)
{
    if (!ag->ip) {
        pz_log(PZ_LOG_ERROR, "%s but there is no IP plane (ip_address)", wanted);
        return -1;
    }
    return pz_make_state_dir(ag->cfg.state_dir);
}
#endif

/*
 * Start the SNMP agent on the IP plane if it is configured (snmp_config,
 * snmp on, an IP plane); returns 0, or -1 (message logged).
 */
static int pz_setup_snmp(struct pz_agent *ag)
{
    if (!ag->cfg.snmp || !*ag->cfg.snmp_config)
        return 0;
#ifdef PZ_HAVE_SNMP
    struct node *node = pz_switch_node(ag->sw);
    struct pz_ip_snmp_env env = {.loop = ag->loop,
                                 .board = node_board(node),
                                 .sma = node_sma(node),
                                 .pma = node_pma(node),
                                 .mon = node_cong(node),
                                 .plane = pz_ip_plane(ag->ip),
                                 .routes = ag->routes};
    char err[256];

    if (pz_ip_service_ready(ag, "snmp_config is set"))
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

/* The SNMP agent the CLI's show snmp reads, or NULL. */
static struct pz_snmp *pz_agent_snmp(struct pz_agent *ag)
{
#ifdef PZ_HAVE_SNMP
    return pz_ip_snmp_agent(ag->snmp);
#else
    (void)ag;
    return NULL;
#endif
}

/* Reachability's log lines, at the agent's levels. */
static void pz_reach_log_line(void *arg, enum pz_reach_log_level level, const char *msg)
{
    (void)arg;
    pz_log(level == PZ_REACH_LOG_WARN   ? PZ_LOG_WARN
           : level == PZ_REACH_LOG_INFO ? PZ_LOG_INFO
                                        : PZ_LOG_DEBUG,
           "%s", msg);
}

/*
 * Start switch-to-switch reachability (reach = on, with the echo service):
 * its SA requests go out like the route check's, its SA answers come back
 * by its tag, its timer runs on the loop.  Returns 0, or -1 (message
 * logged).
 */
static int pz_setup_reach(struct pz_agent *ag)
{
    struct node *node = pz_switch_node(ag->sw);
    struct pz_reach_env env = {.board = node_board(node),
                               .sma = node_sma(node),
                               .echo_qkey = ag->cfg.dgram_qkey,
                               .send = pz_routes_send_mad,
                               .send_ctx = ag,
                               .log = pz_reach_log_line};
    struct pz_reach_config rc = {.interval_ms = ag->cfg.reach_interval_ms,
                                 .timeout_ms = ag->cfg.reach_timeout_ms,
                                 .lost_after = ag->cfg.reach_lost_after,
                                 .refresh_s = ag->cfg.reach_refresh_s,
                                 .lease_s = ag->cfg.reach_lease_s,
                                 .lost_keep_s = ag->cfg.reach_lost_keep_s};
    char err[160];

    env.echo = pz_dgram_echo(ag->dgram, &env.echo_qpn);
    if (!ag->cfg.reach || !env.echo)
        return 0;
#ifdef PZ_HAVE_SNMP
    env.publish = ag->snmp ? pz_ip_snmp_set_reach : NULL;
    env.publish_arg = ag->snmp;
#endif
    ag->reach = pz_reach_create(&rc, &env, err, sizeof(err));
    if (!ag->reach) {
        pz_log(PZ_LOG_ERROR, "reach: %s", err);
        return -1;
    }
    if (node_add_client(node, IB_SA_CLASS, PZ_REACH_TID_MASK, PZ_REACH_TID_TAG, pz_reach_take_mad,
                        ag->reach) ||
        pz_loop_add_timer(ag->loop, pz_reach_deadline, pz_reach_on_timer, ag->reach)) {
        pz_log(PZ_LOG_ERROR, "reach: the MAD router or the event loop is full");
        return -1;
    }
    return 0;
}

/* Whether a user of the SSH CLI has a key file or a password hash. */
static bool pz_ssh_has_user(const struct pz_config *cfg)
{
    return *cfg->ssh_authorized_keys || *cfg->ssh_password_hash ||
           *cfg->ssh_monitor_authorized_keys || *cfg->ssh_monitor_password_hash;
}

/* What the CLI's commands read (the control socket's and the SSH sessions'), started now. */
static struct cli_env pz_cli_env(struct pz_agent *ag)
{
    struct node *node = pz_switch_node(ag->sw);

    ag->cli_cfg = (struct cli_config){.ip_address = ag->cfg.ip_address.addr,
                                      .prefix_len = ag->cfg.ip_address.prefix_len,
                                      .ip_gateway = ag->cfg.ip_gateway.addr,
                                      .ipoib_pkey = ag->cfg.ipoib_pkey,
                                      .ip6 = ag->cfg.ip6,
                                      .has_ip6_gateway = ag->cfg.ip6_gateway.prefix_len != 0};
    memcpy(ag->cli_cfg.ip6_gateway, ag->cfg.ip6_gateway.addr, sizeof(ag->cli_cfg.ip6_gateway));
    return (struct cli_env){.board = node_board(node),
                            .sma = node_sma(node),
                            .pma = node_pma(node),
                            .mon = node_cong(node),
#ifdef PZ_HAVE_IP
                            .plane = pz_ip_plane(ag->ip),
#endif
                            .snmp = pz_agent_snmp(ag),
                            .routes = ag->routes,
                            .reach = ag->reach,
                            .cfg = &ag->cli_cfg,
                            .log_recent = pz_log_recent_cli,
                            .start_ns = pz_loop_now_ns()};
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
    struct cli_env cli = pz_cli_env(ag);
    char err[256] = "";

    if (pz_ip_service_ready(ag, "ssh users are set up"))
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
    struct cli_env cli;
    char err[256];

    if (!*ag->cfg.ctl_socket)
        return 0;
    cli = pz_cli_env(ag);
    struct pz_ctl_env env = {.loop = ag->loop, .cli = &cli};
    ag->ctl = pz_ctl_open(ag->cfg.ctl_socket, &env, err, sizeof(err));
    if (!ag->ctl)
        pz_log(PZ_LOG_ERROR, "%s", err);
    return ag->ctl ? 0 : -1;
}

/*
 * The loop, the switch (board and node) and the services on it, in this
 * order (the services read the switch); returns 0 or -1 (message logged).
 */
static int pz_start(struct pz_agent *ag)
{
    struct pz_switch_env env = {.io = ag->io, .exit_code = &ag->exit_code};

    ag->loop = pz_loop_create();
    if (!ag->loop || pz_loop_add_fd(ag->loop, ag->sigfd, pz_on_signal, ag))
        return -1;
    pz_loop_set_busy_poll(ag->loop, (uint64_t)ag->cfg.busy_poll_us * 1000u);
    if (ag->cfg.busy_poll_us)
        pz_log(PZ_LOG_INFO, "busy polling %u us after input", ag->cfg.busy_poll_us);
    env.loop = ag->loop;
    ag->sw = pz_switch_create(&ag->cfg, &env);
    if (!ag->sw)
        return -1;
    ag->io = pz_switch_io(ag->sw); /* the umad port, or the board/sim connection's MADs */
    if (pz_dgram_start(&ag->cfg, ag->sw, ag->loop, &ag->dgram))
        return -1;
    if (pz_setup_routes(ag))
        return -1;
    pz_switch_on_smp_set(ag->sw, pz_on_smp_set, ag);
    return pz_setup_ip(ag) || pz_setup_snmp(ag) || pz_setup_reach(ag) || pz_setup_ssh(ag) ||
                   pz_setup_ctl(ag)
               ? -1
               : 0;
}

/* Free everything the agent holds, the services before the switch they read. */
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
    if (ag->reach)
        pz_loop_remove_timers(ag->loop, ag->reach);
    pz_reach_destroy(ag->reach); /* its Delete goes out through the MAD port */
    if (!pz_config_mads_over_board(&ag->cfg))
        mad_io_close(ag->io); /* the board/sim one is the switch's */
    pz_routes_destroy(ag->routes);
    pz_dgram_stop(ag->dgram);
    pz_switch_destroy(ag->sw);
    pz_loop_destroy(ag->loop);
    if (ag->sigfd >= 0)
        close(ag->sigfd);
}

/*
 * End the process after a clean teardown without running other libraries'
 * exit destructors: umad2sim's tears its sockets down under its own reader
 * thread, which then crashes on a MAD in flight (mad/mad_io_umad.c).  Output is
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
    /* MADs over board/sim open with the board (pz_switch_create). */
    if (!pz_config_mads_over_board(&ag.cfg))
        ag.io = mad_io_open(ag.cfg.ca, ag.cfg.port, err, sizeof(err));
    pthread_cancel(watcher);
    pthread_join(watcher, NULL);
    if (!ag.io && !pz_config_mads_over_board(&ag.cfg)) {
        pz_log(PZ_LOG_ERROR, "%s", err);
        pz_teardown(&ag);
        return 1;
    }
    /* After the umad port: with board = sim the fabric matches the two by pid. */
    if (pz_start(&ag)) {
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
