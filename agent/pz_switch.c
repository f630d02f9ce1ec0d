/*
 * pz_switch.c - portzerod's switch: board and node from the configuration,
 * the MADs of the umad port served in batches, the node's timers and the
 * board/sim port events on the event loop (see pz_switch.h).
 */
#include "pz_switch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "board_mem.h"
#include "board_sim.h"
#include "board_sim_mad.h"
#include "cong_monitor.h"
#include "mad_io.h"
#include "node.h"
#include "pz_log.h"
#include "pz_loop.h"

/* Link states are scanned (and SwitchInfo.PortStateChange set) this often. */
#define PZ_SCAN_NS 10000000ull
/* MADs served per wake at most, so the other sources get their turn. */
#define PZ_MAD_BUDGET 256
/* Receive-queue drops are logged this often at most. */
#define PZ_DROP_LOG_NS 1000000000ull

struct pz_switch {
    struct pz_switch_env env;
    struct board_identity id;
    struct board_mem *bm; /* board = mem */
    struct board_sim *bs; /* board = sim */
    struct board *board;
    unsigned long smp_dropped_seen;       /* SMP drops the last warning covered */
    unsigned long smp_dropped_total;      /* SMP drops at the last look */
    unsigned long smp_dropped_noted[256]; /* by port: handed to board/sim's VL15Dropped */
    uint64_t drop_logged_ns;              /* when the last drop warning was logged (0: never) */
    struct node *node;
    uint64_t polled_gen;     /* the board's port status generation at the last node poll */
    struct mad_io *board_io; /* MADs over the board/sim connection (owned), or NULL */
    pz_switch_smp_set_fn smp_set;
    void *smp_set_arg;
};

/* A getenv() that treats unset and empty alike, with a default. */
static const char *pz_env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);

    return v && *v ? v : dflt;
}

void pz_switch_sim_names(const struct pz_config *cfg, const char **sock, const char **node)
{
    *sock = *cfg->sim_sockname ? cfg->sim_sockname : pz_env_or("IBSIM_SOCKNAME", "sim");
    *node = *cfg->sim_node ? cfg->sim_node : pz_env_or("SIM_HOST", "");
}

/* An in-memory switch shaped by the configuration; returns 0 or -1. */
static int pz_setup_board_mem(struct pz_switch *sw, const struct pz_config *cfg)
{
    if (cfg->mad_transport > 0) {
        pz_log(PZ_LOG_ERROR, "mad_transport = board needs board = sim");
        return -1;
    }
    board_mem_default_switch_identity(&sw->id, cfg->node_guid, cfg->num_ports);
    memset(sw->id.node_desc, 0, sizeof(sw->id.node_desc)); /* 64 bytes, NUL padded */
    memcpy(sw->id.node_desc, cfg->node_desc, strnlen(cfg->node_desc, sizeof(sw->id.node_desc)));
    sw->id.enhanced_port0 = cfg->enhanced_port0;
    sw->id.port0_client_rereg = pz_config_port0_sa_clients(cfg);
    sw->id.lft_cap = (uint16_t)cfg->lft_cap;
    sw->id.mft_cap = (uint16_t)cfg->mft_cap;
    sw->bm = board_mem_create(&sw->id);
    if (!sw->bm)
        return -1;
    sw->board = board_mem_board(sw->bm);
    return 0;
}

/*
 * Attach to a switch of pzfabric over board/sim; its identity wins.  With
 * mad_transport = board (or auto) the connection carries the MADs too: the
 * MAD port is opened on it.  Returns 0 or -1.
 */
static int pz_setup_board_sim(struct pz_switch *sw, struct pz_config *cfg)
{
    bool mads = pz_config_mads_over_board(cfg);
    const char *sock, *node;
    char err[256];

    pz_switch_sim_names(cfg, &sock, &node);
    sw->bs =
        board_sim_connect_flags(sock, node, mads ? BOARD_SIM_ATTACH_MADS : 0, err, sizeof(err));
    if (sw->bs && mads && !(sw->board_io = mad_io_open_board_sim(sw->bs, err, sizeof(err)))) {
        board_sim_close(sw->bs);
        sw->bs = NULL;
    }
    if (!sw->bs) {
        pz_log(PZ_LOG_ERROR, "%s", err);
        return -1;
    }
    if (mads) {
        sw->env.io = sw->board_io;
        pz_log(PZ_LOG_INFO, "MADs over the board/sim connection (mad_transport)");
    }
    board_sim_set_port0_client_rereg(sw->bs, pz_config_port0_sa_clients(cfg));
    sw->board = board_sim_board(sw->bs);
    sw->id = *sw->board->id;
    snprintf(cfg->node_desc, sizeof(cfg->node_desc), "%.64s", sw->id.node_desc);
    cfg->node_guid = sw->id.node_guid;
    cfg->num_ports = sw->id.num_ports;
    return 0;
}

/* Send a MAD the node made (neighbour discovery); returns 0 or -1. */
static int pz_node_send(void *arg, const uint8_t *mad, const struct mad_addr *to)
{
    struct pz_switch *sw = arg;

    return mad_io_send(sw->env.io, mad, to);
}

/* The node's log lines, as the monitor's. */
static void pz_node_log(void *arg, enum node_log_level level, const char *msg)
{
    (void)arg;
    pz_log(level == NODE_LOG_WARN   ? PZ_LOG_WARN
           : level == NODE_LOG_INFO ? PZ_LOG_INFO
                                    : PZ_LOG_DEBUG,
           "monitor: %s", msg);
}

/* The node's settings from the agent's configuration; returns 0 or -1 (bad monitor settings). */
static int pz_node_config(const struct pz_config *cfg, struct node_config *nc)
{
    node_default_config(nc);
    nc->link_scan_ns = PZ_SCAN_NS;
    nc->monitor = cfg->monitor;
    nc->notices = cfg->monitor_notices;
    nc->discover = cfg->monitor_ca_ports[0] == '\0';
    nc->mon.interval_ms = cfg->monitor_interval_ms;
    nc->mon.threshold_ticks = cfg->monitor_threshold;
    nc->mon.low_util_percent = (uint8_t)cfg->monitor_low_util;
    nc->mon.clear_percent = (uint8_t)cfg->monitor_clear;
    return cfg->monitor && cong_monitor_config_check(&nc->mon) ? -1 : 0;
}

/* Set every port's peer from a monitor_ca_ports list; returns 0 or -1. */
static int pz_set_listed_peers(struct pz_switch *sw, const char *list)
{
    uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8];

    if (pz_config_port_list(list, mask) < 0)
        return -1;
    for (unsigned p = 1; p <= sw->id.num_ports && p <= PZ_CONFIG_MAX_PORT; p++)
        node_set_peer(sw->node, p, mask[p / 8] & (1u << (p % 8)) ? CONG_PEER_CA : CONG_PEER_SWITCH);
    return 0;
}

/* Create the node on the board; returns 0 or -1 (message logged). */
static int pz_setup_node(struct pz_switch *sw, const struct pz_config *cfg)
{
    struct node_hooks hooks = {.send = pz_node_send, .log = pz_node_log, .arg = sw};
    struct node_config nc;
    char err[160];

    if (pz_node_config(cfg, &nc)) {
        pz_log(PZ_LOG_ERROR, "monitor: bad settings");
        return -1;
    }
    if (sw->bs && board_sim_port_events(sw->bs))
        nc.link_scan_ns = 0; /* scanned when the status generation moves (pz_switch_deadline) */
    sw->node = node_create(sw->board, &nc, &hooks, err, sizeof(err));
    if (!sw->node) {
        pz_log(PZ_LOG_ERROR, "%s", err);
        return -1;
    }
    if (!cfg->monitor)
        return 0;
    if (!nc.discover && pz_set_listed_peers(sw, cfg->monitor_ca_ports)) {
        pz_log(PZ_LOG_ERROR, "monitor: cannot create it");
        return -1;
    }
    pz_log(PZ_LOG_INFO, "monitor: %u ports every %u ms, threshold %llu ticks/s, CA ports %s",
           cong_monitor_num_ports(node_cong(sw->node)), nc.mon.interval_ms,
           (unsigned long long)nc.mon.threshold_ticks,
           nc.discover ? "discovered" : cfg->monitor_ca_ports);
    return 0;
}

/* Transmit what the node asked for; logs failures. */
static void pz_transmit(struct pz_switch *sw, const uint8_t *mad, const struct mad_addr *to)
{
    if (mad_io_send(sw->env.io, mad, to))
        pz_log(PZ_LOG_WARN, "send to lid %u port %u failed", to->dlid, to->port);
}

/* Whether a MAD the switch answered may have changed port 0 (an SMP Set). */
static bool pz_is_smp_set(const uint8_t *mad)
{
    unsigned mgmt_class = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);

    return (mgmt_class == IB_SMI_CLASS || mgmt_class == IB_SMI_DIRECT_CLASS) &&
           mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_SET;
}

/*
 * Loop: serve the MADs waiting on the umad port (at most PZ_MAD_BUDGET: the
 * loop comes back while more wait, its descriptor staying readable).
 * Answers to the agent's own requests go to the client that asked (the
 * node's discovery, the IP plane's SA requests).
 */
static void pz_on_board(void *arg, int fd);

static void pz_on_mads(void *arg, int fd)
{
    struct pz_switch *sw = arg;
    uint8_t in[IB_MAD_SIZE], out[IB_MAD_SIZE];
    struct mad_addr from, to;
    int rc = 0;

    (void)fd;
    if (sw->bs)
        board_sim_wake(sw->bs);
    for (int i = 0; i < PZ_MAD_BUDGET && (rc = mad_io_recv(sw->env.io, in, &from)) > 0; i++) {
        enum mad_route how;
        const uint8_t *whole;
        size_t len = mad_io_recv_whole(sw->env.io, &whole);

        node_take_rx_record(sw->node, in, &from);
        /* a reassembled SA answer (route check, reachability) goes to its client whole */
        bool send =
            (len ? node_process(sw->node, &from, whole, len, &to, out, &how)
                 : node_process(sw->node, &from, in, IB_MAD_SIZE, &to, out, &how)) == MAD_SEND;

        if (how == MAD_ROUTED_ANSWER)
            continue; /* a client's: discovery's or the IP plane's */
        pz_log(PZ_LOG_DEBUG,
               "SMP class 0x%02x method 0x%02x attr 0x%04x mod 0x%08x from lid %u: %s", in[1],
               in[3], (unsigned)(in[16] << 8 | in[17]),
               (unsigned)mad_get_field(in, 0, IB_MAD_ATTRMOD_F), from.slid,
               send ? "answered" : "dropped");
        if (send)
            pz_transmit(sw, out, &to);
        if (send && sw->smp_set && pz_is_smp_set(in))
            sw->smp_set(sw->smp_set_arg);
    }
    if (sw->bs)
        board_sim_flush(sw->bs); /* posted writes not yet sent with an answer */
    if (rc < 0 && sw->board_io)
        pz_on_board(sw, -1); /* the fabric closed the connection the MADs came on */
    else if (rc < 0)
        pz_log(PZ_LOG_WARN, "umad receive failed");
}

/* Loop: whether MADs wait in mad_io's queue (board/sim) although its socket is quiet. */
static bool pz_mads_pending(void *arg)
{
    return mad_io_pending(((struct pz_switch *)arg)->env.io);
}

/* Whether a board with port events moved its port status generation since the last poll. */
static bool pz_switch_ports_moved(const struct pz_switch *sw)
{
    uint64_t gen;

    return sw->bs && board_sim_port_events(sw->bs) && board_port_status_gen(sw->board, &gen) &&
           gen != sw->polled_gen;
}

/* Loop deadline: the node's (SMA, PMA, monitor, discovery, the 10 ms link scan where the board
 * has no port events), or now when the board's port events moved its status generation. */
static uint64_t pz_switch_deadline(void *arg)
{
    struct pz_switch *sw = arg;

    return pz_switch_ports_moved(sw) ? 0 : node_next_deadline(sw->node);
}

/* Hand the umad reader's new SMP drops to board/sim, port by port, for VL15Dropped. */
static void pz_switch_note_vl15(struct pz_switch *sw)
{
    for (unsigned p = 0; p <= sw->id.num_ports && p < 256; p++) {
        unsigned long n = mad_io_smp_dropped(sw->env.io, (int)p);

        board_sim_note_vl15_dropped(sw->bs, p, n - sw->smp_dropped_noted[p]);
        sw->smp_dropped_noted[p] = n;
    }
}

/*
 * Note the SMPs the receive queue dropped since the last look: the umad
 * reader's are handed to the board/sim connection for the VL15Dropped of
 * the ports they entered by (the board transport counts its own), and a
 * warning says how many, at most once per PZ_DROP_LOG_NS.
 */
static void pz_switch_note_drops(struct pz_switch *sw, uint64_t now)
{
    unsigned long total = mad_io_smp_dropped(sw->env.io, -1);
    unsigned long fresh = total - sw->smp_dropped_seen;

    if (total != sw->smp_dropped_total && sw->bs && !sw->board_io)
        pz_switch_note_vl15(sw);
    sw->smp_dropped_total = total;
    if (!fresh || (sw->drop_logged_ns && now - sw->drop_logged_ns < PZ_DROP_LOG_NS))
        return;
    pz_log(PZ_LOG_WARN, "%lu SMPs dropped: the management port's receive queue was full", fresh);
    sw->smp_dropped_seen = total;
    sw->drop_logged_ns = now;
}

/* Loop timer: run the node's due work and send the traps and notices it queued. */
static void pz_switch_timers(void *arg, uint64_t now)
{
    struct pz_switch *sw = arg;
    uint8_t out[IB_MAD_SIZE];
    struct mad_addr to;

    pz_switch_note_drops(sw, now);
    if (sw->bs)
        board_sim_wake(sw->bs);
    if (!board_port_status_gen(sw->board, &sw->polled_gen))
        sw->polled_gen = 0;
    while (node_poll(sw->node, &to, out) == MAD_SEND)
        pz_transmit(sw, out, &to);
}

/* Loop: pzfabric sent port events on the board/sim connection, or closed it. */
static void pz_on_board(void *arg, int fd)
{
    struct pz_switch *sw = arg;

    (void)fd;
    if (board_sim_pump(sw->bs) >= 0)
        return;
    pz_log(PZ_LOG_ERROR, "the fabric closed the board connection");
    *sw->env.exit_code = 1;
    pz_loop_stop(sw->env.loop);
}

/* Register the umad port, the board/sim socket and the node's timers; returns 0 or -1. */
static int pz_switch_register(struct pz_switch *sw)
{
    struct pz_loop *l = sw->env.loop;

    /*
     * When the board connection carries the MADs, pz_on_mads takes its port
     * events too.  The MADs are urgent: served before, and between, the IP
     * plane's batches of datagrams (VL15 is never stuck behind data).
     */
    if (pz_loop_add_fd(l, mad_io_fd(sw->env.io), pz_on_mads, sw) ||
        pz_loop_set_pending(l, mad_io_fd(sw->env.io), pz_mads_pending) ||
        pz_loop_set_urgent(l, mad_io_fd(sw->env.io)) ||
        (sw->bs && !sw->board_io && pz_loop_add_fd(l, board_sim_fd(sw->bs), pz_on_board, sw)) ||
        pz_loop_add_timer(l, pz_switch_deadline, pz_switch_timers, sw)) {
        pz_log(PZ_LOG_ERROR, "the event loop is full");
        return -1;
    }
    return 0;
}

struct pz_switch *pz_switch_create(struct pz_config *cfg, const struct pz_switch_env *env)
{
    struct pz_switch *sw = calloc(1, sizeof(*sw));

    if (!sw) {
        pz_log(PZ_LOG_ERROR, "out of memory");
        return NULL;
    }
    sw->env = *env;
    if ((cfg->board_sim ? pz_setup_board_sim(sw, cfg) : pz_setup_board_mem(sw, cfg)) ||
        pz_setup_node(sw, cfg) || pz_switch_register(sw)) {
        pz_switch_destroy(sw);
        return NULL;
    }
    return sw;
}

void pz_switch_destroy(struct pz_switch *sw)
{
    if (!sw)
        return;
    node_destroy(sw->node);
    mad_io_close(sw->board_io);
    board_mem_destroy(sw->bm);
    board_sim_close(sw->bs);
    free(sw);
}

void pz_switch_on_smp_set(struct pz_switch *sw, pz_switch_smp_set_fn fn, void *arg)
{
    sw->smp_set = fn;
    sw->smp_set_arg = arg;
}

struct mad_io *pz_switch_io(const struct pz_switch *sw)
{
    return sw->env.io;
}

struct node *pz_switch_node(const struct pz_switch *sw)
{
    return sw->node;
}

struct board_sim *pz_switch_sim(const struct pz_switch *sw)
{
    return sw->bs;
}
