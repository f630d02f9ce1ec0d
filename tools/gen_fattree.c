/*
 * gen_fattree.c - gen-fattree: write a fat-tree topology in ibsim's net-file
 * format (the format of ibsim's net-examples, which pzfabric also reads) to
 * stdout.
 *
 *   gen-fattree 2 [--spines S] [--leaves L] [--hosts-per-leaf H] [--uplinks U]
 *                 [--radix R] [--multicore]
 *   gen-fattree 3 [--pods P] [--hosts-per-leaf H] [--radix R]
 *
 * Every switch has R ports (default 36); every CA has one port.  CAs are
 * written first: ibsim attaches clients that name no node (OpenSM by default)
 * at the first port in the file, so that port must be a CA's.  Both ends of
 * every link are listed.  Names: spine-N, leaf-N, mid-P-N, core-N, host-L-N
 * (L = the leaf's number), all counted from 1.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GFT_NAME_MAX 48
#define GFT_RADIX_MAX 254 /* ports of an IB switch */
#define GFT_ERR_MAX 256

/* The far end of a port; node < 0 when the port is not cabled. */
struct gft_end {
    int node;
    int port;
};

/* One switch or CA. ports[1..nports] are used, ports[0] is not. */
struct gft_node {
    bool is_switch;
    int nports;
    char name[GFT_NAME_MAX];
    struct gft_end *ports;
};

/* The whole topology. */
struct gft_net {
    struct gft_node *nodes;
    int count;
    int cap;
    long links;
};

/* Command line. Negative numbers mean "not given". */
struct gft_opts {
    int levels; /* 2 or 3 */
    int radix;
    int spines;
    int leaves;
    int hosts;
    int uplinks;
    int pods;
    bool multicore;
};

/* Format an error message into err (GFT_ERR_MAX bytes); returns -1. */
static int fail(char *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, GFT_ERR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* Add a node with nports unconnected ports; returns its index, or -1 on ENOMEM. */
static int net_add(struct gft_net *net, bool is_switch, int nports, const char *fmt, ...)
{
    struct gft_node *n;
    va_list ap;

    if (net->count == net->cap) {
        int cap = net->cap ? net->cap * 2 : 64;
        struct gft_node *nodes = realloc(net->nodes, (size_t)cap * sizeof(*nodes));

        if (!nodes)
            return -1;
        net->nodes = nodes;
        net->cap = cap;
    }
    n = &net->nodes[net->count];
    n->ports = malloc((size_t)(nports + 1) * sizeof(*n->ports));
    if (!n->ports)
        return -1;
    for (int p = 0; p <= nports; p++)
        n->ports[p] = (struct gft_end){.node = -1, .port = 0};
    n->is_switch = is_switch;
    n->nports = nports;
    va_start(ap, fmt);
    vsnprintf(n->name, sizeof(n->name), fmt, ap);
    va_end(ap);
    return net->count++;
}

/* Free everything the topology holds. */
static void net_free(struct gft_net *net)
{
    for (int i = 0; i < net->count; i++)
        free(net->nodes[i].ports);
    free(net->nodes);
    *net = (struct gft_net){0};
}

/*
 * Cable port pa of node a to port pb of node b.  Returns 0, or -1 with a
 * message if a port does not exist or is already cabled (a generator bug).
 */
static int net_link(struct gft_net *net, int a, int pa, int b, int pb, char *err)
{
    struct gft_node *na = &net->nodes[a], *nb = &net->nodes[b];

    if (pa < 1 || pa > na->nports || pb < 1 || pb > nb->nports)
        return fail(err, "internal error: %s[%d] - %s[%d]: no such port", na->name, pa, nb->name,
                    pb);
    if (na->ports[pa].node >= 0 || nb->ports[pb].node >= 0)
        return fail(err, "internal error: %s[%d] - %s[%d]: port already cabled", na->name, pa,
                    nb->name, pb);
    na->ports[pa] = (struct gft_end){.node = b, .port = pb};
    nb->ports[pb] = (struct gft_end){.node = a, .port = pa};
    net->links++;
    return 0;
}

/* Write one node record (header, one line per cabled port, blank line). */
static void print_node(const struct gft_net *net, const struct gft_node *n, FILE *out)
{
    fprintf(out, "%s %d \"%s\"\n", n->is_switch ? "Switch" : "Hca", n->nports, n->name);
    for (int p = 1; p <= n->nports; p++) {
        const struct gft_end *e = &n->ports[p];

        if (e->node >= 0)
            fprintf(out, "[%d] \"%s\"[%d]\n", p, net->nodes[e->node].name, e->port);
    }
    fputc('\n', out);
}

/* Count the switches of the topology. */
static int count_switches(const struct gft_net *net)
{
    int n = 0;

    for (int i = 0; i < net->count; i++)
        n += net->nodes[i].is_switch;
    return n;
}

/* Write the whole file: a comment, every CA, then every switch. */
static void print_net(const struct gft_net *net, const char *cmdline, FILE *out)
{
    int switches = count_switches(net);

    fprintf(out, "# %s\n", cmdline);
    fprintf(out, "# %d switches, %d CAs, %ld links. CAs come first: ibsim uses the first\n",
            switches, net->count - switches, net->links);
    fprintf(out, "# port in the file as the SM port (the default port for clients).\n\n");
    for (int i = 0; i < net->count; i++)
        if (!net->nodes[i].is_switch)
            print_node(net, &net->nodes[i], out);
    for (int i = 0; i < net->count; i++)
        if (net->nodes[i].is_switch)
            print_node(net, &net->nodes[i], out);
}

/* Add count switches named prefix-N (N from 1); returns the first index or -1. */
static int add_switches(struct gft_net *net, int count, int radix, const char *prefix)
{
    int first = net->count;

    for (int i = 0; i < count; i++)
        if (net_add(net, true, radix, "%s-%d", prefix, i + 1) < 0)
            return -1;
    return first;
}

/* Add hosts host-L-1..host-L-count on ports 1..count of leaf; returns 0 or -1. */
static int add_hosts(struct gft_net *net, int leaf, int leaf_num, int count, char *err)
{
    for (int h = 0; h < count; h++) {
        int ca = net_add(net, false, 1, "host-%d-%d", leaf_num, h + 1);

        if (ca < 0)
            return fail(err, "out of memory");
        if (net_link(net, ca, 1, leaf, h + 1, err) < 0)
            return -1;
    }
    return 0;
}

/*
 * Uplinks per leaf of a 2-level tree: --uplinks if given, else the free
 * leaf ports, lowered to what the spines can terminate.  Returns the count,
 * or -1 with a message if the leaves or the spines run out of ports.
 */
static int two_level_uplinks(const struct gft_opts *o, int hosts, char *err)
{
    int free_ports = o->radix - hosts - (o->multicore ? 1 : 0);
    long up = o->uplinks >= 0 ? o->uplinks : free_ports;
    long spine_ports;

    if (o->uplinks < 0 && up * o->leaves > (long)o->radix * o->spines)
        up = (long)o->radix * o->spines / o->leaves;
    if (up < 1)
        return fail(err,
                    "no room for uplinks: %d leaves need at least one spine port each, "
                    "%d spines of radix %d have %ld",
                    o->leaves, o->spines, o->radix, (long)o->spines * o->radix);
    if (up > free_ports)
        return fail(err, "a leaf would need %ld ports (%d hosts%s + %ld uplinks), radix is %d",
                    hosts + up + (o->multicore ? 1 : 0), hosts,
                    o->multicore ? " + 1 horizontal" : "", up, o->radix);
    spine_ports = (up * o->leaves + o->spines - 1) / o->spines;
    if (spine_ports > o->radix)
        return fail(err,
                    "a spine would need %ld ports (%d leaves x %ld uplinks over %d spines), "
                    "radix is %d",
                    spine_ports, o->leaves, up, o->spines, o->radix);
    return (int)up;
}

/*
 * Build a 2-level tree.  Leaf ports: hosts from 1, then (--multicore) the
 * horizontal link, then the uplinks.  Uplink j of leaf l is the
 * (l * up + j)-th uplink overall and goes to spine (l * up + j) % S, port
 * (l * up + j) / S + 1: round-robin over the spines, continued from leaf to
 * leaf.  Returns 0 or -1 with a message.
 */
static int build_two_level(struct gft_net *net, const struct gft_opts *o, char *err)
{
    int hosts = o->multicore ? o->hosts - 1 : o->hosts;
    int up = o->uplinks;
    int spine0, leaf0;

    spine0 = add_switches(net, o->spines, o->radix, "spine");
    leaf0 = spine0 < 0 ? -1 : add_switches(net, o->leaves, o->radix, "leaf");
    if (leaf0 < 0)
        return fail(err, "out of memory");
    for (int l = 0; l < o->leaves; l++) {
        int first_up = hosts + (o->multicore ? 1 : 0) + 1;

        if (add_hosts(net, leaf0 + l, l + 1, hosts, err) < 0)
            return -1;
        for (int j = 0; j < up; j++) {
            long g = (long)l * up + j;

            if (net_link(net, leaf0 + l, first_up + j, spine0 + (int)(g % o->spines),
                         (int)(g / o->spines) + 1, err) < 0)
                return -1;
        }
        if (o->multicore && l % 2 == 1 &&
            net_link(net, leaf0 + l - 1, hosts + 1, leaf0 + l, hosts + 1, err) < 0)
            return -1;
    }
    return 0;
}

/*
 * Build a 3-level k-ary-n-tree (k = radix, h = k/2): P pods of h leaves and
 * h middle switches, h*h cores.  Leaf ports: hosts from 1, then mid m of its
 * pod at H + 1 + m.  Mid m: leaf i of its pod at port i + 1, core m*h + c at
 * port h + 1 + c.  Core: pod p at port p + 1.  Returns 0 or -1 with a message.
 */
static int build_three_level(struct gft_net *net, const struct gft_opts *o, char *err)
{
    int h = o->radix / 2, core0, mid0, leaf0;

    core0 = add_switches(net, h * h, o->radix, "core");
    mid0 = net->count;
    for (int p = 0; p < o->pods && core0 >= 0; p++)
        for (int m = 0; m < h; m++)
            if (net_add(net, true, o->radix, "mid-%d-%d", p + 1, m + 1) < 0)
                return fail(err, "out of memory");
    leaf0 = core0 < 0 ? -1 : add_switches(net, o->pods * h, o->radix, "leaf");
    if (leaf0 < 0)
        return fail(err, "out of memory");
    for (int p = 0; p < o->pods; p++) {
        for (int m = 0; m < h; m++) {
            int mid = mid0 + p * h + m;

            for (int i = 0; i < h; i++)
                if (net_link(net, leaf0 + p * h + i, o->hosts + 1 + m, mid, i + 1, err) < 0)
                    return -1;
            for (int c = 0; c < h; c++)
                if (net_link(net, mid, h + 1 + c, core0 + m * h + c, p + 1, err) < 0)
                    return -1;
        }
        for (int i = 0; i < h; i++)
            if (add_hosts(net, leaf0 + p * h + i, p * h + i + 1, o->hosts, err) < 0)
                return -1;
    }
    return 0;
}

/* Parse a decimal count in [min, max]; returns it, or -1 with a message. */
static int parse_count(const char *opt, const char *s, int min, int max, char *err)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return fail(err, "bad value '%s' for %s (expected %d..%d)", s, opt, min, max);
    return (int)v;
}

/* Fill in the defaults of a 2-level tree (uplinks included) and check the options. */
static int check_two_level(struct gft_opts *o, char *err)
{
    if (o->pods >= 0)
        return fail(err, "--pods applies to 3-level trees only");
    if (o->spines < 0)
        o->spines = o->radix / 2;
    if (o->leaves < 0)
        o->leaves = o->radix;
    if (o->hosts < 0)
        o->hosts = o->radix / 2;
    if (o->multicore && o->leaves % 2)
        return fail(err, "--multicore pairs leaves: --leaves must be even, not %d", o->leaves);
    if (o->multicore && o->hosts < 2)
        return fail(err, "--multicore takes one host port per leaf: --hosts-per-leaf must be "
                         ">= 2");
    if (o->hosts >= o->radix)
        return fail(err, "--hosts-per-leaf %d leaves no uplink port (radix %d)", o->hosts,
                    o->radix);
    o->uplinks = two_level_uplinks(o, o->multicore ? o->hosts - 1 : o->hosts, err);
    return o->uplinks < 0 ? -1 : 0;
}

/* Fill in defaults and check the options that apply to a 3-level tree. */
static int check_three_level(struct gft_opts *o, char *err)
{
    if (o->spines >= 0 || o->leaves >= 0 || o->uplinks >= 0 || o->multicore)
        return fail(err, "--spines, --leaves, --uplinks and --multicore apply to 2-level "
                         "trees only");
    if (o->radix % 2)
        return fail(err, "a 3-level tree needs an even radix, not %d", o->radix);
    if (o->pods < 0)
        o->pods = o->radix;
    if (o->hosts < 0)
        o->hosts = o->radix / 2;
    if (o->pods > o->radix)
        return fail(err, "--pods %d: a core switch has one port per pod (radix %d)", o->pods,
                    o->radix);
    if (o->hosts > o->radix / 2)
        return fail(err, "--hosts-per-leaf %d: a leaf has radix/2 = %d host ports", o->hosts,
                    o->radix / 2);
    return 0;
}

/* Print usage to out. */
static void usage(FILE *out)
{
    fprintf(out,
            "usage: gen-fattree 2 [--spines S] [--leaves L] [--hosts-per-leaf H] [--uplinks U]\n"
            "                     [--radix R] [--multicore]\n"
            "       gen-fattree 3 [--pods P] [--hosts-per-leaf H] [--radix R]\n"
            "Writes a fat tree of R-port switches (default 36) in ibsim's net-file format.\n"
            "2-level defaults: S = R/2, L = R, H = R/2, U = R - H (lowered if the spines\n"
            "  run out of ports); --multicore cables leaf 2i to leaf 2i+1 on a host port.\n"
            "3-level (k-ary-n-tree, k = R): P pods (default R) of R/2 leaves and R/2 mids,\n"
            "  (R/2)^2 cores, H hosts per leaf (default and maximum R/2).\n");
}

/* The count option ch sets: its field in o and its name; NULL if ch is none. */
static int *count_option(struct gft_opts *o, int ch, const char **name)
{
    switch (ch) {
    case 's':
        *name = "--spines";
        return &o->spines;
    case 'l':
        *name = "--leaves";
        return &o->leaves;
    case 'H':
        *name = "--hosts-per-leaf";
        return &o->hosts;
    case 'u':
        *name = "--uplinks";
        return &o->uplinks;
    case 'p':
        *name = "--pods";
        return &o->pods;
    case 'r':
        *name = "--radix";
        return &o->radix;
    default:
        return NULL;
    }
}

/* Apply option ch (argument arg) to o; returns 0 or -1 with a message. */
static int apply_option(struct gft_opts *o, int ch, const char *arg, char *err)
{
    const char *name = "";
    int *dst = count_option(o, ch, &name);

    if (ch == 'm') {
        o->multicore = true;
        return 0;
    }
    if (!dst)
        return fail(err, "unknown option (try --help)");
    *dst = parse_count(name, arg, ch == 'r' ? 2 : 1, ch == 'r' ? GFT_RADIX_MAX : 100000, err);
    return *dst < 0 ? -1 : 0;
}

/*
 * Parse the command line into o.  Returns 0, 1 for --help, or -1 with a
 * message in err.
 */
static int parse_args(int argc, char **argv, struct gft_opts *o, char *err)
{
    static const struct option longopts[] = {
        {"spines", required_argument, NULL, 's'},
        {"leaves", required_argument, NULL, 'l'},
        {"hosts-per-leaf", required_argument, NULL, 'H'},
        {"uplinks", required_argument, NULL, 'u'},
        {"pods", required_argument, NULL, 'p'},
        {"radix", required_argument, NULL, 'r'},
        {"multicore", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;

    *o = (struct gft_opts){
        .radix = 36, .spines = -1, .leaves = -1, .hosts = -1, .uplinks = -1, .pods = -1};
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (ch == 'h')
            return 1;
        if (ch == ':')
            return fail(err, "%s needs a value", argv[optind - 1]);
        if (ch == '?')
            return fail(err, "unknown option '%s' (try --help)", argv[optind - 1]);
        if (apply_option(o, ch, optarg, err) < 0)
            return -1;
    }
    /* getopt_long moved the operands (the level) behind the options. */
    if (optind < argc && (o->levels = parse_count("LEVELS", argv[optind++], 2, 3, err)) < 0)
        return -1;
    if (optind < argc)
        return fail(err, "unexpected argument '%s'", argv[optind]);
    if (!o->levels)
        return fail(err, "say 2 or 3 levels (try --help)");
    return o->levels == 2 ? check_two_level(o, err) : check_three_level(o, err);
}

/* Describe the tree being written (the file's first comment line). */
static void describe(const struct gft_opts *o, char *buf, size_t len)
{
    if (o->levels == 2)
        snprintf(buf, len,
                 "gen-fattree 2 --spines %d --leaves %d --hosts-per-leaf %d --uplinks %d "
                 "--radix %d%s",
                 o->spines, o->leaves, o->hosts, o->uplinks, o->radix,
                 o->multicore ? " --multicore" : "");
    else
        snprintf(buf, len, "gen-fattree 3 --pods %d --hosts-per-leaf %d --radix %d", o->pods,
                 o->hosts, o->radix);
}

/* Exit status: 0 written, 1 bad arguments, impossible tree or no memory, 2 write error. */
int main(int argc, char **argv)
{
    struct gft_opts o;
    struct gft_net net = {0};
    char err[GFT_ERR_MAX] = "", cmdline[160];
    int rc = parse_args(argc, argv, &o, err);

    if (rc) {
        if (rc > 0) {
            usage(stdout);
            return 0;
        }
        fprintf(stderr, "gen-fattree: %s\n", err);
        return 1;
    }
    rc = o.levels == 2 ? build_two_level(&net, &o, err) : build_three_level(&net, &o, err);
    if (rc == 0) {
        describe(&o, cmdline, sizeof(cmdline));
        print_net(&net, cmdline, stdout);
    }
    net_free(&net);
    if (rc) {
        fprintf(stderr, "gen-fattree: %s\n", err);
        return 1;
    }
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "gen-fattree: writing the topology failed\n");
        return 2;
    }
    return 0;
}
