/*
 * test_ssh_authkeys.c - authorized_keys parsing (ssh/ssh_authkeys.c): keys
 * with and without comments, CRLF, blank and comment lines, option prefixes
 * (refused, quoted blanks included), key types not taken, blobs whose inner
 * type disagrees with the line, bad base64, oversized lines, lookup in a
 * whole file and a missing file.  Keys made by ssh-keygen (public only).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ssh_authkeys.h"
#include "pzt_main.h"

#define ED "AAAAC3NzaC1lZDI1NTE5AAAAIN6Em21bXmWnCf32F4FFgZffxJo+GafKwRHbc4EyOByQ"
#define EC                                                                                         \
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBBZQ7vqA9mNVgxMKc/7dhvzdy5+t0o2nvsFXQyPV" \
    "/CwK7dXnjgLLynr+qzy+S9Q/zhZlFGexlFig5Oc3k2moj5Q="

/* Parses a C string line. */
static enum ssh_authkeys_line parse(const char *line, uint8_t *blob, size_t *len)
{
    return ssh_authkeys_parse_line(line, strlen(line), blob, SSH_AK_BLOB_MAX, len);
}

static void test_lines(void **state)
{
    uint8_t blob[SSH_AK_BLOB_MAX];
    size_t len = 0;

    (void)state;
    assert_int_equal(parse("ssh-ed25519 " ED " root@vm", blob, &len), SSH_AK_KEY);
    assert_int_equal(len, 51);
    assert_memory_equal(blob + 4, "ssh-ed25519", 11);
    assert_int_equal(parse("ssh-ed25519 " ED, blob, &len), SSH_AK_KEY);
    assert_int_equal(parse("  \tssh-ed25519\t" ED " comment with spaces\r", blob, &len),
                     SSH_AK_KEY);
    assert_int_equal(parse("ecdsa-sha2-nistp256 " EC " ec", blob, &len), SSH_AK_KEY);
    assert_int_equal(len, 104);
    assert_int_equal(parse("", blob, &len), SSH_AK_BLANK);
    assert_int_equal(parse("   ", blob, &len), SSH_AK_BLANK);
    assert_int_equal(parse("# ssh-ed25519 " ED, blob, &len), SSH_AK_BLANK);
    assert_int_equal(parse("no-pty ssh-ed25519 " ED, blob, &len), SSH_AK_OPTIONS);
    assert_int_equal(parse("command=\"echo a b\",from=\"10.0.0.1\" ssh-ed25519 " ED, blob, &len),
                     SSH_AK_OPTIONS);
    assert_int_equal(parse("command=\"say \\\"hi there\\\"\" ssh-ed25519 " ED, blob, &len),
                     SSH_AK_OPTIONS);
    assert_int_equal(parse("restrict", blob, &len), SSH_AK_MALFORMED);
    assert_int_equal(parse("command=\"never closed ssh-ed25519 " ED, blob, &len), SSH_AK_MALFORMED);
    /* the line's type must be the blob's */
    assert_int_equal(parse("ssh-rsa " ED, blob, &len), SSH_AK_MALFORMED);
    assert_int_equal(parse("ecdsa-sha2-nistp256 " ED, blob, &len), SSH_AK_MALFORMED);
    assert_int_equal(parse("ssh-ed25519 AAAA!!!!", blob, &len), SSH_AK_MALFORMED);
    assert_int_equal(parse("ssh-ed25519", blob, &len), SSH_AK_MALFORMED);
    assert_int_equal(parse("ssh-ed25519 AAAAC3NzaC1", blob, &len), SSH_AK_MALFORMED);
    /* known to OpenSSH, not taken here */
    assert_int_equal(parse("ssh-dss AAAAB3NzaC1kc3MAAAAA", blob, &len), SSH_AK_TYPE);
}

static void test_oversized(void **state)
{
    size_t n = 5 * SSH_AK_BLOB_MAX, len = 0;
    char *line = malloc(n + 16);
    uint8_t blob[SSH_AK_BLOB_MAX];

    (void)state;
    strcpy(line, "ssh-rsa ");
    memset(line + 8, 'A', n);
    line[8 + n] = 0;
    assert_int_equal(parse(line, blob, &len), SSH_AK_MALFORMED);
    free(line);
}

static void test_file_lookup(void **state)
{
    const char *text = "# keys\n"
                       "\n"
                       "command=\"x\" ssh-ed25519 " ED " refused\n"
                       "ecdsa-sha2-nistp256 " EC " ec\r\n";
    char path[] = "/tmp/pz_ak.XXXXXX";
    uint8_t ed[SSH_AK_BLOB_MAX], ec[SSH_AK_BLOB_MAX];
    size_t edlen = 0, eclen = 0;
    int fd;

    (void)state;
    assert_int_equal(parse("ssh-ed25519 " ED, ed, &edlen), SSH_AK_KEY);
    assert_int_equal(parse("ecdsa-sha2-nistp256 " EC, ec, &eclen), SSH_AK_KEY);
    assert_true(ssh_authkeys_has_key(text, strlen(text), ec, eclen));
    assert_false(ssh_authkeys_has_key(text, strlen(text), ed, edlen)); /* only with options */
    assert_false(ssh_authkeys_has_key(text, strlen(text), ec, eclen - 1));
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(ssh_authkeys_file_has_key(path, ec, eclen), 1);
    assert_int_equal(ssh_authkeys_file_has_key(path, ed, edlen), 0);
    unlink(path);
    assert_int_equal(ssh_authkeys_file_has_key(path, ec, eclen), -1);
    assert_int_equal(ssh_authkeys_file_has_key(NULL, ec, eclen), -1);
}

PZT_MAIN(test_lines, test_oversized, test_file_lookup)
