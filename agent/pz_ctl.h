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

/* What the control socket needs: the loop and what the commands read (copied). */
struct pz_ctl_env {
    struct pz_loop *loop;
    const struct cli_env *cli;
};

/* Listen on path (a stale socket there is replaced); NULL with a message in err. */
struct pz_ctl *pz_ctl_open(const char *path, const struct pz_ctl_env *env, char *err,
                           size_t errlen);

/* Close every connection and the socket, remove it (NULL is fine). */
void pz_ctl_close(struct pz_ctl *ctl);

#endif
