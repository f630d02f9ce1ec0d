/*
 * main.c - pzfabric: an emulated InfiniBand fabric that speaks ibsim's
 * client protocol, its switches and CAs answered by portzero's SMA.
 *
 *   pzfabric [--sockname NAME] [--agent SWITCH]... [--pcap FILE [--pcap-format pcap|erf]]
 *            [--monitor-interval MS] [-v] TOPOLOGY
 *
 * Prints "ready" on stdout once clients may attach; exits 0 on SIGTERM or
 * SIGINT, 2 on bad arguments or a bad topology, 1 on other failures.
 */
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric.h"
#include "fabric_repath.h"
#include "pcap.h"
#include "pzf_log.h"
#include "sim_proto.h"
#include "sim_server.h"
#include "topo.h"

#define EXIT_USAGE 2

/* The signal that asked us to stop, 0 while running (the program's only mutable global). */
static volatile sig_atomic_t stop_signal;

/* What the command line asks for. */
#define MAX_AGENT_OPTS 64
#define MAX_BUSY_POLL_US 10000 /* as portzerod's busy_poll_us */

struct options {
    const char *sockname;
    const char *topology;
    int verbose;
    const char *agents[MAX_AGENT_OPTS]; /* switches served by external agents */
    unsigned num_agents;
    const char *pcap;                /* capture file, or NULL */
    enum pz_pcap_format pcap_format; /* its format */
    long monitor_ms;                 /* switches' congestion monitor interval, 0 off, -1 default */
    long busy_poll_us;               /* poll this long after input before sleeping, 0 off */
    long fast_sl, slow_sl;           /* the dFtree hosts' lanes */
    const char *issuers[FABRIC_REPATH_ISSUERS_MAX]; /* nodes whose repath notices hosts take */
    unsigned num_issuers;
};

/* Signal handler: remember the signal; the main loop notices within a tick. */
static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* Print the usage text on out. */
static void usage(FILE *out)
{
    fprintf(out,
            "usage: pzfabric [--sockname NAME] [--agent SWITCH]... [--pcap FILE]\n"
            "                [--pcap-format pcap|erf] [--monitor-interval MS]\n"
            "                [--busy-poll US] [--fast-sl SL] [--slow-sl SL]\n"
            "                [--repath-issuer NODE]... [-v] TOPOLOGY\n"
            "  TOPOLOGY         ibsim net file or ibnetdiscover output\n"
            "  --sockname NAME  socket base name (default: $IBSIM_SOCKNAME or \"%s\")\n"
            "  --agent SWITCH   SWITCH is served by an external portzerod (board = sim);\n"
            "                   it answers no SMP until that agent attaches\n"
            "  --pcap FILE      write every packet crossing a link to FILE\n"
            "  --pcap-format F  pcap: LINKTYPE_INFINIBAND (247, default); erf: ERF\n"
            "                   records that tshark decodes as they are\n"
            "  --monitor-interval MS  the in-process switches' congestion monitors sample\n"
            "                   every MS ms (>= 100, default 1000; 0: no monitors)\n"
            "  --busy-poll US   after input keep polling US microseconds (<= %d) before\n"
            "                   sleeping: a core spent for lower latency (default 0: off)\n"
            "  --fast-sl SL, --slow-sl SL  the dFtree hosts' lanes: a repath notice moves a\n"
            "                   CA's flows to the hot-spot from the fast SL to the slow one\n"
            "                   (default 0 and 1)\n"
            "  --repath-issuer NODE  hosts take repath notices only from NODE's ports\n"
            "                   (repeatable; default: from any issuer whose IssuerLID is\n"
            "                   the notice's source LID)\n"
            "  -v, --verbose    more messages on stderr (twice: every packet)\n"
            "Clients attach with LD_PRELOAD=libumad2sim.so, IBSIM_SOCKNAME=NAME and\n"
            "SIM_HOST=<node name> (default: the first node of the file).\n"
            "pzfabric-ctl --sockname NAME talks to it (links, drop rate, status).\n",
            SIM_PROTO_DEFAULT_NAME, MAX_BUSY_POLL_US);
}

/* Parse an SL (0..15) into *sl; returns 0 or -1. */
static int parse_sl(const char *arg, long *sl)
{
    char *end;

    *sl = strtol(arg, &end, 10);
    return *arg < '0' || *arg > '9' || *end || *sl > 15 ? -1 : 0;
}

/* Parse the command line; returns 0, 1 after --help, or -1 on an error (reported). */
static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"sockname", required_argument, NULL, 's'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"pcap", required_argument, NULL, 'p'},
        {"agent", required_argument, NULL, 'a'},
        {"pcap-format", required_argument, NULL, 'f'},
        {"monitor-interval", required_argument, NULL, 'm'},
        {"busy-poll", required_argument, NULL, 'b'},
        {"fast-sl", required_argument, NULL, 'F'},
        {"slow-sl", required_argument, NULL, 'S'},
        {"repath-issuer", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    char *end;
    int opt;

    o->sockname = sim_proto_default_sockname();
    while ((opt = getopt_long(argc, argv, "s:vh", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            o->sockname = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'h':
            usage(stdout);
            return 1;
        case 'p':
            o->pcap = optarg;
            break;
        case 'f':
            if (pz_pcap_format_parse(optarg, &o->pcap_format)) {
                fprintf(stderr, "pzfabric: --pcap-format %s: expected pcap or erf\n", optarg);
                return -1;
            }
            break;
        case 'm':
            o->monitor_ms = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || o->monitor_ms < 0 || o->monitor_ms > 3600000 ||
                (o->monitor_ms > 0 && o->monitor_ms < 100)) {
                fprintf(stderr, "pzfabric: --monitor-interval %s: expected 0 or 100..3600000\n",
                        optarg);
                return -1;
            }
            break;
        case 'b':
            o->busy_poll_us = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end || o->busy_poll_us < 0 ||
                o->busy_poll_us > MAX_BUSY_POLL_US) {
                fprintf(stderr, "pzfabric: --busy-poll %s: expected 0..%d\n", optarg,
                        MAX_BUSY_POLL_US);
                return -1;
            }
            break;
        case 'F':
        case 'S':
            if (parse_sl(optarg, opt == 'F' ? &o->fast_sl : &o->slow_sl)) {
                fprintf(stderr, "pzfabric: --%s %s: expected 0..15\n",
                        opt == 'F' ? "fast-sl" : "slow-sl", optarg);
                return -1;
            }
            break;
        case 'I':
            if (o->num_issuers == FABRIC_REPATH_ISSUERS_MAX) {
                fprintf(stderr, "pzfabric: at most %u --repath-issuer options\n",
                        FABRIC_REPATH_ISSUERS_MAX);
                return -1;
            }
            o->issuers[o->num_issuers++] = optarg;
            break;
        case 'a':
            if (o->num_agents == MAX_AGENT_OPTS) {
                fprintf(stderr, "pzfabric: at most %d --agent options\n", MAX_AGENT_OPTS);
                return -1;
            }
            o->agents[o->num_agents++] = optarg;
            break;
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "pzfabric: expected exactly one TOPOLOGY argument\n");
        usage(stderr);
        return -1;
    }
    o->topology = argv[optind];
    if (o->fast_sl == o->slow_sl) {
        fprintf(stderr, "pzfabric: the fast and slow lanes need different SLs (both %ld)\n",
                o->fast_sl);
        return -1;
    }
    if (o->pcap_format != PZ_PCAP_FORMAT_PCAP && !o->pcap) {
        fprintf(stderr, "pzfabric: --pcap-format needs --pcap FILE\n");
        return -1;
    }
    return 0;
}

/* Stop on SIGTERM/SIGINT (without restarting poll) and ignore SIGPIPE; returns 0 or -1. */
static int install_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
        return -1;
    sa.sa_handler = SIG_IGN;
    return sigaction(SIGPIPE, &sa, NULL);
}

/* Monotonic time in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * When serve() must wake next: at the next tick, or earlier at an in-process
 * node's deadline.  A deadline that was already due when the timers last ran
 * (at ran_ns) and did not move waits for the tick, so it cannot spin the loop.
 * Returns a CLOCK_MONOTONIC time in ns.
 */
static uint64_t next_wake(const struct fabric *f, uint64_t next_tick, uint64_t ran_ns)
{
    uint64_t d = fabric_next_deadline(f);

    return d > ran_ns && d < next_tick ? d : next_tick;
}

/*
 * Serve clients and run the fabric's timers until a stop signal; with
 * busy_poll_ns, poll without sleeping for that long after each input (an
 * external agent's answer or a client's next request then costs no
 * wake-up).  Returns 0 or -1.
 */
static int serve(struct sim_server *s, struct fabric *f, struct pz_pcap *capture,
                 uint64_t busy_poll_ns)
{
    uint64_t next_tick = now_ns() + FABRIC_TICK_NS;
    uint64_t last_input = 0, timers_ran = 0;

    while (!stop_signal) {
        uint64_t now = now_ns();
        uint64_t wake = next_wake(f, next_tick, timers_ran);
        int timeout_ms = now >= wake ? 0 : (int)((wake - now) / 1000000u) + 1;
        int got;

        if (busy_poll_ns && now - last_input < busy_poll_ns)
            timeout_ms = 0;
        got = sim_server_run_once(s, timeout_ms);
        if (got < 0)
            return -1;
        if (got > 0 && busy_poll_ns)
            last_input = now_ns();
        else if (got == 0 && timeout_ms == 0 && busy_poll_ns)
            sched_yield(); /* busy polling: whoever else is runnable here goes first */
        now = now_ns();
        if (now >= next_tick) {
            fabric_tick(f);
            if (capture)
                pz_pcap_flush(capture); /* readable while running; errors show at close */
            next_tick = now_ns() + FABRIC_TICK_NS;
            timers_ran = now;
        } else if (now >= next_wake(f, next_tick, timers_ran)) {
            fabric_run_timers(f); /* a node's deadline before the tick: run it on time */
            timers_ran = now;
        }
    }
    return 0;
}

/* Log the fabric's counters at exit (with -v). */
static void log_stats(const struct fabric *f, int verbose)
{
    struct fabric_stats st;

    fabric_get_stats(f, &st);
    pzf_log(verbose, PZF_LOG_INFO,
            "stopping: %llu MADs from clients, %llu to clients, %llu hops, %llu SMA calls, "
            "%llu traps, %llu dropped (%llu lost, %llu by P_Key), %llu multicast delivered, "
            "%llu timeouts",
            (unsigned long long)st.from_clients, (unsigned long long)st.to_clients,
            (unsigned long long)st.hops, (unsigned long long)st.sma_calls,
            (unsigned long long)st.traps, (unsigned long long)st.dropped,
            (unsigned long long)st.lost, (unsigned long long)st.pkey_dropped,
            (unsigned long long)st.mcast_delivered, (unsigned long long)st.timeouts);
}

/* Make the --agent switches external; returns 0 or -1 (reported). */
static int expect_agents(struct fabric *f, const struct options *o)
{
    for (unsigned i = 0; i < o->num_agents; i++) {
        long node = fabric_find_node(f, o->agents[i]);

        if (node < 0 || fabric_agent_expect(f, (size_t)node)) {
            fprintf(stderr, "pzfabric: --agent %s: no such switch\n", o->agents[i]);
            return -1;
        }
    }
    return 0;
}

/* The dFtree hosts' lanes and trusted issuers; returns 0 or -1 (reported). */
static int set_repath(struct fabric *f, const struct options *o)
{
    if (fabric_repath_set_lanes(f, (unsigned)o->fast_sl, (unsigned)o->slow_sl)) {
        fprintf(stderr, "pzfabric: cannot set the lanes\n");
        return -1;
    }
    for (unsigned i = 0; i < o->num_issuers; i++) {
        long node = fabric_find_node(f, o->issuers[i]);

        if (node < 0 || fabric_repath_trust(f, (size_t)node)) {
            fprintf(stderr, "pzfabric: --repath-issuer %s: no such node\n", o->issuers[i]);
            return -1;
        }
    }
    pzf_log(o->verbose, PZF_LOG_INFO,
            "dFtree lanes: fast SL %ld, slow SL %ld; %u trusted issuer(s)", o->fast_sl, o->slow_sl,
            o->num_issuers);
    return 0;
}

/*
 * Create the --pcap file and let the fabric write to it (*capture stays
 * NULL without --pcap).  Returns 0 or -1 (reported).
 */
static int open_capture(struct fabric *f, const struct options *o, struct pz_pcap **capture)
{
    char err[256];

    *capture = NULL;
    if (!o->pcap)
        return 0;
    *capture = pz_pcap_open_format(o->pcap, o->pcap_format, err, sizeof(err));
    if (!*capture) {
        fprintf(stderr, "pzfabric: --pcap %s\n", err);
        return -1;
    }
    fabric_set_capture(f, *capture, o->pcap);
    pzf_log(o->verbose, PZF_LOG_INFO, "capturing to %s (%s)", o->pcap,
            pz_pcap_format_name(o->pcap_format));
    return 0;
}

/* Close the capture file; returns 0, or -1 if packets did not reach it (reported). */
static int close_capture(struct pz_pcap *capture, const struct options *o)
{
    unsigned long long packets = pz_pcap_packets(capture);

    if (!capture)
        return 0;
    if (pz_pcap_close(capture)) {
        fprintf(stderr, "pzfabric: %s: writing the capture failed\n", o->pcap);
        return -1;
    }
    pzf_log(o->verbose, PZF_LOG_INFO, "%s: %llu packets", o->pcap, packets);
    return 0;
}

/* Build the fabric of the topology file; returns it, or NULL (reported) with *status. */
static struct fabric *load_fabric(const struct options *o, int *status)
{
    char err[TOPO_ERR_MAX];
    struct fabric *f;
    struct topo *t = topo_load(o->topology, err);

    if (!t) {
        fprintf(stderr, "pzfabric: %s\n", err);
        *status = EXIT_USAGE;
        return NULL;
    }
    f = fabric_create(t, o->verbose);
    pzf_log(o->verbose, PZF_LOG_INFO, "%s: %zu switches, %zu CAs, %zu links", o->topology,
            topo_count(t, TOPO_SWITCH), topo_count(t, TOPO_CA), topo_num_links(t));
    topo_free(t);
    if (!f) {
        fprintf(stderr, "pzfabric: cannot build the fabric\n");
        *status = EXIT_FAILURE;
        return NULL;
    }
    if (o->monitor_ms >= 0 && fabric_set_monitor(f, (unsigned)o->monitor_ms)) {
        fprintf(stderr, "pzfabric: cannot set up the congestion monitors\n");
        fabric_destroy(f);
        *status = EXIT_FAILURE;
        return NULL;
    }
    if (expect_agents(f, o) || set_repath(f, o)) {
        fabric_destroy(f);
        *status = EXIT_USAGE;
        return NULL;
    }
    return f;
}

int main(int argc, char **argv)
{
    struct options o = {
        .monitor_ms = -1, .fast_sl = FABRIC_FAST_SL_DEFAULT, .slow_sl = FABRIC_SLOW_SL_DEFAULT};
    struct pz_pcap *capture;
    char err[TOPO_ERR_MAX];
    struct sim_server *s;
    struct fabric *f;
    int rc;

    rc = parse_args(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : EXIT_USAGE;
    f = load_fabric(&o, &rc);
    if (!f)
        return rc;
    if (open_capture(f, &o, &capture)) {
        fabric_destroy(f);
        return EXIT_USAGE;
    }
    s = sim_server_create(o.sockname, f, o.verbose, err, sizeof(err));
    if (!s || install_signals()) {
        fprintf(stderr, "pzfabric: %s\n", s ? "cannot install signal handlers" : err);
        sim_server_destroy(s);
        fabric_destroy(f);
        close_capture(capture, &o);
        return EXIT_FAILURE;
    }
    if (o.busy_poll_us)
        pzf_log(o.verbose, PZF_LOG_INFO, "busy polling %ld us after input", o.busy_poll_us);
    printf("ready\n");
    fflush(stdout);
    rc = serve(s, f, capture, (uint64_t)o.busy_poll_us * 1000u);
    if (rc)
        perror("pzfabric: poll");
    log_stats(f, o.verbose);
    sim_server_destroy(s);
    fabric_destroy(f);
    if (close_capture(capture, &o))
        rc = -1;
    return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
