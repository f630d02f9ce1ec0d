/*
 * ssh_auth_password.c - the "password" method of ssh-userauth (RFC 4252
 * §8) against crypt(3) hashes, verified off the caller's thread.
 *
 * An attempt puts its connection in a pending state: it sends nothing and
 * takes no further input (so no packet is reordered) until the verdict.
 * First the attempt waits for its source address's back-off turn
 * (ssh_backoff.c; the password is kept meanwhile, nothing is hashed), then
 * it goes to the verifier's queue (ssh_pwcheck.c; a full queue refuses it),
 * and ssh_server_verdicts() answers it when a worker is done.  Unknown users
 * and users without a hash are hashed too (another user's setting, same
 * algorithm and cost, or a sha512-crypt dummy) and fail: the answer's timing
 * does not tell which users exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/platform_util.h>

#include "ssh_internal.h"
#include "ssh_pwcheck.h"

#define PW_MAX 1024
/* A sha512-crypt setting hashed when no user has a password hash to borrow. */
#define DUMMY_SETTING "$6$pzdummysalt0000$"

/* The configured hash of user index user, or NULL. */
static const char *user_hash(const struct ssh_server *s, int user)
{
    const char *h = user >= 0 ? s->cfg.users[user].password_hash : NULL;

    return h && *h ? h : NULL;
}

/* The setting to hash with when the user has no hash: another user's, or the dummy. */
static const char *borrowed_setting(const struct ssh_server *s)
{
    for (int i = 0; i < SSH_USER_COUNT; i++)
        if (user_hash(s, i))
            return user_hash(s, i);
    return DUMMY_SETTING;
}

/* The user's name for the log ("unknown user" for -1). */
static const char *user_name(const struct ssh_conn *c, int user)
{
    return user >= 0 ? c->srv->cfg.users[user].name : "unknown user";
}

/* Wipes and frees the password kept for the back-off turn. */
static void drop_held(struct ssh_conn *c)
{
    if (!c->pw_held)
        return;
    mbedtls_platform_zeroize(c->pw_held, c->pw_held_len);
    free(c->pw_held);
    c->pw_held = NULL;
    c->pw_held_len = 0;
}

/* Hands the attempt to the verifier; a full queue refuses it. */
static void submit(struct ssh_conn *c, const char *pw)
{
    const struct ssh_server *s = c->srv;

    if (ssh_pwcheck_submit(s->pwcheck, c, pw, c->pw_setting, c->pw_hash) == 0)
        return;
    c->pw_pending = false;
    ssh_log(c, SSH_LOG_WARN,
            "password verifier busy (%u attempts waiting): attempt from %s refused",
            s->cfg.pw_queue, c->peer);
    ssh_auth_failed(c, true);
}

/* Keeps pw until the attempt's turn at now + wait. */
static void hold(struct ssh_conn *c, const char *pw, uint64_t wait)
{
    size_t len = strlen(pw) + 1;

    c->pw_held = malloc(len);
    if (!c->pw_held) {
        c->pw_pending = false;
        ssh_auth_failed(c, true);
        return;
    }
    memcpy(c->pw_held, pw, len);
    c->pw_held_len = len;
    c->pw_turn = c->now + wait;
    ssh_log(c, SSH_LOG_INFO, "password attempt from %s waits %llu ms (back-off, turn at %llu)",
            c->peer, (unsigned long long)wait, (unsigned long long)c->pw_turn);
}

/* A password request: the connection goes pending; the attempt waits for its back-off
 * turn or goes to the verifier at once.  A malformed request or a password change fails
 * at once (after the failure delay), unhashed. */
void ssh_auth_password(struct ssh_conn *c, int user, struct ssh_rd *rd)
{
    char *pw = malloc(PW_MAX);
    uint64_t wait, turn;
    bool change;

    if (!pw) {
        ssh_auth_failed(c, true);
        return;
    }
    change = ssh_rd_bool(rd);
    ssh_rd_cstring(rd, pw, PW_MAX);
    if (!ssh_rd_end(rd) || change) { /* no password change: a plain failure, unhashed */
        mbedtls_platform_zeroize(pw, PW_MAX);
        free(pw);
        ssh_auth_failed(c, true);
        return;
    }
    c->pw_user = user;
    c->pw_hash = user_hash(c->srv, user);
    c->pw_setting = c->pw_hash ? c->pw_hash : borrowed_setting(c->srv);
    c->pw_pending = true;
    wait = ssh_backoff_turn(c->srv->backoff, c->peer, c->now, &turn);
    if (wait) {
        hold(c, pw, wait);
    } else {
        if (turn) /* in back-off, but the client came after its turn */
            ssh_log(c, SSH_LOG_INFO, "password attempt from %s waits 0 ms (back-off, turn at %llu)",
                    c->peer, (unsigned long long)turn);
        submit(c, pw);
    }
    mbedtls_platform_zeroize(pw, PW_MAX);
    free(pw);
}

/* The held attempt's turn came: to the verifier. */
void ssh_auth_password_tick(struct ssh_conn *c)
{
    if (!c->pw_held || c->now < c->pw_turn)
        return;
    submit(c, c->pw_held);
    drop_held(c);
}

/* Counts a failed password of c's address; logs the back-off's start; returns the count. */
static uint32_t count_failure(struct ssh_conn *c)
{
    const struct ssh_server_config *cfg = &c->srv->cfg;
    uint32_t n = ssh_backoff_failed(c->srv->backoff, c->peer, c->now);

    if (n == cfg->backoff_after)
        ssh_log(c, SSH_LOG_WARN,
                "back-off for %s after %u failed passwords: its attempts now wait %u ms apart, "
                "doubling per failure up to %u ms",
                c->peer, n, cfg->backoff_base_ms, cfg->backoff_max_ms);
    return n;
}

/*
 * The connection is freed: wipe the held password, cancel the verifier job.  An attempt
 * already handed to the verifier counts as a failure of the address: a client that sends
 * a password and hangs up before the verdict would otherwise guess without ever meeting
 * the back-off (a waiting job leaves the queue unhashed; one being hashed runs out).
 */
void ssh_auth_password_drop(struct ssh_conn *c)
{
    bool submitted = c->pw_pending && !c->pw_held;

    drop_held(c);
    if (c->pw_pending && c->srv->pwcheck)
        ssh_pwcheck_cancel(c->srv->pwcheck, c);
    if (submitted && !c->authenticated)
        ssh_log(c, SSH_LOG_INFO,
                "password attempt for %s from %s abandoned before its verdict (%u failures from "
                "the address)",
                user_name(c, c->pw_user), c->peer, count_failure(c));
    c->pw_pending = false;
}

/* A failed password: counted for the address (the back-off's start logged), answered
 * after the failure delay. */
static void verdict_failed(struct ssh_conn *c)
{
    uint32_t n = count_failure(c);

    ssh_log(c, SSH_LOG_INFO, "password for %s from %s refused (%u failures from the address)",
            user_name(c, c->pw_user), c->peer, n);
    ssh_auth_failed(c, true);
}

/* A verdict for the connection owner (at *now). */
static void on_verdict(void *arg, void *owner, bool ok)
{
    struct ssh_conn *c = owner;

    c->now = *(const uint64_t *)arg;
    c->pw_pending = false;
    if (c->finished) { /* the client left before its verdict: a failure still counts */
        if (!ok)
            count_failure(c);
        return;
    }
    if (ok && c->pw_user >= 0) {
        /* The address's failures stay (forgotten after backoff_forget_ms): a password known
         * for one user must not buy more guesses at the other. */
        ssh_auth_success(c, (enum ssh_user_id)c->pw_user);
    } else {
        verdict_failed(c);
    }
}

/* Whether a password attempt waits for its back-off turn. */
bool ssh_conn_waiting_turn(const struct ssh_conn *c)
{
    return c->pw_held != NULL;
}

/* The verifier's descriptor, -1 without one. */
int ssh_server_verdict_fd(const struct ssh_server *srv)
{
    return srv->pwcheck ? ssh_pwcheck_fd(srv->pwcheck) : -1;
}

/* Answers the connections whose verdict came. */
void ssh_server_verdicts(struct ssh_server *srv, uint64_t now)
{
    if (srv->pwcheck)
        ssh_pwcheck_collect(srv->pwcheck, on_verdict, &now);
}

/* The back-off table and the verifier, when some user has a hash. */
int ssh_auth_password_start(struct ssh_server *s, char *err, size_t errlen)
{
    const struct ssh_backoff_config bc = {.after = s->cfg.backoff_after,
                                          .base_ms = s->cfg.backoff_base_ms,
                                          .max_ms = s->cfg.backoff_max_ms,
                                          .forget_ms = s->cfg.backoff_forget_ms,
                                          .table = s->cfg.backoff_table};
    bool any = false;

    for (int i = 0; i < SSH_USER_COUNT; i++)
        any = any || user_hash(s, i);
    if (!any)
        return 0; /* no password method: no threads */
    s->backoff = ssh_backoff_new(&bc);
    if (!s->backoff) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->pwcheck = ssh_pwcheck_new(s->cfg.pw_workers, s->cfg.pw_queue, err, errlen);
    return s->pwcheck ? 0 : -1;
}

/* Stops the verifier, frees the table. */
void ssh_auth_password_stop(struct ssh_server *s)
{
    ssh_pwcheck_free(s->pwcheck);
    s->pwcheck = NULL;
    ssh_backoff_free(s->backoff);
    s->backoff = NULL;
}
