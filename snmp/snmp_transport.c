/*
 * snmp_transport.c - the transport net-snmp talks through: a receive
 * queue filled by the caller (pz_snmp_input) and a send callback, instead
 * of a kernel socket.
 *
 * net-snmp reads a session only when its transport's descriptor is set in
 * the fd_set handed to snmp_read2(); the server transport's descriptor is
 * an eventfd that counts queued datagrams, so the caller can poll it too.
 * Every transport reports the UDP domain (netsnmpUDPDomain) and returns
 * the peer as a netsnmp_indexed_addr_pair: net-snmp's community mapping
 * (com2sec, rocommunity) only accepts requests from the IP domains and
 * checks the address record by its size (agent/mibgroup/mibII/vacm_conf.c,
 * snmplib/transports/snmpUDPDomain.c).
 *
 * The transport domain "pzudp" is registered under snmpUDPDomain's OID and
 * the prefix "udp" before net-snmp registers its own (which it then
 * silently refuses as a duplicate): a trap2sink or trapsess line, with or
 * without "udp:", and an SNMP-TARGET-MIB row of the UDP domain all send
 * through the caller, never a kernel socket.  Server transports from the
 * configuration (agentaddress) are refused: the caller's is the only one.
 *
 * Informs: a sink's session waits for the sink's Response.  The sink
 * answers from the address and port the inform went to (snmptrapd: its
 * listening socket, RFC 3413 4.1), which no manager's request comes from
 * (those come from ephemeral ports), so pz_snmp_input() routes a datagram
 * from a sink transport's destination to that transport's queue and
 * eventfd (snmp_sink.c); snmp_read2() then hands it to the sink's session,
 * which matches it to the outstanding inform (its retries stop;
 * snmp_timeout() resends until then).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/snmpUDPDomain.h>

#include <arpa/inet.h>

#include "byte_order.h"
#include "snmp_internal.h"

/*
 * net-snmp keeps a pointer to the tdomain in its domain list, and creates
 * trap-sink transports through it without a user argument: the tdomain and
 * the agent it sends for are therefore file-scope.  One agent per process
 * (net-snmp's own state is global too).
 */
static netsnmp_tdomain pzudp_tdomain;
static struct pz_snmp *pzudp_agent;

/* What a transport of ours carries in t->data (freed by net-snmp). */
struct pzudp_data {
    bool server;            /* the agent's transport: reads the queue */
    struct pz_snmp_peer to; /* client (trap sink): where everything goes */
};

/* Fill an AF_INET sockaddr from a peer. */
static void pzudp_sin(struct sockaddr_in *sin, const struct pz_snmp_peer *p)
{
    memset(sin, 0, sizeof(*sin));
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = htonl(p->addr);
    sin->sin_port = htons(p->port);
}

/* Take the oldest queued datagram under the lock; returns false if none. */
static bool snmp_queue_pop(struct pz_snmp *s, struct snmp_dgram *d)
{
    bool got = false;

    pthread_mutex_lock(&s->lock);
    if (s->count) {
        *d = s->queue[s->head];
        s->queue[s->head].buf = NULL;
        s->head = (s->head + 1) % PZ_SNMP_QUEUE_LEN;
        s->count--;
        got = true;
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

/*
 * f_recv: hand net-snmp the oldest queued datagram and its peer (the
 * server: the agent's queue; a sink: the Responses routed to it).  Returns
 * the length, or 0 with NETSNMP_TRANSPORT_FLAG_EMPTY_PKT when nothing waits.
 */
static int pzudp_recv(netsnmp_transport *t, void *buf, int size, void **opaque, int *olen)
{
    struct pzudp_data *td = t->data;
    netsnmp_indexed_addr_pair *pair;
    struct snmp_dgram d;
    size_t n;

    *opaque = NULL;
    *olen = 0;
    if (!td || !pzudp_agent ||
        !(td->server ? snmp_queue_pop(pzudp_agent, &d) : snmp_sink_pop(pzudp_agent, t->sock, &d))) {
        t->flags |= NETSNMP_TRANSPORT_FLAG_EMPTY_PKT;
        return 0;
    }
    pair = calloc(1, sizeof(*pair));
    if (!pair) {
        free(d.buf);
        t->flags |= NETSNMP_TRANSPORT_FLAG_EMPTY_PKT;
        return 0;
    }
    pzudp_sin(&pair->remote_addr.sin, &d.from);
    pair->local_addr.sin.sin_family = AF_INET;
    n = d.len < (size_t)size ? d.len : (size_t)size;
    memcpy(buf, d.buf, n);
    free(d.buf);
    *opaque = pair;
    *olen = sizeof(*pair);
    return (int)n;
}

/*
 * f_send: an answer goes to the peer of its request (opaque), anything
 * else (a notification) to the transport's own destination, held while
 * that fails (snmp_hold.c).  Returns the length sent (or held) or -1.
 */
static int pzudp_send(netsnmp_transport *t, const void *buf, int size, void **opaque, int *olen)
{
    struct pzudp_data *td = t->data;
    struct pz_snmp *s = pzudp_agent;
    struct pz_snmp_peer to;

    if (!s || !td || size < 0)
        return -1;
    if (opaque && *opaque && olen && *olen == (int)sizeof(netsnmp_indexed_addr_pair)) {
        const netsnmp_indexed_addr_pair *pair = *opaque;

        to.addr = ntohl(pair->remote_addr.sin.sin_addr.s_addr);
        to.port = ntohs(pair->remote_addr.sin.sin_port);
    } else if (!td->server) {
        /* A notification (or an inform's retry): held while its path is down. */
        snmp_hold_send(s, &td->to, buf, (size_t)size);
        return size;
    } else {
        return -1;
    }
    if (s->p.send(s->p.send_arg, &to, buf, (size_t)size) != 0) {
        s->stats.send_errors++;
        return -1;
    }
    s->stats.datagrams_out++;
    return size;
}

/* f_close: the server's descriptor is the agent's eventfd (closed by it); a client's is its own. */
static int pzudp_close(netsnmp_transport *t)
{
    struct pzudp_data *td = t->data;

    if (t->sock >= 0 && td && !td->server) {
        if (pzudp_agent)
            snmp_sink_remove(pzudp_agent, t->sock);
        close(t->sock);
    }
    t->sock = -1;
    return 0;
}

/* f_fmtaddr: "pzudp: [a.b.c.d]:port" of an address record (or the transport's peer). */
static char *pzudp_fmtaddr(netsnmp_transport *t, const void *data, int len)
{
    const struct pzudp_data *td = t ? t->data : NULL;
    struct pz_snmp_peer p = {0, 0};
    char out[64];

    if (data && len == (int)sizeof(netsnmp_indexed_addr_pair)) {
        const netsnmp_indexed_addr_pair *pair = data;

        p.addr = ntohl(pair->remote_addr.sin.sin_addr.s_addr);
        p.port = ntohs(pair->remote_addr.sin.sin_port);
    } else if (td && !td->server) {
        p = td->to;
    }
    snprintf(out, sizeof(out), "pzudp: [%u.%u.%u.%u]:%u", p.addr >> 24, (p.addr >> 16) & 0xFF,
             (p.addr >> 8) & 0xFF, p.addr & 0xFF, p.port);
    return strdup(out);
}

/* f_get_taddr: the peer in SNMP-TARGET-MIB form (snmpUDPAddress: 4 address + 2 port bytes). */
static void pzudp_get_taddr(netsnmp_transport *t, void **addr, size_t *len)
{
    const struct pzudp_data *td = t->data;
    uint8_t *b = malloc(6);

    *addr = b;
    *len = b ? 6 : 0;
    if (!b)
        return;
    be32_put(b, td->to.addr);
    be16_put(b + 4, td->to.port);
}

/* A transport of ours with the callbacks and domain set; NULL on OOM. */
static netsnmp_transport *pzudp_new(bool server, const struct pz_snmp_peer *to, int sock)
{
    netsnmp_transport *t = calloc(1, sizeof(*t));
    struct pzudp_data *td = calloc(1, sizeof(*td));

    if (!t || !td) {
        free(t);
        free(td);
        return NULL;
    }
    td->server = server;
    if (to)
        td->to = *to;
    t->domain = netsnmpUDPDomain;
    t->domain_length = netsnmpUDPDomain_len;
    t->sock = sock;
    t->data = td;
    t->data_length = sizeof(*td);
    t->msgMaxSize = pzudp_agent ? pzudp_agent->p.max_message : 8192;
    t->f_recv = pzudp_recv;
    t->f_send = pzudp_send;
    t->f_close = pzudp_close;
    t->f_fmtaddr = pzudp_fmtaddr;
    t->f_get_taddr = pzudp_get_taddr;
    /* A sink's Responses (to informs) come back through the agent's sink table. */
    if (!server && (!pzudp_agent || snmp_sink_add(pzudp_agent, &td->to, sock) != 0)) {
        free(td);
        free(t);
        return NULL;
    }
    return t;
}

/*
 * Parse "a.b.c.d[:port]" (numeric only: the agent does no name lookups)
 * with the port from default_target ("[host:]port") when absent.  Returns
 * 0 or -1.
 */
static int pzudp_parse(const char *target, const char *default_target, struct pz_snmp_peer *p)
{
    char host[64];
    const char *colon, *dport;
    struct in_addr in;
    unsigned long port = 162;
    char *end;

    if (!target)
        return -1;
    colon = strchr(target, ':');
    if ((colon ? (size_t)(colon - target) : strlen(target)) >= sizeof(host))
        return -1;
    memcpy(host, target, colon ? (size_t)(colon - target) : strlen(target) + 1);
    if (colon)
        host[colon - target] = '\0';
    if (inet_pton(AF_INET, host, &in) != 1)
        return -1;
    dport = colon ? colon + 1 : NULL;
    if (!dport && default_target)
        dport = strrchr(default_target, ':') ? strrchr(default_target, ':') + 1 : default_target;
    if (dport && *dport) {
        port = strtoul(dport, &end, 10);
        if (*end || port == 0 || port > 65535)
            return -1;
    }
    p->addr = ntohl(in.s_addr);
    p->port = (uint16_t)port;
    return 0;
}

/*
 * A sending transport to peer to, with a descriptor of its own that never
 * polls readable (net-snmp closes sessions with -1); NULL on failure.
 */
static netsnmp_transport *pzudp_new_sender(const struct pz_snmp_peer *to)
{
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    netsnmp_transport *t;

    if (fd < 0)
        return NULL;
    t = pzudp_new(false, to, fd);
    if (!t)
        close(fd);
    return t;
}

/*
 * f_create_from_tspec: a client transport (notification sink) to a numeric
 * IPv4 target; servers are refused (the caller's transport is the only
 * one).  Returns the transport or NULL.
 */
static netsnmp_transport *pzudp_create_tspec(netsnmp_tdomain_spec *spec)
{
    struct pz_snmp_peer to;

    if (!pzudp_agent || (spec->flags & NETSNMP_TSPEC_LOCAL)) {
        snmp_log(LOG_ERR, "portzero: only the caller's transport serves SNMP (%s refused)\n",
                 spec->target ? spec->target : "");
        return NULL;
    }
    if (pzudp_parse(spec->target, spec->default_target, &to) != 0) {
        snmp_log(LOG_ERR, "portzero: notification target '%s' is not a numeric IPv4 address\n",
                 spec->target ? spec->target : "");
        return NULL;
    }
    return pzudp_new_sender(&to);
}

/* f_create_from_ostring (SNMP-TARGET-MIB rows): 4 address bytes + 2 port bytes. */
static netsnmp_transport *pzudp_create_ostring(const void *o, size_t len, int local)
{
    const uint8_t *b = o;
    struct pz_snmp_peer to;

    if (local || len != 6 || !pzudp_agent)
        return NULL;
    to.addr = be32_get(b);
    to.port = be16_get(b + 4);
    return pzudp_new_sender(&to);
}

int snmp_transport_register(struct pz_snmp *s)
{
    /* net-snmp frees the prefix array when it clears its domain list. */
    const char **prefix = calloc(3, sizeof(*prefix));

    if (!prefix)
        return -ENOMEM;
    prefix[0] = "pzudp";
    prefix[1] = "udp";
    pzudp_agent = s;
    memset(&pzudp_tdomain, 0, sizeof(pzudp_tdomain));
    pzudp_tdomain.name = netsnmpUDPDomain;
    pzudp_tdomain.name_length = netsnmpUDPDomain_len;
    pzudp_tdomain.prefix = prefix;
    pzudp_tdomain.f_create_from_tspec = pzudp_create_tspec;
    pzudp_tdomain.f_create_from_ostring = pzudp_create_ostring;
    if (!netsnmp_tdomain_register(&pzudp_tdomain)) {
        free(prefix);
        return -EEXIST;
    }
    return 0;
}

void *snmp_transport_open_server(struct pz_snmp *s)
{
    return pzudp_new(true, NULL, s->efd);
}

void snmp_transport_forget(struct pz_snmp *s)
{
    if (pzudp_agent == s)
        pzudp_agent = NULL;
}

void snmp_queue_drain(struct pz_snmp *s)
{
    struct snmp_dgram d;

    while (snmp_queue_pop(s, &d))
        free(d.buf);
}

/*
 * Signal pz_snmp_fd: one eventfd write until snmp_engine_read() reads it
 * (a system call less per datagram while the loop is behind).
 */
static void snmp_signal(struct pz_snmp *s)
{
    uint64_t one = 1;

    pthread_mutex_lock(&s->lock);
    if (!s->signalled && write(s->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
        s->signalled = true;
    pthread_mutex_unlock(&s->lock);
}

/*
 * Queue a datagram for pz_snmp_process(), signalling pz_snmp_fd if wake.
 * Returns 0, -EMSGSIZE, -ENOBUFS or -ENOMEM.
 */
static int snmp_input(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf,
                      size_t len, bool wake)
{
    uint8_t *copy;
    int rc = 0;

    if (len > s->p.max_message) {
        pthread_mutex_lock(&s->lock);
        s->stats.datagrams_in++;
        s->stats.datagrams_dropped++;
        pthread_mutex_unlock(&s->lock);
        return -EMSGSIZE;
    }
    /* A Response from a sink's address goes to that sink's session (informs). */
    rc = snmp_sink_push(s, from, buf, len);
    if (rc != -ENOENT) {
        if (rc == 0 && wake)
            snmp_signal(s);
        return rc;
    }
    rc = 0;
    copy = malloc(len ? len : 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, buf, len);
    pthread_mutex_lock(&s->lock);
    s->stats.datagrams_in++;
    if (s->count == PZ_SNMP_QUEUE_LEN) {
        s->stats.datagrams_dropped++;
        rc = -ENOBUFS;
    } else {
        struct snmp_dgram *d = &s->queue[(s->head + s->count) % PZ_SNMP_QUEUE_LEN];

        d->from = *from;
        d->len = len;
        d->buf = copy;
        copy = NULL;
        s->count++;
    }
    pthread_mutex_unlock(&s->lock);
    free(copy);
    if (rc == 0 && wake)
        snmp_signal(s);
    return rc;
}

int pz_snmp_input(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf, size_t len)
{
    return snmp_input(s, from, buf, len, true);
}

int pz_snmp_input_now(struct pz_snmp *s, const struct pz_snmp_peer *from, const void *buf,
                      size_t len)
{
    return snmp_input(s, from, buf, len, false);
}

int pz_snmp_fd(const struct pz_snmp *s)
{
    return s->efd;
}
