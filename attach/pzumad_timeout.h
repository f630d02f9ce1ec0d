/*
 * pzumad_timeout.h - libpzumad2sim.so's passing of a client's umad timeout
 * to pzfabric (pzumad_timeout.c): shared by the library's files only.
 */
#ifndef PZ_PZUMAD_TIMEOUT_H
#define PZ_PZUMAD_TIMEOUT_H

#include "sim_proto.h"

/*
 * The MAD this thread writes next (inside libibumad's umad_send()) waits
 * timeout_ms x (retries + 1) for its answer; 0 or less: nothing to say.
 */
void pzu_timeout_begin(int timeout_ms, int retries);
/* That umad_send() returned: nothing pending any more. */
void pzu_timeout_end(void);
/* Clear the timeout another client put into a request this client receives. */
void pzu_timeout_strip(struct sim_request *req);

#endif
