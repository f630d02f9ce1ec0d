/*
 * sim_server.h - the ibsim client protocol server of pzfabric.
 *
 * Serves the control socket NAME:ctl and one packet socket NAME:out<id> per
 * attached client (see sim_proto.h), feeding clients' MADs into a fabric
 * and sending them what the fabric delivers.  There is no fixed client
 * limit.  Malformed control messages and packets are logged and dropped.
 */
#ifndef PZ_SIM_SERVER_H
#define PZ_SIM_SERVER_H

#include <stddef.h>

#include "fabric.h"

struct sim_server;

/*
 * Bind NAME:ctl for fabric f (which must outlive the server) and take over
 * its client delivery.  Returns NULL with a message in err on failure
 * (e.g. the name is in use by another simulator).
 */
struct sim_server *sim_server_create(const char *sockname, struct fabric *f, int verbose, char *err,
                                     size_t err_size);

/* Disconnect every client and close the sockets. */
void sim_server_destroy(struct sim_server *s);

/*
 * Wait up to timeout_ms for control messages and packets and handle them.
 * Returns 1 when there was input, 0 when there was none (timeout or a
 * signal), or -1 if waiting failed for another reason than a signal.
 */
int sim_server_run_once(struct sim_server *s, int timeout_ms);

/* Number of attached clients. */
size_t sim_server_num_clients(const struct sim_server *s);

#endif /* PZ_SIM_SERVER_H */
