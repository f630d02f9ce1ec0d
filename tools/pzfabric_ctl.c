/*
 * pzfabric_ctl.c - pzfabric-ctl: the operator's command line for a running
 * pzfabric, over its control socket "<name>:pzctl" (fabric/server/pzctl_proto.h).
 *
 *   pzfabric-ctl [--sockname NAME] [--timeout SECONDS] COMMAND [ARG]...
 *
 * Sends COMMAND and its arguments as one request, prints the reply's output
 * on stdout.  Exit status: 0 on "ok", 1 when pzfabric answers an error (the
 * message goes to stderr), 2 on bad usage or when pzfabric cannot be
 * reached.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pzctl_proto.h"

#define EXIT_ERROR_REPLY 1
#define EXIT_USAGE 2
#define DEFAULT_SOCKNAME "sim"
#define DEFAULT_TIMEOUT_S 10

/* What the command line asks for. */
struct options {
    const char *sockname;
    int timeout_ms;
    char **args; /* COMMAND [ARG]... */
    int num_args;
};

/* Print the usage text on out. */
static void usage(FILE *out)
{
    fprintf(out,
            "usage: pzfabric-ctl [--sockname NAME] [--timeout SECONDS] COMMAND [ARG]...\n"
            "  --sockname NAME    pzfabric's socket name (default: $IBSIM_SOCKNAME or \"%s\")\n"
            "  --timeout SECONDS  wait this long for the answer (default %d)\n"
            "commands:\n"
            "  status                    nodes, links, clients, drop rate, packet counters\n"
            "  link-down NODE PORT       pull the cable at NODE's PORT (both ends go down)\n"
            "  link-up NODE PORT         plug it back in (both ends retrain to Init)\n"
            "  drop-rate PERCENT [SEED]  lose PERCENT of the packets crossing links\n"
            "  link-drop NODE PORT PERCENT\n"
            "                            the cable at NODE's PORT loses PERCENT (0: none)\n"
            "  counters NODE PORT        the port's hardware counters\n"
            "  flow-add SRC DST GBPS [--sl SL]\n"
            "                            a flow of GBPS Gb/s from CA SRC to CA DST along the\n"
            "                            SM's routes (SL 0-15, default 0); prints its id\n"
            "  flow-del ID               remove a flow\n"
            "  flow-list                 one line per flow: id src dst sl demand achieved\n"
            "                            routed|unrouted hops (rates in Gb/s)\n"
            "  ca-rate NODE GBPS         CA NODE receives at most GBPS (0: its link rate)\n"
            "  error-inject NODE PORT KIND COUNT\n"
            "                            add COUNT errors of KIND to a port's counters: symbol,\n"
            "                            link-recovery, link-downed, rcv-errors, rcv-remote-phys,\n"
            "                            rcv-switch-relay, xmit-discards, xmit-constraint,\n"
            "                            rcv-constraint, local-link-integrity,\n"
            "                            excessive-buffer-overrun, vl15-dropped, qp1-dropped,\n"
            "                            local-phy, malformed, buffer-overrun, dlid-mapping,\n"
            "                            vl-mapping, looping, inactive-discard,\n"
            "                            neighbor-mtu-discard, sw-lifetime-discard, hoq-discard\n"
            "  help                      the commands pzfabric knows, from pzfabric\n"
            "NODE is a node name of the topology file (as SIM_HOST takes it).\n",
            DEFAULT_SOCKNAME, DEFAULT_TIMEOUT_S);
}

/* Parse the command line; returns 0, 1 after --help, or -1 on an error (reported). */
static int parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"sockname", required_argument, NULL, 's'},
        {"timeout", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *end;
    long v;
    int opt;

    o->sockname = getenv("IBSIM_SOCKNAME");
    if (!o->sockname || !*o->sockname)
        o->sockname = DEFAULT_SOCKNAME;
    o->timeout_ms = DEFAULT_TIMEOUT_S * 1000;
    while ((opt = getopt_long(argc, argv, "+s:t:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            o->sockname = optarg;
            break;
        case 't':
            errno = 0;
            v = strtol(optarg, &end, 10);
            if (errno || *end || v < 1 || v > 3600) {
                fprintf(stderr, "pzfabric-ctl: --timeout %s: expected 1..3600 seconds\n", optarg);
                return -1;
            }
            o->timeout_ms = (int)v * 1000;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "pzfabric-ctl: no command\n");
        usage(stderr);
        return -1;
    }
    o->args = argv + optind;
    o->num_args = argc - optind;
    return 0;
}

/* Connect to "<sockname>:pzctl"; returns the socket or -1 (reported). */
static int connect_pzfabric(const char *sockname)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int len = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s:%s", sockname, PZCTL_SUFFIX);
    int fd;

    if (len < 0 || (size_t)len >= sizeof(a.sun_path) - 1) {
        fprintf(stderr, "pzfabric-ctl: socket name \"%s\" is too long\n", sockname);
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        perror("pzfabric-ctl: socket");
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&a,
                (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len))) {
        fprintf(stderr, "pzfabric-ctl: cannot reach pzfabric \"%s\": %s%s\n", sockname,
                strerror(errno), errno == ECONNREFUSED ? " (is it running?)" : "");
        close(fd);
        return -1;
    }
    return fd;
}

/* Join the arguments one per line into buf (cap bytes); returns the length or -1. */
static long build_request(const struct options *o, char *buf, size_t cap)
{
    size_t len = 0;

    for (int i = 0; i < o->num_args; i++) {
        size_t n = strlen(o->args[i]);

        if (strchr(o->args[i], '\n') || len + n + 1 > cap)
            return -1;
        memcpy(buf + len, o->args[i], n);
        len += n;
        buf[len++] = '\n';
    }
    return (long)len;
}

/* Send the request and wait for the reply into buf; returns its length or -1 (reported). */
static long exchange(int fd, const char *req, size_t len, char *buf, size_t cap, int timeout_ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    ssize_t n;
    int ready;

    if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
        perror("pzfabric-ctl: send");
        return -1;
    }
    ready = poll(&pfd, 1, timeout_ms);
    if (ready <= 0) {
        fprintf(stderr, "pzfabric-ctl: %s\n", ready ? strerror(errno) : "no answer from pzfabric");
        return -1;
    }
    n = recv(fd, buf, cap - 1, 0);
    if (n <= 0) {
        fprintf(stderr, "pzfabric-ctl: %s\n", n ? strerror(errno) : "pzfabric closed the socket");
        return -1;
    }
    buf[n] = '\0';
    return (long)n;
}

/* Print the reply: the output after "ok", or the error; returns the exit status. */
static int print_reply(const char *reply)
{
    size_t ok_len = strlen(PZCTL_REPLY_OK);

    if (!strncmp(reply, PZCTL_REPLY_OK, ok_len) && (reply[ok_len] == '\n' || !reply[ok_len])) {
        fputs(reply + ok_len + (reply[ok_len] == '\n'), stdout);
        return EXIT_SUCCESS;
    }
    if (!strncmp(reply, PZCTL_REPLY_ERROR, strlen(PZCTL_REPLY_ERROR)))
        reply += strlen(PZCTL_REPLY_ERROR);
    fprintf(stderr, "pzfabric-ctl: %s%s", reply,
            reply[0] && reply[strlen(reply) - 1] == '\n' ? "" : "\n");
    return EXIT_ERROR_REPLY;
}

int main(int argc, char **argv)
{
    char req[PZCTL_REQUEST_MAX], *reply;
    struct options o;
    long req_len, len;
    int rc, fd;

    rc = parse_args(argc, argv, &o);
    if (rc)
        return rc > 0 ? EXIT_SUCCESS : EXIT_USAGE;
    req_len = build_request(&o, req, sizeof(req));
    if (req_len < 0) {
        fprintf(stderr, "pzfabric-ctl: arguments too long or containing a newline\n");
        return EXIT_USAGE;
    }
    reply = malloc(PZCTL_REPLY_MAX + 1);
    if (!reply) {
        perror("pzfabric-ctl");
        return EXIT_USAGE;
    }
    fd = connect_pzfabric(o.sockname);
    len =
        fd < 0 ? -1 : exchange(fd, req, (size_t)req_len, reply, PZCTL_REPLY_MAX + 1, o.timeout_ms);
    if (fd >= 0)
        close(fd);
    rc = len < 0 ? EXIT_USAGE : print_reply(reply);
    free(reply);
    return rc;
}
