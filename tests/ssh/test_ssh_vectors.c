/*
 * test_ssh_vectors.c - known answers for the packet protection ssh_cipher.c
 * wires from mbedtls primitives.  Expected values come from independent
 * implementations and published vectors:
 *   - chacha20-poly1305@openssh.com and aes128-gcm@openssh.com: computed with
 *     Python's `cryptography` (OpenSSL) following openssh
 *     PROTOCOL.chacha20poly1305 and PROTOCOL §1.6 (IV counter increment);
 *   - aes128-ctr: NIST SP 800-38A F.5.1 (first block); the MACs over
 *     seq || packet with Python's hmac module (encrypt-and-MAC and -etm);
 *   - ssh-ed25519 host key signature: RFC 8032 §7.1 TEST 1 (empty message).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ssh_cipher.h"
#include "ssh_hostkey.h"
#include "pzt_main.h"

/* Decodes hex into out; the byte count. */
static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = 0;
    unsigned v;

    while (hex[0] && hex[1] && sscanf(hex, "%2x", &v) == 1) {
        out[n++] = (uint8_t)v;
        hex += 2;
    }
    return n;
}

/* The 16-byte test packet: length 12, padding 4, a 7-byte payload, padding. */
static const char *const plain_pkt = "0000000c045e11223344556601020304";

/* Seals pkt with c at seq and compares the output (packet and tag) with want_hex. */
static void seal_expect(struct ssh_cipher *c, uint32_t seq, const char *pkt_hex,
                        const char *want_hex)
{
    uint8_t pkt[256], want[256];
    size_t len = unhex(pkt_hex, pkt), wlen = unhex(want_hex, want);

    assert_int_equal(ssh_cipher_seal(c, seq, pkt, len), 0);
    assert_int_equal(len + ssh_cipher_tag_len(c), wlen);
    assert_memory_equal(pkt, want, wlen);
}

/* Opens want_hex with c at seq and expects pkt_hex back. */
static void open_expect(struct ssh_cipher *c, uint32_t seq, const char *wire_hex,
                        const char *pkt_hex)
{
    uint8_t wire[256], pkt[256];
    size_t wlen = unhex(wire_hex, wire), len = unhex(pkt_hex, pkt);
    uint32_t plen = 0;

    assert_int_equal(ssh_cipher_open_length(c, seq, wire, &plen), 0);
    assert_int_equal(plen + 4, len);
    assert_int_equal(ssh_cipher_open(c, seq, wire, len), 0);
    assert_memory_equal(wire, pkt, len);
    (void)wlen;
}

static void test_chachapoly(void **state)
{
    const char *want = "a39afca62c1804617dc77f386d6fb8f486d92c37424a2def7036eeeb2af34da7";
    struct ssh_cipher c = {0}, d = {0};
    uint8_t key[64];
    int i;

    (void)state;
    for (i = 0; i < 64; i++)
        key[i] = (uint8_t)i;
    ssh_cipher_free(&c);
    ssh_cipher_free(&d);
    assert_int_equal(ssh_cipher_init(&c, ssh_cipher_alg_find("chacha20-poly1305@openssh.com"), NULL,
                                     key, NULL, NULL),
                     0);
    assert_int_equal(ssh_cipher_init(&d, ssh_cipher_alg_find("chacha20-poly1305@openssh.com"), NULL,
                                     key, NULL, NULL),
                     0);
    seal_expect(&c, 7, plain_pkt, want);
    open_expect(&d, 7, want, plain_pkt);
    ssh_cipher_free(&c);
    ssh_cipher_free(&d);
}

static void test_aes128_gcm_two_packets(void **state)
{
    struct ssh_cipher c = {0}, d = {0};
    uint8_t key[16], iv[12];
    int i;

    (void)state;
    for (i = 0; i < 16; i++)
        key[i] = (uint8_t)i;
    for (i = 0; i < 12; i++)
        iv[i] = (uint8_t)(0xa0 + i);
    ssh_cipher_free(&c);
    ssh_cipher_free(&d);
    assert_int_equal(
        ssh_cipher_init(&c, ssh_cipher_alg_find("aes128-gcm@openssh.com"), NULL, key, iv, NULL), 0);
    assert_int_equal(
        ssh_cipher_init(&d, ssh_cipher_alg_find("aes128-gcm@openssh.com"), NULL, key, iv, NULL), 0);
    seal_expect(&c, 0, plain_pkt,
                "0000000caed829994dcd666c8b7ab6040771a01a48d8337c302406d8f38cef3d");
    /* the second packet uses the IV's invocation counter + 1 */
    seal_expect(&c, 1, plain_pkt,
                "0000000cf8d750675fa57986fdb57bb4d0bd3bdcb31d499c0c165f7f7ca5293c");
    open_expect(&d, 0, "0000000caed829994dcd666c8b7ab6040771a01a48d8337c302406d8f38cef3d",
                plain_pkt);
    open_expect(&d, 1, "0000000cf8d750675fa57986fdb57bb4d0bd3bdcb31d499c0c165f7f7ca5293c",
                plain_pkt);
    ssh_cipher_free(&c);
    ssh_cipher_free(&d);
}

/* Set c up as aes128-ctr (the SP 800-38A F.5.1 key and counter) with MAC mac_name
 * keyed 00 01 02 ... 3f. */
static void ctr_init(struct ssh_cipher *c, const char *mac_name)
{
    uint8_t key[16], iv[16], mac[64];

    unhex("2b7e151628aed2a6abf7158809cf4f3c", key);
    unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", iv);
    for (int i = 0; i < 64; i++)
        mac[i] = (uint8_t)i;
    ssh_cipher_free(c);
    assert_int_equal(ssh_cipher_init(c, ssh_cipher_alg_find("aes128-ctr"),
                                     ssh_mac_alg_find(mac_name), key, iv, mac),
                     0);
}

static void test_aes128_ctr_hmac_sha256(void **state)
{
    struct ssh_cipher c = {0};

    (void)state;
    ctr_init(&c, "hmac-sha2-256");
    /* encrypt-and-MAC: the whole packet encrypted; MAC over seq || clear packet */
    seal_expect(&c, 3, "6bc1bee22e409f96e93d7e117393172a",
                "874d6191b620e3261bef6864990db6ce"
                "f9e3356a52147a2c7e0c08106ff72c11520ac8ce86def0f2b50483205a52c08e");
    ssh_cipher_free(&c);
}

static void test_aes128_ctr_hmac_sha512_etm(void **state)
{
    struct ssh_cipher c = {0};

    (void)state;
    ctr_init(&c, "hmac-sha2-512-etm@openssh.com");
    /* EtM: length in clear, the rest encrypted, MAC over seq || length || ciphertext */
    seal_expect(&c, 3, "6bc1bee22e409f96e93d7e117393172a000102030405060708090a0b",
                "6bc1bee2c2cc40e5715d02a18141015fea9fa3e7322e7a3b6f7a5b68"
                "1a7c26ae987ed0edfe4c448192803183b9a8b2506f84668d32e63ec7136dbe7b"
                "973e6462fc95d55fc52b6c45cb72b94aec52f535e7cf9405c3f898511b325713");
    ssh_cipher_free(&c);
}

/* Random bytes for the host key loader (not used for an existing key file). */
static int fake_rng(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    memset(out, 0x5a, len);
    return 0;
}

static void test_ed25519_rfc8032(void **state)
{
    /* RFC 8032 §7.1 TEST 1: the seed, as the PKCS#8 PEM this module stores. */
    const char *pem = "-----BEGIN PRIVATE KEY-----\n"
                      "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
                      "-----END PRIVATE KEY-----\n";
    const char *want_sig = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                           "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";
    const char *want_pk = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
    char dir[] = "/tmp/pz_ssh_vec.XXXXXX", path[256], err[128];
    struct ssh_hostkey hk;
    uint8_t out[256], sig[64], pk[32];
    struct ssh_wr wr;
    FILE *f;

    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/ssh_host_ed25519_key", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(pem, f);
    fclose(f);
    assert_int_equal(chmod(path, 0600), 0); /* a host key readable by others is refused */
    assert_int_equal(ssh_hostkey_load(&hk, "ssh-ed25519", dir, fake_rng, NULL, err, sizeof(err)),
                     0);
    unhex(want_pk, pk);
    /* blob: string "ssh-ed25519" (4 + 11 bytes), string A (4 + 32) */
    assert_int_equal(hk.blob_len, 51);
    assert_memory_equal(hk.blob + 19, pk, 32);
    ssh_wr_init(&wr, out, sizeof(out));
    assert_int_equal(ssh_hostkey_sign(&hk, (const uint8_t *)"", 0, &wr, fake_rng, NULL), 0);
    /* string(string "ssh-ed25519", string sig) */
    assert_int_equal(wr.len, 4 + 15 + 4 + 64);
    unhex(want_sig, sig);
    assert_memory_equal(out + 4 + 15 + 4, sig, 64);
    ssh_hostkey_free(&hk);
    unlink(path);
    rmdir(dir);
}

PZT_MAIN(test_chachapoly, test_aes128_gcm_two_packets, test_aes128_ctr_hmac_sha256,
         test_aes128_ctr_hmac_sha512_etm, test_ed25519_rfc8032)
