/*
 * ssh_test_kexinit.c - the client KEXINIT of the SSH unit tests (see
 * ssh_test_kexinit.h).
 */
#include "ssh_test_kexinit.h"

#include <stdint.h>

#include "ssh_internal.h"

void ssh_test_client_kexinit(struct ssh_wr *wr, const char *kex, bool follows)
{
    const char *lists[10] = {kex,
                             "ssh-ed25519",
                             "aes128-ctr",
                             "aes128-ctr",
                             "hmac-sha2-256",
                             "hmac-sha2-256",
                             "none",
                             "none",
                             "",
                             ""};
    uint8_t cookie[16] = {0};

    ssh_wr_u8(wr, SSH_MSG_KEXINIT);
    ssh_wr_bytes(wr, cookie, 16);
    for (int i = 0; i < 10; i++)
        ssh_wr_cstring(wr, lists[i]);
    ssh_wr_u8(wr, follows);
    ssh_wr_u32(wr, 0); /* reserved */
}
