/*
 * pzctl_cmd.h - the commands of pzfabric's operator control socket
 * (pzctl_proto.h): parse a request, act on the fabric, write the reply.
 *
 * The commands are one table in pzctl_cmd.c (name, argument counts, usage
 * line, one-line description, handler) that drives dispatch, the "usage:"
 * errors and "help" (each usage line, then its description indented);
 * fabric/README.md describes each command.
 *
 * NODE is a node name of the topology file or a node description, as
 * SIM_HOST accepts.
 */
#ifndef PZ_PZCTL_CMD_H
#define PZ_PZCTL_CMD_H

#include <stddef.h>

#include "fabric.h"

/*
 * Execute the request of len bytes at req (not NUL terminated, any bytes)
 * on fabric f, which has `clients` attached clients.  Writes the reply,
 * NUL terminated, into out (cap bytes, at least 64) and returns its length
 * without the NUL.
 */
size_t pzctl_execute(struct fabric *f, size_t clients, const char *req, size_t len, char *out,
                     size_t cap);

#endif /* PZ_PZCTL_CMD_H */
