/*
 * pz_dgram.c - portzerod's port-0 datagram QP and its echo service (see
 * pz_dgram.h).
 */
#include "pz_dgram.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "board_sim.h"
#include "board_sim_dgram.h"
#include "node.h"
#include "pz_echo.h"
#include "pz_log.h"
#include "pz_loop.h"
#include "pz_switch.h"

/* Datagrams taken per wake at most, so a flood of them cannot starve the MADs. */
#define PZ_DGRAM_BUDGET 64

struct pz_dgram {
    struct board *board;
    struct board_sim *bs;         /* board = sim, or NULL */
    struct board_sim_dgram *conn; /* board = sim: the node's port-0 stack, or NULL */
    struct pz_echo *echo;         /* the echo service */
    uint32_t qpn;                 /* its QP number */
    struct pz_loop *loop;
    int fd; /* registered with the loop, or -1 */
};

/*
 * Loop: datagrams wait on the echo QP (at most PZ_DGRAM_BUDGET).  On a lost
 * datagram connection the service stops: its descriptor leaves the loop,
 * the service object stays until pz_dgram_stop (reachability holds it; its
 * sends fail from then on).
 */
static void pz_on_echo(void *arg, int fd)
{
    struct pz_dgram *d = arg;

    if (pz_echo_poll(d->echo, PZ_DGRAM_BUDGET) != -ENOTCONN)
        return;
    pz_log(PZ_LOG_WARN, "port-0 datagrams: the fabric closed the connection, echo service off");
    pz_loop_remove_fd(d->loop, fd);
    d->fd = -1;
}

/*
 * board = sim: attach as the node's port-0 datagram stack over
 * "<sockname>:dgram" and give the board its dgram operations.  Returns 0,
 * or -1 with a message in err.
 */
static int pz_attach_sim_dgram(struct pz_dgram *d, const struct pz_config *cfg, char *err,
                               size_t errlen)
{
    const char *sock, *node;

    pz_switch_sim_names(cfg, &sock, &node);
    d->conn = board_sim_dgram_connect(sock, node, cfg->dgram_qkey, err, errlen);
    if (!d->conn)
        return -1;
    board_sim_set_dgram(d->bs, d->conn);
    return 0;
}

/* Open the QP; returns 0, or -1 (warning logged: run without datagrams). */
static int pz_dgram_open(struct pz_dgram *d, const struct pz_config *cfg)
{
    uint32_t qpn = 0;
    char err[256];
    int rc;

    if (d->bs && pz_attach_sim_dgram(d, cfg, err, sizeof(err))) {
        pz_log(PZ_LOG_WARN, "port-0 datagrams unavailable, running without them: %s", err);
        return -1;
    }
    if (!board_has_dgram(d->board)) {
        pz_log(PZ_LOG_WARN, "port-0 datagrams: the board has none, running without them");
        return -1;
    }
    rc = board_dgram_open(d->board, cfg->dgram_qkey, &qpn);
    if (rc) {
        pz_log(PZ_LOG_WARN, "port-0 datagrams: cannot open the QP (%s), running without them",
               strerror(-rc));
        return -1;
    }
    pz_log(PZ_LOG_INFO, "port-0 datagrams: QPN 0x%06x Q_Key 0x%08x (echo service on)",
           (unsigned)qpn, (unsigned)cfg->dgram_qkey);
    d->qpn = qpn;
    return 0;
}

int pz_dgram_start(const struct pz_config *cfg, struct pz_switch *sw, struct pz_loop *loop,
                   struct pz_dgram **out)
{
    bool want = cfg->dgram < 0 ? cfg->board_sim : cfg->dgram;
    struct pz_dgram *d;

    *out = NULL;
    if (!want)
        return 0;
    d = calloc(1, sizeof(*d));
    if (!d)
        return -1;
    d->board = node_board(pz_switch_node(sw));
    d->bs = pz_switch_sim(sw);
    d->loop = loop;
    d->fd = -1;
    if (pz_dgram_open(d, cfg)) {
        pz_dgram_stop(d);
        return 0;
    }
    d->echo = pz_echo_create(d->board, cfg->dgram_qkey);
    if (!d->echo) {
        pz_dgram_stop(d);
        return -1;
    }
    /*
     * A board without a datagram descriptor (board_mem) has nothing to poll;
     * its echo service has no fabric behind it either.
     */
    if (board_dgram_fd(d->board) >= 0) {
        if (pz_loop_add_fd(loop, board_dgram_fd(d->board), pz_on_echo, d)) {
            pz_dgram_stop(d);
            return -1;
        }
        d->fd = board_dgram_fd(d->board);
    }
    *out = d;
    return 0;
}

struct pz_echo *pz_dgram_echo(const struct pz_dgram *d, uint32_t *qpn)
{
    if (!d)
        return NULL;
    *qpn = d->qpn;
    return d->echo;
}

void pz_dgram_stop(struct pz_dgram *d)
{
    if (!d)
        return;
    if (d->fd >= 0)
        pz_loop_remove_fd(d->loop, d->fd);
    pz_echo_destroy(d->echo);
    if (d->conn)
        board_sim_set_dgram(d->bs, NULL);
    board_sim_dgram_close(d->conn);
    free(d);
}
