/*
 * pzctl_cmd.h - the commands of pzfabric's operator control socket
 * (pzctl_proto.h): parse a request, act on the fabric, write the reply.
 *
 *   status                     nodes, links up/down, clients, drop rate,
 *                              capture, packet counters, links not up
 *   link-down NODE PORT        pull the cable at NODE's PORT (both ends)
 *   link-up NODE PORT          plug it back in
 *   drop-rate PERCENT [SEED]   lose PERCENT (0..100, up to 4 decimals) of
 *                              the link traversals at random
 *   counters NODE PORT         the port's hardware counters
 *   flow-add SRC DST GBPS [--sl SL]  a flow between two CAs; prints its id
 *   flow-del ID                remove it
 *   flow-list                  every flow: rates, state, path
 *   ca-rate NODE GBPS          a CA's receive rate (0: its link rate)
 *   error-inject NODE PORT KIND COUNT  add COUNT errors to a port's counter
 *   help                       this list
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
