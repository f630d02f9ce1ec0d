/*
 * pzumad_timeout.h - libpzumad2sim.so's passing of a client's umad timeout
 * to pzfabric (pzumad_timeout.c): shared by the library's files only.
 */
#ifndef PZ_PZUMAD_TIMEOUT_H
#define PZ_PZUMAD_TIMEOUT_H

#include <stddef.h>

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
/* A sim_request went to packet socket fd (pzumad_drain.c). */
void pzu_drain_note_packet_fd(int fd);
/* Before a control message (buf, count) goes out: if it is a DISCONNECT, wait (bounded)
 * until the simulator has read every packet this process wrote. */
void pzu_drain_before_ctl(const void *buf, size_t count);

#endif
