/*
 * pzctl_proto.h - pzfabric's operator control socket, shared by pzfabric
 * (pzctl_server.c, pzctl_cmd.c) and tools/pzfabric_ctl.c.
 *
 * Socket: SOCK_SEQPACKET, abstract name "NAME:pzctl" (no terminating NUL in
 * the address), NAME the simulator's socket name.  A client connects and
 * sends requests, one message each; every request gets one reply message.
 *
 * Request: text, one argument per line ("link-down\nSwitch1\n3"); a request
 * of one line without a newline inside is split at blanks instead.
 * Reply: text; the first line is "ok" or "error: <what went wrong>", the
 * lines after "ok" are the command's output.
 */
#ifndef PZ_PZCTL_PROTO_H
#define PZ_PZCTL_PROTO_H

#define PZCTL_SUFFIX "pzctl"
#define PZCTL_REQUEST_MAX 4096 /* longest request */
#define PZCTL_REPLY_MAX 65536  /* longest reply (longer output is cut) */
#define PZCTL_MAX_ARGS 16      /* arguments of a request, command included */
#define PZCTL_REPLY_OK "ok"
#define PZCTL_REPLY_ERROR "error: "

#endif /* PZ_PZCTL_PROTO_H */
