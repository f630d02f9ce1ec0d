/*
 * pz_simclient.h - a client of ibsim's protocol (fabric/server/sim_proto.h) without
 * libumad2sim: what an emulated host's kernel would be to its node.  It
 * attaches to a node of pzfabric, sends and receives MADs on real sockets
 * (so they poll() with other descriptors, which umad2sim's interposed poll()
 * does not allow) and reads the node's own attributes through control
 * messages.
 */
#ifndef PZ_SIMCLIENT_H
#define PZ_SIMCLIENT_H

#include <stddef.h>
#include <stdint.h>

struct ipoib_port;
struct pz_simclient;

/*
 * Attach to node (a name or description, as SIM_HOST takes it) of the
 * simulator named sockname.  Returns NULL with a message in err.
 */
struct pz_simclient *pz_simclient_connect(const char *sockname, const char *node, char *err,
                                          size_t errlen);

/* The packet socket: readable when a MAD may be waiting. */
int pz_simclient_fd(const struct pz_simclient *c);

/* Send a 256-byte MAD to dlid, QP dqp, from QP sqp; returns 0 or -errno. */
int pz_simclient_send(struct pz_simclient *c, uint16_t dlid, uint32_t dqp, uint32_t sqp,
                      const uint8_t mad[256]);

/*
 * Send a GMP of len bytes (zero-padded to 256, longer ones cut) from QP1 to
 * QP1 of dlid, as an emulated host's SA queries go; returns 0 or -errno.
 */
int pz_simclient_send_gmp(struct pz_simclient *c, uint16_t dlid, const void *mad, size_t len);

/*
 * Take one received MAD without blocking: 0 and *slid, *status (0, or 110
 * for a request that timed out), -EAGAIN if none, other -errno on failure.
 */
int pz_simclient_recv(struct pz_simclient *c, uint8_t mad[256], uint16_t *slid, uint32_t *status);

/* The node's NodeInfo, the attached port's PortInfo or P_Keys 0..31 (64 bytes); 0 or -1. */
int pz_simclient_nodeinfo(struct pz_simclient *c, uint8_t out[64]);
int pz_simclient_portinfo(struct pz_simclient *c, uint8_t out[64]);
int pz_simclient_pkeys(struct pz_simclient *c, uint8_t out[64]);

/* The attached port's ClientReregister count (pzfabric's SIM_CTL_PZ_GET_REREG) into *count;
 * 0, or -1 (ibsim has no such message). */
int pz_simclient_rereg_count(struct pz_simclient *c, uint32_t *count);

/*
 * The attached port's state for an IPoIB endpoint: its PortInfo and first
 * P_Key block, with port_guid and the partition pkey, through
 * ipoib_port_from_attrs() into *p, and its ClientReregister count as
 * p->reregister (0 where the simulator does not tell it): a new count
 * makes the endpoint join again.  Returns 0, or -1 with *p untouched.
 */
int pz_simclient_ipoib_port(struct pz_simclient *c, uint64_t port_guid, uint16_t pkey,
                            struct ipoib_port *p);

/* Detach and free (NULL is fine). */
void pz_simclient_close(struct pz_simclient *c);

#endif
