/*
 * pz_ip_ssh.h - portzerod's SSH server (ssh/) on TCP 22 of the IP plane
 * (net/pz_tcp), run on the agent loop, with the switch's CLI (cli/) behind
 * its exec and shell channels.
 */
#ifndef PZ_IP_SSH_H
#define PZ_IP_SSH_H

#include <stddef.h>

#include "cli.h"
#include "pz_config.h"
#include "pz_loop.h"

struct pz_ip_ssh;

/* Start the server as cfg says (host keys in state_dir, the two users); NULL + err. */
struct pz_ip_ssh *pz_ip_ssh_create(const struct pz_config *cfg, struct pz_loop *loop,
                                   const struct cli_env *cli, char *err, size_t errlen);

/* Close every connection, stop listening, free (NULL is fine). */
void pz_ip_ssh_destroy(struct pz_ip_ssh *s);

#endif
