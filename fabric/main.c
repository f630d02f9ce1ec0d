/*
 * main.c - pzfabric: an emulated InfiniBand fabric that speaks ibsim's
 * client protocol, its switches and CAs answered by portzero's SMA.
 *
 *   pzfabric [--sockname NAME] [-v] TOPOLOGY
 *
 * Prints "ready" on stdout once clients may attach; exits 0 on SIGTERM or
 * SIGINT, 2 on bad arguments or a bad topology, 1 on other failures.
 */
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric.h"
#include "pzf_log.h"
#include "sim_proto.h"
#include "sim_server.h"
#include "topo.h"

#define EXIT_USAGE 2

/* The signal that asked us to stop, 0 while running (the program's only mutable global). */
static volatile sig_atomic_t stop_signal;

/* What the command line asks for. */
#define MAX_AGENT_OPTS 64

struct options {
    const char *sockname;
    const char *topology;
    int verbose;
    const char *agents[MAX_AGENT_OPTS]; /* switches served by external agents */
    unsigned num_agents;
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
            "usage: pzfabric [--sockname NAME] [--agent SWITCH]... [-v] TOPOLOGY\n"
            "  TOPOLOGY         ibsim net file or ibnetdiscover output\n"
            "  --sockname NAME  socket base name (default: $IBSIM_SOCKNAME or \"%s\")\n"
            "  --agent SWITCH   SWITCH is served by an external portzerod (board = sim);\n"
            "                   it answers no SMP until that agent attaches\n"
            "  -v, --verbose    more messages on stderr (twice: every packet)\n"
            "Clients attach with LD_PRELOAD=libumad2sim.so, IBSIM_SOCKNAME=NAME and\n"
            "SIM_HOST=<node name> (default: the first node of the file).\n",
            SIM_PROTO_DEFAULT_NAME);
}

/* Parse the command line; returns 0, 1 after --help, or -1 on an error (reported). */
static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"sockname", required_argument, NULL, 's'}, {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},           {"pcap", required_argument, NULL, 'p'},
        {"agent", required_argument, NULL, 'a'},    {NULL, 0, NULL, 0},
    };
    int opt;

    o->sockname = getenv("IBSIM_SOCKNAME");
    if (!o->sockname || !*o->sockname)
        o->sockname = SIM_PROTO_DEFAULT_NAME;
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
            fprintf(stderr, "pzfabric: --pcap is not implemented yet\n");
            return -1;
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

/* Serve clients and run the fabric's timers until a stop signal; returns 0 or -1. */
static int serve(struct sim_server *s, struct fabric *f)
{
    uint64_t next_tick = now_ns() + FABRIC_TICK_NS;

    while (!stop_signal) {
        uint64_t now = now_ns();
        int timeout_ms = now >= next_tick ? 0 : (int)((next_tick - now) / 1000000u) + 1;

        if (sim_server_run_once(s, timeout_ms))
            return -1;
        if (now_ns() >= next_tick) {
            fabric_tick(f);
            next_tick = now_ns() + FABRIC_TICK_NS;
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
            "%llu traps, %llu dropped, %llu timeouts",
            (unsigned long long)st.from_clients, (unsigned long long)st.to_clients,
            (unsigned long long)st.hops, (unsigned long long)st.sma_calls,
            (unsigned long long)st.traps, (unsigned long long)st.dropped,
            (unsigned long long)st.timeouts);
}

int main(int argc, char **argv)
{
    struct options o = {0};
    char err[TOPO_ERR_MAX];
    struct sim_server *s;
    struct fabric *f;
    struct topo *t;
    int rc;

    rc = parse_args(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : EXIT_USAGE;
    t = topo_load(o.topology, err);
    if (!t) {
        fprintf(stderr, "pzfabric: %s\n", err);
        return EXIT_USAGE;
    }
    f = fabric_create(t, o.verbose);
    pzf_log(o.verbose, PZF_LOG_INFO, "%s: %zu switches, %zu CAs, %zu links", o.topology,
            topo_count(t, TOPO_SWITCH), topo_count(t, TOPO_CA), topo_num_links(t));
    topo_free(t);
    if (!f) {
        fprintf(stderr, "pzfabric: cannot build the fabric\n");
        return EXIT_FAILURE;
    }
    for (unsigned i = 0; i < o.num_agents; i++) {
        long node = fabric_find_node(f, o.agents[i]);

        if (node < 0 || fabric_agent_expect(f, (size_t)node)) {
            fprintf(stderr, "pzfabric: --agent %s: no such switch\n", o.agents[i]);
            fabric_destroy(f);
            return EXIT_USAGE;
        }
    }
    s = sim_server_create(o.sockname, f, o.verbose, err, sizeof(err));
    if (!s || install_signals()) {
        fprintf(stderr, "pzfabric: %s\n", s ? "cannot install signal handlers" : err);
        sim_server_destroy(s);
        fabric_destroy(f);
        return EXIT_FAILURE;
    }
    printf("ready\n");
    fflush(stdout);
    rc = serve(s, f);
    if (rc)
        perror("pzfabric: poll");
    log_stats(f, o.verbose);
    sim_server_destroy(s);
    fabric_destroy(f);
    return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
