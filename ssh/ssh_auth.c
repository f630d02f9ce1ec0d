/*
 * ssh_auth.c - the ssh-userauth service (RFC 4252): "none", "publickey"
 * (RFC 4252 §7, keys from the user's authorized_keys) and "password"
 * (RFC 4252 §8, ssh_auth_password.c), attempt limits and the delay after
 * a failure, which holds back further input instead of blocking.
 */
#include <stdlib.h>
#include <string.h>

#include "ssh_authkeys.h"
#include "ssh_internal.h"
#include "ssh_userkey.h"

/*
 * Handles SERVICE_REQUEST before authentication: only ssh-userauth is offered (RFC 4253
 * §10), and accepted each time it is asked for, as OpenSSH's sshd does (paramiko asks
 * again before every authentication attempt).
 */
void ssh_auth_service_request(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    uint8_t buf[32];
    struct ssh_rd rd;
    struct ssh_wr wr;

    ssh_rd_init(&rd, p + 1, len - 1);
    if (!ssh_rd_string_is(&rd, "ssh-userauth") || !ssh_rd_end(&rd)) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_SERVICE_NOT_AVAILABLE, "service not available");
        return;
    }
    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_SERVICE_ACCEPT);
    ssh_wr_cstring(&wr, "ssh-userauth");
    c->userauth_service = true;
    ssh_send(c, buf, wr.len);
}

/* True if some user has a password hash (then "password" is listed for everyone, so the
 * list does not tell which users exist). */
bool ssh_auth_any_password(const struct ssh_conn *c)
{
    int i;

    for (i = 0; i < SSH_USER_COUNT; i++)
        if (c->srv->cfg.users[i].password_hash && *c->srv->cfg.users[i].password_hash)
            return true;
    return false;
}

/* Sends USERAUTH_FAILURE with the methods that can continue. */
static void send_failure(struct ssh_conn *c)
{
    uint8_t buf[64];
    struct ssh_wr wr;

    ssh_wr_init(&wr, buf, sizeof(buf));
    ssh_wr_u8(&wr, SSH_MSG_USERAUTH_FAILURE);
    ssh_wr_cstring(&wr, ssh_auth_any_password(c) ? "publickey,password" : "publickey");
    ssh_wr_u8(&wr, 0);
    ssh_send(c, buf, wr.len);
}

/* A failed attempt: counted; answered after the delay when slow, at once otherwise. */
void ssh_auth_failed(struct ssh_conn *c, bool slow)
{
    c->auth_failures++;
    if (c->auth_failures >= c->srv->cfg.max_auth_tries) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE,
                            "too many authentication failures");
        return;
    }
    if (!slow) {
        send_failure(c);
        return;
    }
    c->auth_failure_pending = true;
    c->auth_stall_until = c->now + c->srv->cfg.auth_fail_delay_ms;
}

/* Sends the delayed failure answer when its time has come; a password attempt whose
 * back-off turn came goes to the verifier. */
void ssh_auth_tick(struct ssh_conn *c)
{
    ssh_auth_password_tick(c);
    if (c->auth_failure_pending && c->now >= c->auth_stall_until) {
        c->auth_failure_pending = false;
        send_failure(c);
    }
}

/* A user logged in: the caller may still refuse; else USERAUTH_SUCCESS. */
void ssh_auth_success(struct ssh_conn *c, enum ssh_user_id user)
{
    uint8_t msg = SSH_MSG_USERAUTH_SUCCESS;

    if (c->ops->authenticated && !c->ops->authenticated(c->app, user)) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_TOO_MANY_CONNECTIONS, "too many sessions");
        return;
    }
    c->authenticated = true;
    c->user = user;
    ssh_log(c, SSH_LOG_INFO, "user %s logged in", c->srv->cfg.users[user].name);
    ssh_send(c, &msg, 1);
}

/* The configured user named name, or -1. */
static int find_user(const struct ssh_conn *c, const char *name)
{
    int i;

    for (i = 0; i < SSH_USER_COUNT; i++)
        if (c->srv->cfg.users[i].name && strcmp(c->srv->cfg.users[i].name, name) == 0)
            return i;
    return -1;
}

/* Sends USERAUTH_PK_OK for a key the user may log in with. */
static void send_pk_ok(struct ssh_conn *c, const char *alg, const uint8_t *blob, size_t len)
{
    uint8_t *buf = malloc(len + 128);
    struct ssh_wr wr;

    if (!buf)
        return;
    ssh_wr_init(&wr, buf, len + 128);
    ssh_wr_u8(&wr, SSH_MSG_USERAUTH_PK_OK);
    ssh_wr_cstring(&wr, alg);
    ssh_wr_string(&wr, blob, len);
    if (!wr.err)
        ssh_send(c, buf, wr.len);
    free(buf);
}

/* Verifies the signature over string(session_id) || the request up to the signature. */
static bool signature_ok(struct ssh_conn *c, const char *alg, const uint8_t *blob, size_t blob_len,
                         const uint8_t *req, size_t signed_len, const uint8_t *sig, size_t sig_len)
{
    uint8_t *data = malloc(signed_len + 36);
    struct ssh_wr wr;
    bool ok;

    if (!data)
        return false;
    ssh_wr_init(&wr, data, signed_len + 36);
    ssh_wr_string(&wr, c->session_id, 32);
    ssh_wr_bytes(&wr, req, signed_len);
    ok = !wr.err && ssh_userkey_verify(alg, blob, blob_len, sig, sig_len, data, wr.len) == 0;
    free(data);
    return ok;
}

/* "publickey": bool has_sig, string alg, string blob [, string signature]. */
static void method_publickey(struct ssh_conn *c, int user, struct ssh_rd *rd, const uint8_t *req)
{
    char alg[64];
    const uint8_t *blob, *sig = NULL;
    size_t blob_len, sig_len = 0, signed_len;
    bool has_sig, listed;

    has_sig = ssh_rd_bool(rd);
    ssh_rd_cstring(rd, alg, sizeof(alg));
    blob = ssh_rd_string(rd, &blob_len);
    signed_len = rd->pos;
    if (has_sig)
        sig = ssh_rd_string(rd, &sig_len);
    if (!ssh_rd_end(rd) || !ssh_userkey_alg_fits(alg, blob, blob_len)) {
        ssh_auth_failed(c, false);
        return;
    }
    listed = user >= 0 && ssh_authkeys_file_has_key(c->srv->cfg.users[user].authorized_keys, blob,
                                                    blob_len) == 1;
    if (!has_sig) {
        if (listed)
            send_pk_ok(c, alg, blob, blob_len);
        else
            ssh_auth_failed(c, false);
        return;
    }
    if (listed && signature_ok(c, alg, blob, blob_len, req, signed_len, sig, sig_len))
        ssh_auth_success(c, (enum ssh_user_id)user);
    else
        ssh_auth_failed(c, true);
}

/* Handles USERAUTH_REQUEST: user, service, method, method fields. */
void ssh_auth_request(struct ssh_conn *c, const uint8_t *p, size_t len)
{
    char user[65], method[32];
    struct ssh_rd rd;
    int uid;

    ssh_rd_init(&rd, p, len);
    ssh_rd_u8(&rd);
    ssh_rd_cstring(&rd, user, sizeof(user));
    if (!ssh_rd_string_is(&rd, "ssh-connection")) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_SERVICE_NOT_AVAILABLE, "service not available");
        return;
    }
    ssh_rd_cstring(&rd, method, sizeof(method));
    if (rd.err) {
        ssh_conn_disconnect(c, SSH_DISCONNECT_PROTOCOL_ERROR, "bad USERAUTH_REQUEST");
        return;
    }
    uid = find_user(c, user);
    if (strcmp(method, "none") == 0)
        send_failure(c);
    else if (strcmp(method, "publickey") == 0)
        method_publickey(c, uid, &rd, p);
    else if (strcmp(method, "password") == 0 && ssh_auth_any_password(c))
        ssh_auth_password(c, uid, &rd);
    else
        ssh_auth_failed(c, false);
}
