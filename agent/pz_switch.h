/*
 * pz_switch.h - portzerod's switch: the board the configuration names
 * (board_mem shaped by it, or a switch of pzfabric over board/sim), the
 * node/ object on it (SMA, PMA, CC agent, congestion monitor, notifier,
 * neighbour discovery), and its place in the event loop: the MADs of the
 * umad port, the node's timers, pzfabric's port events.
 */
#ifndef PZ_SWITCH_H
#define PZ_SWITCH_H

#include <stdint.h>

#include "pz_config.h"

struct board;
struct board_sim;
struct mad_io;
struct node;
struct pz_loop;

/* What the switch is served through. */
struct pz_switch_env {
    struct mad_io *io;    /* the umad port: MADs in and out (NULL: over board/sim, opened here) */
    struct pz_loop *loop; /* where its descriptors and timers are registered */
    int *exit_code;       /* set to 1 when pzfabric closes the board connection */
};

/* Called after the switch answered an SMP Set (port 0 may have changed). */
typedef void (*pz_switch_smp_set_fn)(void *arg);

/*
 * Build the board and the node from cfg and register with env's loop.
 * With board = sim the fabric's identity is written back into cfg
 * (node_desc, node_guid, num_ports).  Returns NULL (message logged).
 */
struct pz_switch *pz_switch_create(struct pz_config *cfg, const struct pz_switch_env *env);

/* Free the node and the board (NULL is fine); call after the loop stopped. */
void pz_switch_destroy(struct pz_switch *sw);

/* Be told of every SMP Set the switch answered. */
void pz_switch_on_smp_set(struct pz_switch *sw, pz_switch_smp_set_fn fn, void *arg);

/*
 * The pzfabric socket name and node board = sim uses: the configuration's,
 * else IBSIM_SOCKNAME (default "sim") and SIM_HOST.
 */
void pz_switch_sim_names(const struct pz_config *cfg, const char **sock, const char **node);

/* The node (its board: node_board()). */
struct node *pz_switch_node(const struct pz_switch *sw);
/* The MAD port: env's, or the board/sim connection's (mad_transport). */
struct mad_io *pz_switch_io(const struct pz_switch *sw);
/* The board/sim connection, NULL with board = mem. */
struct board_sim *pz_switch_sim(const struct pz_switch *sw);

#endif /* PZ_SWITCH_H */
