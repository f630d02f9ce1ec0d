/*
 * pz_ctl.h - portzerod's control socket: a unix stream socket on which a
 * local client (pz-cli, tests, scripts on the switch) runs one CLI command
 * per connection.
 *
 * Protocol: the client sends one command line ending in '\n'; the agent
 * writes the command's output, then a NUL byte, the exit status in decimal
 * and '\n', and closes.  The socket is created mode 0600: whoever may open
 * it is the switch's administrator (the full command set).
 */
#ifndef PZ_CTL_H
#define PZ_CTL_H

#include <stddef.h>

#include "cli.h"
#include "pz_loop.h"

struct pz_ctl;

/* What the control socket needs: the loop and what the commands read. */
struct pz_ctl_env {
    struct pz_loop *loop;
    const struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cong_monitor *mon;
    struct pz_ipplane *plane;
    struct pz_snmp *snmp;     /* NULL: no SNMP agent */
    struct pz_routes *routes; /* the route check (NULL: none) */
    struct pz_reach *reach;   /* switch-to-switch reachability (NULL: off) */
    const struct pz_config *cfg;
};

/* Listen on path (a stale socket there is replaced); NULL with a message in err. */
struct pz_ctl *pz_ctl_open(const char *path, const struct pz_ctl_env *env, char *err,
                           size_t errlen);

/* Close every connection and the socket, remove it (NULL is fine). */
void pz_ctl_close(struct pz_ctl *ctl);

#endif
