/*
 * pz_ip_ssh.c - the SSH server on the IP plane (see pz_ip_ssh.h).
 *
 * Bytes: lwIP's thread fills each connection's ring (pz_tcp); the loop
 * feeds them to the SSH library, which writes back through pz_tcp_write.
 * Sessions: `exec` runs one CLI command and returns its exit status;
 * `shell` runs the line editor (cli/line_editor) and one CLI command per
 * line.  The monitor user gets the CLI's read-only rights.  Commands that
 * take time (ping, iperf) are CLI jobs: polled on their descriptor and
 * deadline, their output written as it comes.
 *
 * Flow control: a command's whole output is kept (up to PZ_SSH_OUT_MAX) and
 * leaves as the channel window allows; a shell takes its next typed line
 * only once the previous command finished and its output is out.  Bytes
 * typed ahead stay in the session and are acknowledged to the library (so
 * they reopen the client's window) only when the line editor took them:
 * a client pasting many commands is slowed, never truncated.
 */
#include "pz_ip_ssh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_session.h"
#include "line_editor.h"
#include "pz_log.h"
#include "pz_tcp.h"
#include "ssh.h"

#define PZ_SSH_PORT 22
#define PZ_SSH_MAX_CONNS 16 /* TCP connections at once (logins: ssh_max_sessions) */
/* lwIP takes this many more, so that a newcomer reaches pz_ssh_accept with the table full
 * and may replace a connection that has not logged in (pz_ssh_evict_for). */
#define PZ_SSH_SPARE_CONNS 1
#define PZ_SSH_OUT_MAX (32u << 20) /* a session's output not yet taken by its channel */
#define PZ_SSH_OUT_INITIAL (64u << 10)
/* Output is handed to the channel at the end of each event (or once this much is
 * waiting), so echo, output and prompt share packets; a shell reads its next line
 * while less than this is waiting. */
#define PZ_SSH_OUT_BATCH (32u << 10)
#define PZ_SSH_IN_MAX (2u << 20) /* typed ahead (the client's window is 1 MiB) */
#define PZ_SSH_PROMPT "switch> "

struct pz_ip_ssh;
struct pz_ssh_conn;

/* One session channel. */
struct pz_ssh_session {
    struct pz_ssh_conn *conn;
    struct ssh_session *s;
    bool shell;
    bool crlf; /* "\n" leaves as "\r\n": a shell, or an exec on a pty (its terminal is raw) */
    bool read_only;
    struct line_editor le;
    struct cli_session cs; /* its command (a job still running in cs.job) */
    bool exiting;          /* exit once the output is out */
    uint32_t status;
    uint8_t *out; /* output waiting for the channel */
    size_t out_len, out_cap;
    bool out_cut; /* output beyond PZ_SSH_OUT_MAX was dropped (said once) */
    uint8_t *in;  /* shell input typed ahead, not yet acknowledged */
    size_t in_len, in_cap;
    bool eof;                    /* the client sent EOF: the shell ends once what it typed ran */
    struct pz_ssh_session *next; /* the server's list */
};

/* One TCP connection. */
struct pz_ssh_conn {
    struct pz_ip_ssh *srv;
    struct pz_tcp_conn *tcp;
    struct ssh_conn *ssh;
    uint8_t in[16384];
    size_t in_len, in_off;
    bool counted;    /* a logged-in session counted against ssh_max_sessions */
    bool eof;        /* the peer closed; told the library */
    char peer[48];   /* the client's address as text (IPv4 or IPv6) */
    uint64_t serial; /* accept order (lower: older) */
};

struct pz_ip_ssh {
    struct pz_loop *loop;
    struct cli_env cli;
    struct ssh_server *server;
    struct pz_tcp_port *port;
    struct pz_ssh_conn *conns[PZ_SSH_MAX_CONNS];
    struct pz_ssh_session *sessions; /* every open session (their jobs are polled here) */
    unsigned logins, max_logins;
    uint64_t accepted; /* connections accepted so far (their serials) */
};

/* The library's clock: the loop's, in ms. */
static uint64_t pz_ssh_now_ms(void)
{
    return pz_loop_now_ns() / 1000000u;
}

/* Library -> TCP: what the transport takes now (all of it once the connection is gone). */
static size_t pz_ssh_write(void *app, const uint8_t *buf, size_t len)
{
    struct pz_ssh_conn *c = app;
    int n = pz_tcp_write(c->tcp, buf, len);

    return n < 0 ? len : (size_t)n;
}

/* Library log lines, at the agent's levels. */
static void pz_ssh_log(void *app, enum ssh_log_level level, const char *msg)
{
    (void)app;
    pz_log(level == SSH_LOG_ERROR  ? PZ_LOG_WARN
           : level == SSH_LOG_WARN ? PZ_LOG_INFO
                                   : PZ_LOG_DEBUG,
           "ssh: %s", msg);
}

/* A user logged in: count it against the session limit (false refuses it). */
static bool pz_ssh_authenticated(void *app, enum ssh_user_id user)
{
    struct pz_ssh_conn *c = app;

    if (c->srv->logins >= c->srv->max_logins) {
        pz_log(PZ_LOG_WARN, "ssh: session limit (%u) reached, login refused", c->srv->max_logins);
        return false;
    }
    c->srv->logins++;
    c->counted = true;
    pz_log(PZ_LOG_INFO, "ssh: %s logged in", user == SSH_USER_ADMIN ? "admin" : "monitor");
    return true;
}

/* Offer the session's pending output to its channel; exit when all is out and it should. */
static void pz_ssh_pump(struct pz_ssh_session *ss)
{
    if (ss->out_len) {
        size_t n = ssh_session_write(ss->s, ss->out, ss->out_len);

        memmove(ss->out, ss->out + n, ss->out_len - n);
        ss->out_len -= n;
    }
    if (ss->exiting && !ss->out_len) {
        ss->exiting = false;
        ssh_session_exit(ss->s, ss->status);
    }
}

/* Make room for need more output bytes (doubling up to PZ_SSH_OUT_MAX); false when full. */
static bool pz_ssh_out_room(struct pz_ssh_session *ss, size_t need)
{
    size_t cap = ss->out_cap ? ss->out_cap : PZ_SSH_OUT_INITIAL;
    uint8_t *p;

    if (ss->out_len + need <= ss->out_cap)
        return true;
    while (cap < ss->out_len + need && cap < PZ_SSH_OUT_MAX)
        cap *= 2;
    if (cap > PZ_SSH_OUT_MAX)
        cap = PZ_SSH_OUT_MAX;
    if (ss->out_len + need > cap || !(p = realloc(ss->out, cap)))
        return false;
    ss->out = p;
    ss->out_cap = cap;
    return true;
}

/* CLI sink: append to the session's output ("\n" as "\r\n" in a shell or on a pty);
 * pumped at the end of the event, or now when a batch is waiting. */
static void pz_ssh_out(void *arg, const char *text, size_t len)
{
    static const char cut[] = "\n% output cut (too much at once)\n";
    struct pz_ssh_session *ss = arg;

    if (!pz_ssh_out_room(ss, 2 * len)) {
        if (!ss->out_cut && pz_ssh_out_room(ss, 0) && ss->out_len + sizeof(cut) <= ss->out_cap) {
            memcpy(ss->out + ss->out_len, cut, sizeof(cut) - 1);
            ss->out_len += sizeof(cut) - 1;
        }
        ss->out_cut = true;
        pz_ssh_pump(ss);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n' && ss->crlf)
            ss->out[ss->out_len++] = '\r';
        ss->out[ss->out_len++] = (uint8_t)text[i];
    }
    if (ss->out_len >= PZ_SSH_OUT_BATCH)
        pz_ssh_pump(ss);
}

/* Line editor: terminal output as is. */
static void pz_ssh_le_output(void *ctx, const char *buf, size_t len)
{
    struct pz_ssh_session *ss = ctx;
    bool crlf = ss->crlf;

    ss->crlf = false; /* the editor writes its own CRs */
    pz_ssh_out(ss, buf, len);
    ss->crlf = crlf;
}

/* Line editor: tab completion of the command words this user may run. */
static size_t pz_ssh_le_complete(void *ctx, const char *line, size_t len, const char **cands,
                                 size_t max)
{
    struct pz_ssh_session *ss = ctx;

    return cli_complete(line, len, ss->read_only, cands, max);
}

static const struct le_ops pz_ssh_le_ops = {.output = pz_ssh_le_output,
                                            .complete = pz_ssh_le_complete};

/* End the session with status once its output is out. */
static void pz_ssh_finish(struct pz_ssh_session *ss, uint32_t status)
{
    ss->status = status;
    ss->exiting = true;
    pz_ssh_pump(ss);
}

/* Drop the session's job (and its descriptor). */
static void pz_ssh_drop_job(struct pz_ssh_session *ss)
{
    cli_session_stop(&ss->cs);
}

static void pz_ssh_drain_input(struct pz_ssh_session *ss);

/* A command finished with status: exec ends, a shell prompts again and reads on. */
static void pz_ssh_command_done(struct pz_ssh_session *ss, int status)
{
    if (!ss->shell) {
        pz_ssh_finish(ss, (uint32_t)status);
        return;
    }
    ss->out_cut = false;
    le_prompt(&ss->le);
}

/* Let the session's job progress at now; on its end, what its command does next. */
static void pz_ssh_poll_job(struct pz_ssh_session *ss, uint64_t now)
{
    int status = cli_session_poll(&ss->cs, now);

    if (status == CLI_RUNNING) {
        pz_ssh_pump(ss); /* what the job printed so far */
        return;
    }
    pz_ssh_drop_job(ss);
    pz_ssh_command_done(ss, status);
    if (ss->shell)
        pz_ssh_drain_input(ss);
    pz_ssh_pump(ss);
}

/* Loop: a job's descriptor: find its session (over every connection) and poll it. */
static void pz_ssh_on_job(void *arg, int fd);

/* Run one command line for the session; a job keeps it busy. */
static void pz_ssh_run(struct pz_ssh_session *ss, const char *line)
{
    /* When the loop is full the job runs on its deadlines only. */
    int status = cli_session_run(&ss->cs, line, ss->read_only, pz_ssh_on_job, ss->conn->srv);

    if (status != CLI_RUNNING)
        pz_ssh_command_done(ss, status);
}

/* The session's command host: the CLI writing to the session, jobs on the loop. */
static void pz_ssh_start_host(struct pz_ssh_session *ss)
{
    struct cli_session_loop loop;
    struct cli_out out = {.write = pz_ssh_out, .arg = ss};

    pz_loop_for_cli(ss->conn->srv->loop, &loop);
    cli_session_init(&ss->cs, &ss->conn->srv->cli, &loop, &out);
}

/* A shell or exec request. */
static int pz_ssh_session_start(void *app, struct ssh_session *s, enum ssh_session_kind kind,
                                const char *command)
{
    struct pz_ssh_session *ss = calloc(1, sizeof(*ss));

    if (!ss)
        return -1;
    ss->conn = app;
    ss->s = s;
    pz_ssh_start_host(ss);
    ss->read_only = ssh_session_user(s) != SSH_USER_ADMIN;
    ssh_session_set_data(s, ss);
    ss->next = ss->conn->srv->sessions;
    ss->conn->srv->sessions = ss;
    /* A pty's client keeps its terminal raw: "\n" alone would not return the cursor. */
    ss->crlf = kind == SSH_SESSION_SHELL || ssh_session_pty(s, NULL, NULL);
    if (kind == SSH_SESSION_SHELL) {
        ss->shell = true;
        le_init(&ss->le, &pz_ssh_le_ops, ss, PZ_SSH_PROMPT);
        pz_ssh_out(ss, "portzero switch CLI (help lists the commands, exit leaves)\n", 59);
        le_prompt(&ss->le);
        pz_ssh_pump(ss);
        return 0;
    }
    pz_ssh_run(ss, command ? command : "");
    pz_ssh_pump(ss);
    return 0;
}

/* Whether the shell takes its next line now: no command running, its output (nearly) out. */
static bool pz_ssh_shell_ready(const struct pz_ssh_session *ss)
{
    return !ss->cs.job && !ss->exiting && ss->out_len < PZ_SSH_OUT_BATCH;
}

/* Typed bytes through the line editor while the shell is ready, one command per line;
 * returns how many it took (all of them once the shell ends). */
static size_t pz_ssh_shell_feed(struct pz_ssh_session *ss, const uint8_t *data, size_t len)
{
    size_t used = 0;
    char line[LE_LINE_MAX + 1];

    while (used < len && pz_ssh_shell_ready(ss)) {
        size_t u = 0;
        enum le_result r = le_input(&ss->le, data + used, len - used, &u, line, sizeof(line));

        used += u;
        if (r == LE_EOF || (r == LE_LINE && (!strcmp(line, "exit") || !strcmp(line, "logout")))) {
            pz_ssh_finish(ss, 0);
            break;
        }
        if (r == LE_LINE)
            pz_ssh_run(ss, line);
        if (!u)
            break;
    }
    return ss->exiting ? len : used;
}

/* The shell is ready again: take what was typed ahead, acknowledge it to the library. */
static void pz_ssh_drain_input(struct pz_ssh_session *ss)
{
    size_t used;

    if (!pz_ssh_shell_ready(ss))
        return;
    while (ss->in_len && pz_ssh_shell_ready(ss)) {
        used = pz_ssh_shell_feed(ss, ss->in, ss->in_len);
        memmove(ss->in, ss->in + used, ss->in_len - used);
        ss->in_len -= used;
        ssh_session_input_done(ss->s, used);
        pz_ssh_pump(ss); /* the channel may take it all: then read on */
        if (!used)
            break;
    }
    if (ss->eof && !ss->in_len && pz_ssh_shell_ready(ss))
        pz_ssh_finish(ss, 0);
    pz_ssh_pump(ss);
}

/* Keep len typed-ahead bytes; returns how many could not be kept (dropped). */
static size_t pz_ssh_keep_input(struct pz_ssh_session *ss, const uint8_t *data, size_t len)
{
    size_t keep = len;

    if (ss->in_len + keep > ss->in_cap) {
        size_t cap = ss->in_len + keep < 4096 ? 4096 : (ss->in_len + keep) * 2;
        uint8_t *p;

        if (cap > PZ_SSH_IN_MAX)
            cap = PZ_SSH_IN_MAX;
        p = cap > ss->in_cap ? realloc(ss->in, cap) : NULL;
        if (p) {
            ss->in = p;
            ss->in_cap = cap;
        }
        if (ss->in_len + keep > ss->in_cap)
            keep = ss->in_cap - ss->in_len;
    }
    memcpy(ss->in + ss->in_len, data, keep);
    ss->in_len += keep;
    return len - keep;
}

/*
 * Ctrl-C while a command runs: the command stops with its interrupted report
 * (ping: its statistics) and what was typed ahead while it ran is dropped, as
 * a terminal flushes its input on an interrupt; a shell prompts again, an
 * exec ends with the command's status.
 */
static void pz_ssh_interrupt(struct pz_ssh_session *ss)
{
    int status;

    if (ss->in_len) {
        ssh_session_input_done(ss->s, ss->in_len);
        ss->in_len = 0;
    }
    pz_ssh_out(ss, "^C\n", 3);
    status = cli_session_interrupt(&ss->cs, pz_loop_now_ns());
    pz_ssh_command_done(ss, status);
    pz_ssh_pump(ss);
}

/* Shell input: through the line editor when the shell is ready, else kept for later. */
static size_t pz_ssh_session_input(void *app, struct ssh_session *s, const uint8_t *data,
                                   size_t len)
{
    struct pz_ssh_session *ss = ssh_session_data(s);
    size_t used = 0;
    const uint8_t *intr;

    (void)app;
    /* A terminal's interrupt character: a shell's, or an exec's on a pty (ssh -t). */
    if (ss && ss->cs.job && !ss->exiting && (ss->shell || ssh_session_pty(s, NULL, NULL)) &&
        (intr = memchr(data, 0x03, len)) != NULL) {
        size_t skip = (size_t)(intr - data) + 1;

        pz_ssh_interrupt(ss);
        return skip + pz_ssh_session_input(app, s, data + skip, len - skip);
    }
    if (!ss || !ss->shell || ss->exiting)
        return len; /* exec takes no input */
    /* Not pz_ssh_drain_input here: bytes of this call are acknowledged by the return value
     * (ssh_session_input_done only counts bytes the library already saw held). */
    while (!ss->in_len && used < len && pz_ssh_shell_ready(ss)) {
        size_t u = pz_ssh_shell_feed(ss, data + used, len - used);

        used += u;
        pz_ssh_pump(ss);
        if (!u)
            break;
    }
    if (used == len)
        return len;
    /* A line of this input started a command that the rest interrupts. */
    if (ss->cs.job && memchr(data + used, 0x03, len - used))
        return used + pz_ssh_session_input(app, s, data + used, len - used);
    /* Acknowledged now: what was taken, and what could not be kept (dropped). */
    return used + pz_ssh_keep_input(ss, data + used, len - used);
}

/* The client sent EOF: a shell ends, after the lines it typed ahead ran. */
static void pz_ssh_session_eof(void *app, struct ssh_session *s)
{
    struct pz_ssh_session *ss = ssh_session_data(s);

    (void)app;
    if (!ss || !ss->shell || ss->exiting)
        return;
    ss->eof = true;
    pz_ssh_drain_input(ss);
}

/* The channel has room again. */
static void pz_ssh_session_writable(void *app, struct ssh_session *s)
{
    struct pz_ssh_session *ss = ssh_session_data(s);

    (void)app;
    if (!ss)
        return;
    pz_ssh_pump(ss);
    pz_ssh_drain_input(ss);
}

/* The session is gone. */
static void pz_ssh_session_closed(void *app, struct ssh_session *s)
{
    struct pz_ssh_session *ss = ssh_session_data(s);

    (void)app;
    if (!ss)
        return;
    pz_ssh_drop_job(ss);
    for (struct pz_ssh_session **pp = &ss->conn->srv->sessions; *pp; pp = &(*pp)->next) {
        if (*pp == ss) {
            *pp = ss->next;
            break;
        }
    }
    free(ss->out);
    free(ss->in);
    free(ss);
    ssh_session_set_data(s, NULL);
}

static const struct ssh_conn_ops pz_ssh_conn_ops = {
    .write = pz_ssh_write,
    .log = pz_ssh_log,
    .authenticated = pz_ssh_authenticated,
    .session_start = pz_ssh_session_start,
    .session_input = pz_ssh_session_input,
    .session_eof = pz_ssh_session_eof,
    .session_writable = pz_ssh_session_writable,
    .session_closed = pz_ssh_session_closed,
};

/* Free a finished connection (its sessions close through the library). */
static void pz_ssh_conn_free(struct pz_ssh_conn *c)
{
    ssh_conn_free(c->ssh);
    if (c->counted)
        c->srv->logins--;
    pz_tcp_close(c->tcp);
    free(c);
}

/* Feed what the peer sent into the library, as far as it takes it. */
static void pz_ssh_feed(struct pz_ssh_conn *c, uint64_t now)
{
    for (;;) {
        if (c->in_off < c->in_len) {
            size_t n = ssh_conn_input(c->ssh, c->in + c->in_off, c->in_len - c->in_off, now);

            c->in_off += n;
            if (!n)
                return; /* busy (output backlog, login delay): later */
            continue;
        }
        int n = pz_tcp_read(c->tcp, c->in, sizeof(c->in));

        if (n > 0) {
            c->in_len = (size_t)n;
            c->in_off = 0;
            continue;
        }
        if (n < 0 && !c->eof) {
            c->eof = true;
            ssh_conn_input_closed(c->ssh, now);
        }
        return;
    }
}

/* Serve one connection: input, output, timers; returns false once it is freed. */
static bool pz_ssh_serve(struct pz_ssh_conn *c, uint64_t now)
{
    ssh_conn_tick(c->ssh, now);
    pz_ssh_feed(c, now);
    ssh_conn_output_ready(c->ssh, now);
    pz_tcp_ack(c->tcp); /* what was read and not answered: ACK it now, not at lwIP's timer */
    if (ssh_conn_finished(c->ssh) && (!ssh_conn_pending_output(c->ssh) || c->eof)) {
        pz_ssh_conn_free(c);
        return false;
    }
    return true;
}

/* How many connections from peer have not logged in. */
static unsigned pz_ssh_pending_from(const struct pz_ip_ssh *s, const char *peer)
{
    unsigned n = 0;

    for (unsigned i = 0; i < PZ_SSH_MAX_CONNS; i++)
        n += s->conns[i] && !s->conns[i]->counted && !strcmp(s->conns[i]->peer, peer);
    return n;
}

/* The oldest connection whose password attempt waits for its address's back-off turn
 * (a guesser's: the address failed ssh_backoff_after times), or PZ_SSH_MAX_CONNS. */
static unsigned pz_ssh_evict_waiting(const struct pz_ip_ssh *s)
{
    unsigned best = PZ_SSH_MAX_CONNS;

    for (unsigned i = 0; i < PZ_SSH_MAX_CONNS; i++) {
        const struct pz_ssh_conn *c = s->conns[i];

        if (c && !c->counted && ssh_conn_waiting_turn(c->ssh) &&
            (best == PZ_SSH_MAX_CONNS || c->serial < s->conns[best]->serial))
            best = i;
    }
    return best;
}

/* The oldest connection not logged in of the address holding the most such
 * connections, or PZ_SSH_MAX_CONNS. */
static unsigned pz_ssh_evict_busiest(const struct pz_ip_ssh *s)
{
    unsigned best = PZ_SSH_MAX_CONNS, best_n = 0;

    for (unsigned i = 0; i < PZ_SSH_MAX_CONNS; i++) {
        const struct pz_ssh_conn *c = s->conns[i];
        unsigned n;

        if (!c || c->counted)
            continue;
        n = pz_ssh_pending_from(s, c->peer);
        if (n > best_n || (n == best_n && c->serial < s->conns[best]->serial)) {
            best = i;
            best_n = n;
        }
    }
    return best;
}

/*
 * The table is full and a newcomer waits: drop the oldest connection waiting for its
 * password back-off turn (a guesser's), else the oldest connection that has not logged
 * in of the address holding the most such connections, and return its slot
 * (PZ_SSH_MAX_CONNS when every connection is logged in).  Without it, a few idle TCP
 * connections that never log in would lock every operator out for the login grace
 * time, again and again; this way one address cannot keep another out, and a client
 * behind the flooding address still replaces the oldest of its idle connections.
 */
static unsigned pz_ssh_evict_for(struct pz_ip_ssh *s)
{
    unsigned best = pz_ssh_evict_waiting(s);

    if (best == PZ_SSH_MAX_CONNS)
        best = pz_ssh_evict_busiest(s);
    if (best < PZ_SSH_MAX_CONNS) {
        struct pz_ssh_conn *c = s->conns[best];

        pz_log(PZ_LOG_INFO, "ssh: connections full, dropped one from %s not logged in", c->peer);
        ssh_conn_disconnect(c->ssh, SSH_DISCONNECT_TOO_MANY_CONNECTIONS,
                            "too many connections not logged in");
        pz_ssh_conn_free(c);
        s->conns[best] = NULL;
    }
    return best;
}

/* Tell the library the client's address (the key of its password back-off). */
static void pz_ssh_set_peer(struct pz_ssh_conn *c)
{
    ssh_conn_set_peer(c->ssh, c->peer);
}

/* Accept the connections lwIP took. */
static void pz_ssh_accept(struct pz_ip_ssh *s, uint64_t now)
{
    struct pz_tcp_conn *t;

    while ((t = pz_tcp_accept(s->port))) {
        unsigned i;
        struct pz_ssh_conn *c;
        for (i = 0; i < PZ_SSH_MAX_CONNS && s->conns[i]; i++)
            ;
        if (i == PZ_SSH_MAX_CONNS)
            i = pz_ssh_evict_for(s);
        c = i < PZ_SSH_MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
        if (!c) {
            pz_tcp_abort(t);
            continue;
        }
        c->srv = s;
        c->tcp = t;
        snprintf(c->peer, sizeof(c->peer), "%s", pz_tcp_peer_text(t));
        c->serial = s->accepted++;
        c->ssh = ssh_conn_new(s->server, &pz_ssh_conn_ops, c, now);
        if (!c->ssh) {
            pz_tcp_abort(t);
            free(c);
            continue;
        }
        pz_ssh_set_peer(c);
        s->conns[i] = c;
    }
}

/* Serve every connection (the port's descriptor, a timer or a job woke us). */
static void pz_ssh_serve_all(struct pz_ip_ssh *s)
{
    uint64_t now = pz_ssh_now_ms();

    pz_tcp_port_clear(s->port);
    pz_ssh_accept(s, now);
    for (unsigned i = 0; i < PZ_SSH_MAX_CONNS; i++)
        if (s->conns[i] && !pz_ssh_serve(s->conns[i], now))
            s->conns[i] = NULL;
}

/* Loop: password verdicts from the library's verifier threads: answer them, then serve
 * (the answered connections take their held input). */
static void pz_ssh_on_verdicts(void *arg, int fd)
{
    struct pz_ip_ssh *s = arg;

    (void)fd;
    ssh_server_verdicts(s->server, pz_ssh_now_ms());
    pz_ssh_serve_all(s);
}

/* Loop: TCP events on port 22. */
static void pz_ssh_on_port(void *arg, int fd)
{
    (void)fd;
    pz_ssh_serve_all(arg);
}

/* Poll the jobs whose descriptor is fd or whose deadline passed (fd -1: deadlines only). */
static void pz_ssh_poll_jobs(struct pz_ip_ssh *s, int fd)
{
    uint64_t now = pz_loop_now_ns();
    struct pz_ssh_session *ss = s->sessions, *next;

    for (; ss; ss = next) {
        next = ss->next; /* polling may end the session's command, never free it */
        if (cli_session_due(&ss->cs, fd, now))
            pz_ssh_poll_job(ss, now);
    }
}

static void pz_ssh_on_job(void *arg, int fd)
{
    struct pz_ip_ssh *s = arg;

    pz_ssh_poll_jobs(s, fd);
    pz_ssh_serve_all(s);
}

/* Loop: the earliest timer of the connections (ms -> ns). */
static uint64_t pz_ssh_deadline(void *arg)
{
    struct pz_ip_ssh *s = arg;
    uint64_t next = UINT64_MAX;

    for (unsigned i = 0; i < PZ_SSH_MAX_CONNS; i++) {
        uint64_t t;

        if (!s->conns[i])
            continue;
        t = ssh_conn_next_deadline(s->conns[i]->ssh);
        if (t != UINT64_MAX && t * 1000000u < next)
            next = t * 1000000u;
    }
    for (struct pz_ssh_session *ss = s->sessions; ss; ss = ss->next)
        if (cli_session_deadline(&ss->cs) < next)
            next = cli_session_deadline(&ss->cs);
    return next;
}

/* Loop: timers due: serve everything (ticks run in pz_ssh_serve). */
static void pz_ssh_on_timer(void *arg, uint64_t now)
{
    (void)now;
    pz_ssh_poll_jobs(arg, -1);
    pz_ssh_serve_all(arg);
}

/* Start the library's server with cfg's users; returns 0 or -1 + err. */
static int pz_ssh_server_start(struct pz_ip_ssh *s, const struct pz_config *cfg, char *err,
                               size_t errlen)
{
    struct ssh_server_config sc = {.state_dir = cfg->state_dir,
                                   .compat_algorithms = cfg->ssh_compat_algorithms,
                                   .pw_workers = cfg->ssh_pw_workers,
                                   .pw_queue = cfg->ssh_pw_queue,
                                   .backoff_after =
                                       cfg->ssh_backoff_after ? cfg->ssh_backoff_after : UINT32_MAX,
                                   .backoff_base_ms = cfg->ssh_backoff_base_ms,
                                   .backoff_max_ms = cfg->ssh_backoff_max_ms,
                                   .backoff_forget_ms = cfg->ssh_backoff_forget_ms,
                                   .backoff_table = cfg->ssh_backoff_table};

    sc.users[SSH_USER_ADMIN] = (struct ssh_user_config){
        .name = "admin",
        .authorized_keys = *cfg->ssh_authorized_keys ? cfg->ssh_authorized_keys : NULL,
        .password_hash = *cfg->ssh_password_hash ? cfg->ssh_password_hash : NULL};
    sc.users[SSH_USER_MONITOR] = (struct ssh_user_config){
        .name = "monitor",
        .authorized_keys =
            *cfg->ssh_monitor_authorized_keys ? cfg->ssh_monitor_authorized_keys : NULL,
        .password_hash = *cfg->ssh_monitor_password_hash ? cfg->ssh_monitor_password_hash : NULL};
    s->server = ssh_server_new(&sc, err, errlen);
    return s->server ? 0 : -1;
}

struct pz_ip_ssh *pz_ip_ssh_create(const struct pz_config *cfg, struct pz_loop *loop,
                                   const struct cli_env *cli, char *err, size_t errlen)
{
    struct pz_ip_ssh *s = calloc(1, sizeof(*s));

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->loop = loop;
    s->cli = *cli;
    s->max_logins = cfg->ssh_max_sessions;
    if (pz_ssh_server_start(s, cfg, err, errlen) ||
        !(s->port =
              pz_tcp_listen(PZ_SSH_PORT, PZ_SSH_MAX_CONNS + PZ_SSH_SPARE_CONNS, err, errlen)) ||
        pz_loop_add_fd(loop, pz_tcp_port_fd(s->port), pz_ssh_on_port, s) ||
        (ssh_server_verdict_fd(s->server) >= 0 &&
         pz_loop_add_fd(loop, ssh_server_verdict_fd(s->server), pz_ssh_on_verdicts, s)) ||
        pz_loop_add_timer(loop, pz_ssh_deadline, pz_ssh_on_timer, s)) {
        if (!*err)
            snprintf(err, errlen, "the event loop is full");
        pz_ip_ssh_destroy(s);
        return NULL;
    }
    pz_log(PZ_LOG_INFO, "ssh: server on TCP %u (host keys in %s, at most %u sessions)", PZ_SSH_PORT,
           cfg->state_dir, s->max_logins);
    if (ssh_server_verdict_fd(s->server) >= 0)
        pz_log(PZ_LOG_INFO,
               "ssh: passwords: %u verifier thread(s), %u waiting at most; back-off %s%u failures "
               "(%u ms doubling up to %u ms)",
               cfg->ssh_pw_workers, cfg->ssh_pw_queue, cfg->ssh_backoff_after ? "after " : "off, ",
               cfg->ssh_backoff_after, cfg->ssh_backoff_base_ms, cfg->ssh_backoff_max_ms);
    return s;
}

void pz_ip_ssh_destroy(struct pz_ip_ssh *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < PZ_SSH_MAX_CONNS; i++)
        if (s->conns[i])
            pz_ssh_conn_free(s->conns[i]);
    if (s->port) {
        pz_loop_remove_fd(s->loop, pz_tcp_port_fd(s->port));
        pz_tcp_unlisten(s->port);
    }
    pz_loop_remove_timers(s->loop, s);
    if (s->server && ssh_server_verdict_fd(s->server) >= 0)
        pz_loop_remove_fd(s->loop, ssh_server_verdict_fd(s->server));
    ssh_server_free(s->server);
    free(s);
}
