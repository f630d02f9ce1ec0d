/*
 * pz_ip.h - portzerod's IP management plane: the glue between the agent
 * loop and net/pz_ipplane (IPoIB endpoint + lwIP + echo).
 *
 * It opens a port-0 UD QP of its own (board_qp_*), sends the endpoint's SA
 * requests through the agent's umad port (an SA client), reads the port's
 * state from the SMA (PortInfo and P_KeyTable of port 0, as the SM wrote
 * them, and the ClientReregister count), and registers its descriptors and
 * deadlines with the loop.  Everything here runs on the agent loop's thread;
 * lwIP's thread only reaches the plane through pz_netif's queue.
 */
#ifndef PZ_IP_H
#define PZ_IP_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "mad_io.h"
#include "pz_config.h"
#include "pz_loop.h"

struct sma;
struct pz_ip;
struct pz_ipplane;

/* What the plane uses of the agent. */
struct pz_ip_env {
    const struct board *board;
    struct sma *sma;
    struct mad_io *io;
    struct pz_loop *loop;
};

/*
 * Start the plane as cfg says (ip_address, ip_gateway, ipoib_pkey).
 * Returns it, or NULL with a message in err.
 */
struct pz_ip *pz_ip_create(const struct pz_config *cfg, const struct pz_ip_env *env, char *err,
                           size_t errlen);

/* The low 32 TID bits of the plane's SA requests: (TID & MASK) == TAG (mad_router). */
#define PZ_IP_TID_MASK 0xFF000000u
#define PZ_IP_TID_TAG 0x49000000u /* ipoib_config.tid_tag 'I' in the top byte */

/* Offer a received MAD: true if it was an SA answer to the plane's requests (consumed). */
bool pz_ip_take_mad(struct pz_ip *ip, const uint8_t *mad);

/* The SM may have changed port 0 (a PortInfo or P_KeyTable Set): re-read it soon. */
void pz_ip_port_changed(struct pz_ip *ip);

/* The plane, for the CLI (state, counters, neighbours). */
struct pz_ipplane *pz_ip_plane(const struct pz_ip *ip);

/* Stop it (unregisters from the loop) and free. */
void pz_ip_destroy(struct pz_ip *ip);

#endif
