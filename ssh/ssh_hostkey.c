/*
 * ssh_hostkey.c - host key files, public blobs and signatures.
 *
 * Files: ssh_host_ed25519_key is a PKCS#8 PEM "PRIVATE KEY" (RFC 8410 §7:
 * a fixed 16-byte DER prefix and the 32-byte seed; written by hand because
 * mbedtls 2.28 knows no Ed25519 OID), ssh_host_ecdsa_key an SEC1 PEM written
 * and parsed by mbedtls_pk.  Both are readable by `openssl pkey`.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mbedtls/ecdsa.h>
#include <mbedtls/pem.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/sha256.h>
#include <sodium.h>

#include "ssh_hostkey.h"

static const char *const hostkey_names[] = {"ssh-ed25519", "ecdsa-sha2-nistp256", NULL};

/* The host key algorithms, NULL-terminated. */
const char *const *ssh_hostkey_names(void)
{
    return hostkey_names;
}

#define ED25519_PEM_BEGIN "-----BEGIN PRIVATE KEY-----\n"
#define ED25519_PEM_END "-----END PRIVATE KEY-----\n"
/* RFC 8410 §7 OneAsymmetricKey prefix for an Ed25519 private key. */
static const uint8_t ed25519_pkcs8_prefix[16] = {0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06,
                                                 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20};

/* Writes len bytes to path atomically with mode 0600; 0 on success. */
static int write_private_file(const char *path, const uint8_t *data, size_t len)
{
    char tmp[4096];
    int fd, rc = 0;

    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
        return -1;
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    if (write(fd, data, len) != (ssize_t)len || fsync(fd) != 0)
        rc = -1;
    if (close(fd) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0)
        unlink(tmp);
    return rc;
}

/* Reads a small file NUL-terminated into buf; its length, or -1. */
static long read_small_file(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return -1;
    n = fread(buf, 1, cap - 1, f);
    fclose(f);
    if (n == cap - 1)
        return -1;
    buf[n] = 0;
    return (long)n;
}

/* Builds the Ed25519 public blob from ed_sk. */
static void ed25519_blob(struct ssh_hostkey *hk)
{
    struct ssh_wr wr;

    ssh_wr_init(&wr, hk->blob, sizeof(hk->blob));
    ssh_wr_cstring(&wr, "ssh-ed25519");
    ssh_wr_string(&wr, hk->ed_sk + 32, 32);
    hk->blob_len = wr.len;
}

/* Loads or creates the Ed25519 key file; 0 on success. */
static int ed25519_load(struct ssh_hostkey *hk, const char *path, ssh_rng_fn rng, void *rng_ctx)
{
    char text[1024];
    uint8_t der[48], pk[32], seed[32];
    size_t olen = 0;
    mbedtls_pem_context pem;
    int rc = -1;

    if (read_small_file(path, text, sizeof(text)) >= 0) {
        mbedtls_pem_init(&pem);
        if (mbedtls_pem_read_buffer(&pem, "-----BEGIN PRIVATE KEY-----",
                                    "-----END PRIVATE KEY-----", (const unsigned char *)text, NULL,
                                    0, &olen) == 0 &&
            pem.buflen == 48 && memcmp(pem.buf, ed25519_pkcs8_prefix, 16) == 0) {
            crypto_sign_seed_keypair(pk, hk->ed_sk, pem.buf + 16);
            rc = 0;
        }
        mbedtls_pem_free(&pem);
        mbedtls_platform_zeroize(text, sizeof(text));
        return rc;
    }
    if (errno != ENOENT || rng(rng_ctx, seed, sizeof(seed)) != 0)
        return -1;
    crypto_sign_seed_keypair(pk, hk->ed_sk, seed);
    memcpy(der, ed25519_pkcs8_prefix, 16);
    memcpy(der + 16, seed, 32);
    if (mbedtls_pem_write_buffer(ED25519_PEM_BEGIN, ED25519_PEM_END, der, sizeof(der),
                                 (unsigned char *)text, sizeof(text), &olen) == 0)
        rc = write_private_file(path, (const uint8_t *)text, strlen(text));
    mbedtls_platform_zeroize(der, sizeof(der));
    mbedtls_platform_zeroize(seed, sizeof(seed));
    mbedtls_platform_zeroize(text, sizeof(text));
    return rc;
}

/* Builds the ECDSA P-256 public blob from pk; 0 on success. */
static int ecdsa_blob(struct ssh_hostkey *hk)
{
    mbedtls_ecp_keypair *kp = mbedtls_pk_ec(hk->pk);
    uint8_t q[65];
    size_t qlen = 0;
    struct ssh_wr wr;

    if (mbedtls_ecp_point_write_binary(&kp->grp, &kp->Q, MBEDTLS_ECP_PF_UNCOMPRESSED, &qlen, q,
                                       sizeof(q)) != 0)
        return -1;
    ssh_wr_init(&wr, hk->blob, sizeof(hk->blob));
    ssh_wr_cstring(&wr, "ecdsa-sha2-nistp256");
    ssh_wr_cstring(&wr, "nistp256");
    ssh_wr_string(&wr, q, qlen);
    hk->blob_len = wr.len;
    return wr.err ? -1 : 0;
}

/* Loads or creates the ECDSA key file; 0 on success. */
static int ecdsa_load(struct ssh_hostkey *hk, const char *path, ssh_rng_fn rng, void *rng_ctx)
{
    unsigned char pem[1024];
    struct stat st;
    int rc;

    if (stat(path, &st) == 0) {
        if (mbedtls_pk_parse_keyfile(&hk->pk, path, NULL) != 0 ||
            mbedtls_pk_get_type(&hk->pk) != MBEDTLS_PK_ECKEY ||
            mbedtls_pk_ec(hk->pk)->grp.id != MBEDTLS_ECP_DP_SECP256R1)
            return -1;
        return ecdsa_blob(hk);
    }
    if (errno != ENOENT)
        return -1;
    if (mbedtls_pk_setup(&hk->pk, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY)) != 0 ||
        mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(hk->pk), rng, rng_ctx) != 0 ||
        mbedtls_pk_write_key_pem(&hk->pk, pem, sizeof(pem)) != 0)
        return -1;
    rc = write_private_file(path, pem, strlen((char *)pem));
    mbedtls_platform_zeroize(pem, sizeof(pem));
    return rc == 0 ? ecdsa_blob(hk) : -1;
}

/* False if the file exists with group or other permissions (as sshd refuses them). */
static bool private_mode_ok(const char *path)
{
    struct stat st;

    return stat(path, &st) != 0 || (st.st_mode & 077) == 0;
}

/* Loads or generates the host key for alg in dir; 0 on success. */
int ssh_hostkey_load(struct ssh_hostkey *hk, const char *alg, const char *dir, ssh_rng_fn rng,
                     void *rng_ctx, char *err, size_t errlen)
{
    char path[4096];
    int ed = strcmp(alg, "ssh-ed25519") == 0;
    int rc;

    memset(hk, 0, sizeof(*hk));
    mbedtls_pk_init(&hk->pk);
    hk->alg = ed ? "ssh-ed25519" : "ecdsa-sha2-nistp256";
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, ed ? "ssh_host_ed25519_key" : "ssh_host_ecdsa_key");
    if (!private_mode_ok(path)) {
        snprintf(err, errlen, "host key %s: readable by group or others (want mode 0600)", path);
        return -1;
    }
    rc = ed ? ed25519_load(hk, path, rng, rng_ctx) : ecdsa_load(hk, path, rng, rng_ctx);
    if (rc == 0 && ed)
        ed25519_blob(hk);
    if (rc != 0)
        snprintf(err, errlen, "host key %s: cannot load or create", path);
    return rc;
}

/* Wipes the key. */
void ssh_hostkey_free(struct ssh_hostkey *hk)
{
    mbedtls_pk_free(&hk->pk);
    mbedtls_platform_zeroize(hk, sizeof(*hk));
}

/* Appends string(signature blob) over data; 0 on success. */
int ssh_hostkey_sign(struct ssh_hostkey *hk, const uint8_t *data, size_t len, struct ssh_wr *out,
                     ssh_rng_fn rng, void *rng_ctx)
{
    uint8_t sig[64], hash[32], rb[32], sb[32], blob[160];
    mbedtls_ecp_keypair *kp;
    mbedtls_mpi r, s;
    struct ssh_wr wr, inner;
    uint8_t inner_buf[80];
    int rc = -1;

    ssh_wr_init(&wr, blob, sizeof(blob));
    ssh_wr_cstring(&wr, hk->alg);
    if (hk->alg[4] == 'e') { /* ssh-ed25519 */
        crypto_sign_detached(sig, NULL, data, len, hk->ed_sk);
        ssh_wr_string(&wr, sig, 64);
        ssh_wr_string(out, blob, wr.len);
        return wr.err || out->err ? -1 : 0;
    }
    kp = mbedtls_pk_ec(hk->pk);
    mbedtls_mpi_init(&r);
    mbedtls_mpi_init(&s);
    if (mbedtls_sha256_ret(data, len, hash, 0) == 0 &&
        mbedtls_ecdsa_sign_det_ext(&kp->grp, &r, &s, &kp->d, hash, 32, MBEDTLS_MD_SHA256, rng,
                                   rng_ctx) == 0 &&
        mbedtls_mpi_write_binary(&r, rb, 32) == 0 && mbedtls_mpi_write_binary(&s, sb, 32) == 0) {
        ssh_wr_init(&inner, inner_buf, sizeof(inner_buf));
        ssh_wr_mpint(&inner, rb, 32);
        ssh_wr_mpint(&inner, sb, 32);
        ssh_wr_string(&wr, inner_buf, inner.len);
        ssh_wr_string(out, blob, wr.len);
        rc = inner.err || wr.err || out->err ? -1 : 0;
    }
    mbedtls_mpi_free(&r);
    mbedtls_mpi_free(&s);
    return rc;
}
