/*
 * ssh_test_kexinit.h - the client KEXINIT the SSH unit tests send: one
 * payload builder shared by test_ssh_packet and test_ssh_proto.
 */
#ifndef PZ_SSH_TEST_KEXINIT_H
#define PZ_SSH_TEST_KEXINIT_H

#include <stdbool.h>

#include "ssh_wire.h"

/*
 * Write a client KEXINIT payload into wr: key exchange methods kex, then
 * ssh-ed25519, aes128-ctr, hmac-sha2-256, no compression, and
 * first_kex_packet_follows as given.
 */
void ssh_test_client_kexinit(struct ssh_wr *wr, const char *kex, bool follows);

#endif
