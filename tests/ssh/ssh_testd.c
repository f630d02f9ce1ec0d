/*
 * ssh_testd.c - test harness for the ssh/ library: a Linux TCP listener on
 * 127.0.0.1 that runs one ssh_conn per accepted socket from a poll() loop,
 * so the real OpenSSH client and ssh-audit can be pointed at it.
 *
 * Commands (exec, and in the shell through the cli/ line editor):
 *   echo ARGS     ARGS and a newline          whoami     the user's name
 *   exit N        exit status N               configure  admin only (monitor: denied, 1)
 *   cat PATH      the file's bytes (exec)     cat        stdin echoed back (exec)
 *   sha256        SHA-256 hex of stdin (exec) help       the command list
 *   sleep MS      silent for MS ms, then exits 0 (exec; one a connection)
 *   seq N         the numbers 1 to N, one a line (N at most 100000: ~590 kB)
 *
 * Usage: ssh_testd --state DIR [--port N] [--admin-keys F] [--monitor-keys F]
 *        [--admin-hash H] [--monitor-hash H] [--max-auth N] [--fail-delay MS]
 *        [--grace MS] [--idle MS] [--rekey-bytes N] [--rekey-ms MS] [--max-sessions N]
 *        [--compat on|off] (ssh_compat_algorithms: NIST P-256, non-etm MACs)
 *        [--pw-workers N] [--pw-queue N] [--backoff-after N (0: off)] [--backoff-base MS]
 *        [--backoff-max MS] [--backoff-forget MS] [--backoff-table N]
 *        [--kex L] [--hostkeys L] [--ciphers L] [--macs L]   (L: comma-separated)
 * Prints "listening PORT" on stdout when ready (port 0: the kernel picks one);
 * logs to stderr (the library's lines as "[conn N] T LEVEL: text", T the monotonic
 * clock in ms: tests read delays from it); exits 0 on SIGTERM after freeing everything.
 * Password verdicts come from the library's worker threads through its verdict
 * descriptor, polled with the sockets; clients' addresses key the back-off.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mbedtls/sha256.h>

#include "line_editor.h"
#include "ssh.h"

#define MAX_CONNS 64
#define IN_BUF 65536
#define OUT_PENDING_MAX (4u << 20)

static volatile sig_atomic_t stop_requested;

enum mode { MODE_NONE, MODE_SHELL, MODE_FILE, MODE_CAT, MODE_SHA256 };

struct tsession {
    struct tconn *tc;
    struct ssh_session *s;
    enum mode mode;
    uint8_t *pend; /* output not yet taken by the library */
    size_t pend_len, pend_from_input;
    FILE *file;
    mbedtls_sha256_context sha;
    bool exiting;
    uint32_t status;
    uint64_t wake_at; /* "sleep MS": exits 0 then, silent until */
    struct line_editor le;
};

struct tconn {
    struct server *srv;
    int fd, id;
    struct ssh_conn *conn;
    uint8_t in[IN_BUF];
    size_t in_len;
    bool counted, dead;
    struct tsession *sleeper; /* a running "sleep MS" command, or NULL */
};

struct server {
    struct ssh_server *ssh;
    struct ssh_server_config cfg;
    struct tconn *conns[MAX_CONNS];
    unsigned sessions, max_sessions;
    int next_id;
};

/* Milliseconds of the monotonic clock. */
static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* SIGTERM/SIGINT: leave the loop. */
static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The transport's write: non-blocking send; takes what the socket takes. */
static size_t conn_write(void *app, const uint8_t *buf, size_t len)
{
    struct tconn *tc = app;
    ssize_t n;

    if (tc->dead)
        return len;
    n = send(tc->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        tc->dead = true;
        return len;
    }
    return (size_t)n;
}

/* Library log lines to stderr, tagged with the connection. */
static void conn_log(void *app, enum ssh_log_level level, const char *msg)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    struct tconn *tc = app;

    fprintf(stderr, "[conn %d] %llu %s: %s\n", tc->id, (unsigned long long)now_ms(), names[level],
            msg);
}

/* Session limit: counts logged-in connections. */
static bool conn_authenticated(void *app, enum ssh_user_id user)
{
    struct tconn *tc = app;

    if (tc->srv->sessions >= tc->srv->max_sessions) {
        fprintf(stderr, "[conn %d] session limit %u reached\n", tc->id, tc->srv->max_sessions);
        return false;
    }
    tc->srv->sessions++;
    tc->counted = true;
    fprintf(stderr, "[conn %d] login %s\n", tc->id, user == SSH_USER_ADMIN ? "admin" : "monitor");
    return true;
}

/* Offers pending output to the library, then refills from the file; ends when done. */
static void pump(struct tsession *ts)
{
    size_t n;

    for (;;) {
        if (ts->pend_len) {
            n = ssh_session_write(ts->s, ts->pend, ts->pend_len);
            memmove(ts->pend, ts->pend + n, ts->pend_len - n);
            ts->pend_len -= n;
            if (ts->pend_from_input) {
                size_t back = n < ts->pend_from_input ? n : ts->pend_from_input;

                ts->pend_from_input -= back;
                ssh_session_input_done(ts->s, back);
            }
            if (ts->pend_len)
                return; /* session_writable will come */
        }
        if (ts->mode == MODE_FILE && ts->file) {
            n = fread(ts->pend, 1, 32768, ts->file);
            if (n > 0) {
                ts->pend_len = n;
                continue;
            }
            fclose(ts->file);
            ts->file = NULL;
            ts->exiting = true;
        }
        break;
    }
    if (ts->exiting && !ts->pend_len) {
        ts->exiting = false;
        ssh_session_exit(ts->s, ts->status);
    }
}

/* Appends output for the session and pumps it. */
static void sess_out(struct tsession *ts, const void *buf, size_t len)
{
    if (ts->pend_len + len > OUT_PENDING_MAX)
        len = OUT_PENDING_MAX - ts->pend_len;
    memcpy(ts->pend + ts->pend_len, buf, len);
    ts->pend_len += len;
    pump(ts);
}

/* printf into the session's output; "\n" becomes "\r\n" in a shell. */
static void sess_printf(struct tsession *ts, const char *fmt, ...)
{
    char buf[1024], crlf[2048];
    size_t i, k = 0;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    for (i = 0; buf[i] && k + 2 < sizeof(crlf); i++) {
        if (buf[i] == '\n' && ts->mode == MODE_SHELL)
            crlf[k++] = '\r';
        crlf[k++] = buf[i];
    }
    sess_out(ts, crlf, k);
}

/* Ends the session after its output with status. */
static void sess_finish(struct tsession *ts, uint32_t status)
{
    ts->status = status;
    ts->exiting = true;
    pump(ts);
}

static const char *const commands[] = {"cat", "configure", "echo",   "exit", "help",
                                       "seq", "sha256",    "whoami", NULL};

/* "seq N": the numbers 1..N, one a line (all of it queued: the pump sends it on). */
static int print_seq(struct tsession *ts, const char *arg)
{
    unsigned long n = strtoul(arg, NULL, 10), i;

    if (n > 100000) {
        sess_printf(ts, "seq: at most 100000\n");
        return 1;
    }
    for (i = 1; i <= n; i++)
        sess_printf(ts, "%lu\n", i);
    return 0;
}

/* Runs one command line; returns -1 if it keeps running (stream), else its exit status
 * (>= 0), or -2 for "exit" (with status in *status). */
static int run_command(struct tsession *ts, const char *cmdline, uint32_t *status)
{
    enum ssh_user_id user = ssh_session_user(ts->s);
    char buf[LE_LINE_MAX + 1], *line = buf;
    size_t len;
    unsigned i;

    snprintf(buf, sizeof(buf), "%s", cmdline);
    len = strlen(buf);
    while (len && buf[len - 1] == ' ')
        buf[--len] = 0;
    while (*line == ' ')
        line++;
    if (strncmp(line, "echo", 4) == 0 && (line[4] == ' ' || !line[4])) {
        sess_printf(ts, "%s\n", line[4] ? line + 5 : "");
        return 0;
    }
    if (strncmp(line, "seq ", 4) == 0)
        return print_seq(ts, line + 4);
    if (strcmp(line, "whoami") == 0) {
        sess_printf(ts, "%s\n", user == SSH_USER_ADMIN ? "admin" : "monitor");
        return 0;
    }
    if (strncmp(line, "exit", 4) == 0 && (line[4] == ' ' || !line[4])) {
        *status = (uint32_t)strtoul(line + 4, NULL, 10);
        return -2;
    }
    if (strcmp(line, "configure") == 0) {
        if (user != SSH_USER_ADMIN) {
            const char msg[] = "configure: permission denied\n";

            ssh_session_write_stderr(ts->s, (const uint8_t *)msg, sizeof(msg) - 1);
            return 1;
        }
        sess_printf(ts, "configured\n");
        return 0;
    }
    if (strcmp(line, "help") == 0 || strcmp(line, "?") == 0) {
        for (i = 0; commands[i]; i++)
            sess_printf(ts, "%s\n", commands[i]);
        return 0;
    }
    if (*line == 0)
        return 0;
    sess_printf(ts, "%s: unknown command\n", line);
    return 127;
}

/* Terminal output of the line editor. */
static void le_output(void *ctx, const char *buf, size_t len)
{
    sess_out(ctx, buf, len);
}

/* Tab completion: command names starting with the typed word. */
static size_t le_complete(void *ctx, const char *line, size_t len, const char **cands, size_t max)
{
    size_t n = 0, i;

    (void)ctx;
    for (i = 0; i < len; i++)
        if (line[i] == ' ')
            return 0; /* only the first word */
    for (i = 0; commands[i] && n < max; i++)
        if (strncmp(commands[i], line, len) == 0)
            cands[n++] = commands[i];
    return n;
}

static const struct le_ops le_ops = {le_output, le_complete};

/* A shell or exec request. */
static int sess_start(void *app, struct ssh_session *s, enum ssh_session_kind kind,
                      const char *command)
{
    struct tsession *ts = calloc(1, sizeof(*ts));
    uint32_t status = 0;
    int rc;

    (void)app;
    if (!ts || !(ts->pend = malloc(OUT_PENDING_MAX))) {
        free(ts);
        return -1;
    }
    ts->s = s;
    ssh_session_set_data(s, ts);
    fprintf(stderr, "session start %s %s\n", kind == SSH_SESSION_SHELL ? "shell" : "exec",
            command ? command : "");
    {
        unsigned cols = 0, rows = 0;

        if (ssh_session_pty(s, &cols, &rows))
            fprintf(stderr, "pty %ux%u\n", cols, rows);
    }
    if (kind == SSH_SESSION_SHELL) {
        ts->mode = MODE_SHELL;
        le_init(&ts->le, &le_ops, ts, "pz> ");
        sess_printf(ts, "portzero test shell\n");
        le_prompt(&ts->le);
        return 0;
    }
    if (strncmp(command, "cat ", 4) == 0) {
        ts->file = fopen(command + 4, "rb");
        if (!ts->file) {
            sess_finish(ts, 1);
            return 0;
        }
        ts->mode = MODE_FILE;
        pump(ts);
        return 0;
    }
    if (strcmp(command, "cat") == 0) {
        ts->mode = MODE_CAT;
        return 0;
    }
    if (strncmp(command, "sleep ", 6) == 0 && !((struct tconn *)app)->sleeper) {
        ts->wake_at = now_ms() + strtoull(command + 6, NULL, 10);
        ((struct tconn *)app)->sleeper = ts; /* silent until then: conn_event ends it */
        return 0;
    }
    if (strcmp(command, "sha256") == 0) {
        ts->mode = MODE_SHA256;
        mbedtls_sha256_init(&ts->sha);
        mbedtls_sha256_starts_ret(&ts->sha, 0);
        return 0;
    }
    rc = run_command(ts, command, &status);
    sess_finish(ts, rc == -2 ? status : (uint32_t)rc);
    return 0;
}

/* Shell input through the line editor; a line runs as a command. */
static size_t shell_input(struct tsession *ts, const uint8_t *data, size_t len)
{
    char line[LE_LINE_MAX + 1];
    size_t used, off = 0;
    uint32_t status = 0;
    enum le_result r;
    int rc;

    while (off < len && !ts->exiting) {
        r = le_input(&ts->le, data + off, len - off, &used, line, sizeof(line));
        off += used;
        if (r == LE_EOF) {
            sess_finish(ts, 0);
            break;
        }
        if (r != LE_LINE)
            continue;
        rc = run_command(ts, line, &status);
        if (rc == -2) {
            sess_finish(ts, status);
            break;
        }
        le_prompt(&ts->le);
    }
    return len;
}

/* Client input to a session. */
static size_t sess_input(void *app, struct ssh_session *s, const uint8_t *data, size_t len)
{
    struct tsession *ts = ssh_session_data(s);

    (void)app;
    switch (ts->mode) {
    case MODE_SHELL:
        return shell_input(ts, data, len);
    case MODE_SHA256:
        mbedtls_sha256_update_ret(&ts->sha, data, len);
        return len;
    case MODE_CAT:
        /* echoed back; the window reopens only as the echo leaves */
        memcpy(ts->pend + ts->pend_len, data, len);
        ts->pend_len += len;
        ts->pend_from_input += len;
        pump(ts);
        return 0;
    default:
        return len;
    }
}

/* The client's EOF: sha256 prints its digest, cat ends after the echo. */
static void sess_eof(void *app, struct ssh_session *s)
{
    struct tsession *ts = ssh_session_data(s);
    uint8_t hash[32];
    char hex[65];
    int i;

    (void)app;
    if (ts->mode == MODE_SHA256) {
        mbedtls_sha256_finish_ret(&ts->sha, hash);
        for (i = 0; i < 32; i++)
            sprintf(hex + 2 * i, "%02x", hash[i]);
        sess_printf(ts, "%s\n", hex);
        sess_finish(ts, 0);
    } else if (ts->mode == MODE_CAT) {
        sess_finish(ts, 0);
    }
}

/* Room again: pump pending output. */
static void sess_writable(void *app, struct ssh_session *s)
{
    (void)app;
    pump(ssh_session_data(s));
}

/* Terminal size change: logged for the tests. */
static void sess_resize(void *app, struct ssh_session *s, unsigned cols, unsigned rows)
{
    (void)app;
    (void)s;
    fprintf(stderr, "window-change %ux%u\n", cols, rows);
}

/* The session is gone. */
static void sess_closed(void *app, struct ssh_session *s)
{
    struct tsession *ts = ssh_session_data(s);

    if (!ts)
        return;
    if (((struct tconn *)app)->sleeper == ts)
        ((struct tconn *)app)->sleeper = NULL;
    if (ts->file)
        fclose(ts->file);
    if (ts->mode == MODE_SHA256)
        mbedtls_sha256_free(&ts->sha);
    free(ts->pend);
    free(ts);
}

static const struct ssh_conn_ops conn_ops = {
    conn_write, conn_log,      conn_authenticated, sess_start,  sess_input,
    sess_eof,   sess_writable, sess_resize,        sess_closed,
};

/* Splits a comma-separated list into a NULL-terminated array (kept for the run). */
static const char *const *split_list(char *s)
{
    const char **v = calloc(16, sizeof(*v));
    int n = 0;
    char *tok, *save = NULL;

    for (tok = strtok_r(s, ",", &save); tok && n < 15; tok = strtok_r(NULL, ",", &save))
        v[n++] = tok;
    return v;
}

/* Feeds buffered input; the rest stays for later. */
static void offer_input(struct tconn *tc, uint64_t now)
{
    size_t n;

    if (!tc->in_len)
        return;
    n = ssh_conn_input(tc->conn, tc->in, tc->in_len, now);
    memmove(tc->in, tc->in + n, tc->in_len - n);
    tc->in_len -= n;
}

/* Closes and frees a connection. */
static void conn_close(struct server *srv, int slot)
{
    struct tconn *tc = srv->conns[slot];
    struct ssh_conn_stats st;

    ssh_conn_get_stats(tc->conn, &st);
    fprintf(stderr, "[conn %d] closed: reason %d, %u key exchanges, %u auth failures\n", tc->id,
            st.disconnect_reason, st.kex_done, st.auth_failures);
    ssh_conn_free(tc->conn);
    if (tc->counted)
        srv->sessions--;
    close(tc->fd);
    free(tc);
    srv->conns[slot] = NULL;
}

/* Accepts a connection. */
static void accept_conn(struct server *srv, int lfd)
{
    struct sockaddr_in peer = {0};
    socklen_t plen = sizeof(peer);
    int fd = accept(lfd, (struct sockaddr *)&peer, &plen), slot;
    char addr[INET_ADDRSTRLEN] = "";
    struct tconn *tc;

    if (fd < 0)
        return;
    for (slot = 0; slot < MAX_CONNS && srv->conns[slot]; slot++)
        ;
    tc = slot < MAX_CONNS ? calloc(1, sizeof(*tc)) : NULL;
    if (!tc) {
        close(fd);
        return;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    tc->srv = srv;
    tc->fd = fd;
    tc->id = srv->next_id++;
    srv->conns[slot] = tc;
    tc->conn = ssh_conn_new(srv->ssh, &conn_ops, tc, now_ms());
    if (!tc->conn) {
        close(fd);
        free(tc);
        srv->conns[slot] = NULL;
        return;
    }
    inet_ntop(AF_INET, &peer.sin_addr, addr, sizeof(addr));
    ssh_conn_set_peer(tc->conn, addr);
}

/* Reads what the socket has and runs the connection's events. */
static void conn_event(struct server *srv, int slot, short revents)
{
    struct tconn *tc = srv->conns[slot];
    uint64_t now = now_ms();
    ssize_t n;

    if (revents & POLLOUT)
        ssh_conn_output_ready(tc->conn, now);
    if ((revents & (POLLIN | POLLHUP | POLLERR)) && tc->in_len < IN_BUF) {
        n = recv(tc->fd, tc->in + tc->in_len, IN_BUF - tc->in_len, MSG_DONTWAIT);
        if (n > 0)
            tc->in_len += (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR))
            tc->dead = true;
    }
    if (tc->sleeper && now >= tc->sleeper->wake_at) {
        struct tsession *ts = tc->sleeper;

        tc->sleeper = NULL;
        sess_finish(ts, 0);
    }
    if (now >= ssh_conn_next_deadline(tc->conn))
        ssh_conn_tick(tc->conn, now);
    offer_input(tc, now);
    if (tc->dead && !ssh_conn_finished(tc->conn))
        ssh_conn_input_closed(tc->conn, now);
    if (ssh_conn_finished(tc->conn) && (tc->dead || !ssh_conn_pending_output(tc->conn)))
        conn_close(srv, slot);
}

/* Opens the listener on 127.0.0.1:port; the fd, or -1. */
static int listen_on(int port, int *bound)
{
    struct sockaddr_in a = {0};
    socklen_t alen = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) != 0) {
        close(fd);
        return -1;
    }
    *bound = ntohs(a.sin_port);
    return fd;
}

/* Password verdicts came: deliver them, then let every connection run (held input). */
static void verdicts_event(struct server *srv)
{
    ssh_server_verdicts(srv->ssh, now_ms());
    for (int i = 0; i < MAX_CONNS; i++)
        if (srv->conns[i])
            conn_event(srv, i, 0);
}

/* One poll round over the listener, the verdict descriptor and the connections. */
static void poll_round(struct server *srv, int lfd)
{
    struct pollfd pfd[MAX_CONNS + 2];
    int slots[MAX_CONNS + 2], n = 2, i, timeout;
    uint64_t now = now_ms(), next = now + 1000, d;

    pfd[0].fd = lfd;
    pfd[0].events = POLLIN;
    pfd[1].fd = ssh_server_verdict_fd(srv->ssh); /* -1: ignored by poll */
    pfd[1].events = POLLIN;
    for (i = 0; i < MAX_CONNS; i++) {
        struct tconn *tc = srv->conns[i];

        if (!tc)
            continue;
        pfd[n].fd = tc->fd;
        pfd[n].events = (short)((tc->in_len < IN_BUF ? POLLIN : 0) |
                                (ssh_conn_pending_output(tc->conn) ? POLLOUT : 0));
        slots[n++] = i;
        d = ssh_conn_next_deadline(tc->conn);
        if (d < next)
            next = d;
        if (tc->sleeper && tc->sleeper->wake_at < next)
            next = tc->sleeper->wake_at;
        if (tc->in_len)
            next = now + 10; /* input waiting for the library */
    }
    timeout = next > now ? (int)(next - now) : 0;
    if (poll(pfd, (nfds_t)n, timeout) < 0)
        return;
    if (pfd[0].revents & POLLIN)
        accept_conn(srv, lfd);
    if (pfd[1].revents & POLLIN)
        verdicts_event(srv);
    for (i = 2; i < n; i++)
        if (srv->conns[slots[i]])
            conn_event(srv, slots[i], pfd[i].revents);
}

/* Reads the command line into the configuration; 0 on success. */
static int parse_args(int argc, char **argv, struct server *srv, int *port)
{
    struct ssh_server_config *c = &srv->cfg;
    int i;

    c->users[SSH_USER_ADMIN].name = "admin";
    c->users[SSH_USER_MONITOR].name = "monitor";
    srv->max_sessions = 4;
    for (i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];

        if (!strcmp(k, "--state"))
            c->state_dir = v;
        else if (!strcmp(k, "--port"))
            *port = atoi(v);
        else if (!strcmp(k, "--admin-keys"))
            c->users[SSH_USER_ADMIN].authorized_keys = v;
        else if (!strcmp(k, "--monitor-keys"))
            c->users[SSH_USER_MONITOR].authorized_keys = v;
        else if (!strcmp(k, "--admin-hash"))
            c->users[SSH_USER_ADMIN].password_hash = v;
        else if (!strcmp(k, "--monitor-hash"))
            c->users[SSH_USER_MONITOR].password_hash = v;
        else if (!strcmp(k, "--max-auth"))
            c->max_auth_tries = (uint32_t)atoi(v);
        else if (!strcmp(k, "--fail-delay"))
            c->auth_fail_delay_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--grace"))
            c->login_grace_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--idle"))
            c->idle_timeout_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--rekey-ms"))
            c->rekey_interval_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--rekey-bytes"))
            c->rekey_bytes = strtoull(v, NULL, 10);
        else if (!strcmp(k, "--max-sessions"))
            srv->max_sessions = (unsigned)atoi(v);
        else if (!strcmp(k, "--pw-workers"))
            c->pw_workers = (uint32_t)atoi(v);
        else if (!strcmp(k, "--pw-queue"))
            c->pw_queue = (uint32_t)atoi(v);
        else if (!strcmp(k, "--backoff-after"))
            c->backoff_after = atoi(v) > 0 ? (uint32_t)atoi(v) : UINT32_MAX;
        else if (!strcmp(k, "--backoff-base"))
            c->backoff_base_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--backoff-max"))
            c->backoff_max_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--backoff-forget"))
            c->backoff_forget_ms = (uint32_t)atoi(v);
        else if (!strcmp(k, "--backoff-table"))
            c->backoff_table = (uint32_t)atoi(v);
        else if (!strcmp(k, "--compat"))
            c->compat_algorithms = !strcmp(v, "on");
        else if (!strcmp(k, "--kex"))
            c->kex_algs = split_list(argv[i + 1]);
        else if (!strcmp(k, "--hostkeys"))
            c->host_algs = split_list(argv[i + 1]);
        else if (!strcmp(k, "--ciphers"))
            c->ciphers = split_list(argv[i + 1]);
        else if (!strcmp(k, "--macs"))
            c->macs = split_list(argv[i + 1]);
        else
            return -1;
    }
    return i == argc && c->state_dir ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct server srv = {0};
    struct sigaction sa = {0};
    char err[256], fp[128];
    int port = 0, bound = 0, lfd, i;

    if (parse_args(argc, argv, &srv, &port) != 0) {
        fprintf(stderr, "usage: ssh_testd --state DIR [--port N] [options] (see source)\n");
        return 2;
    }
    srv.ssh = ssh_server_new(&srv.cfg, err, sizeof(err));
    if (!srv.ssh) {
        fprintf(stderr, "ssh_testd: %s\n", err);
        return 1;
    }
    lfd = listen_on(port, &bound);
    if (lfd < 0) {
        perror("ssh_testd: listen");
        ssh_server_free(srv.ssh);
        return 1;
    }
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (ssh_server_fingerprint(srv.ssh, "ssh-ed25519", fp, sizeof(fp)) == 0)
        printf("fingerprint ssh-ed25519 %s\n", fp);
    if (ssh_server_fingerprint(srv.ssh, "ecdsa-sha2-nistp256", fp, sizeof(fp)) == 0)
        printf("fingerprint ecdsa-sha2-nistp256 %s\n", fp);
    printf("listening %d\n", bound);
    fflush(stdout);
    while (!stop_requested)
        poll_round(&srv, lfd);
    for (i = 0; i < MAX_CONNS; i++)
        if (srv.conns[i])
            conn_close(&srv, i);
    close(lfd);
    ssh_server_free(srv.ssh);
    free((void *)srv.cfg.kex_algs);
    free((void *)srv.cfg.host_algs);
    free((void *)srv.cfg.ciphers);
    free((void *)srv.cfg.macs);
    return 0;
}
