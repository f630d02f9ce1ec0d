/*
 * snmp_transport.c - the transport net-snmp talks through: a receive
 * queue filled by the caller (pz_snmp_input) and a send callback, instead
 * of a kernel socket.
 *
 * net-snmp reads a session only when its transport's descriptor is set in
 * the fd_set handed to snmp_read2(); the server transport's descriptor is
 * an eventfd that counts queued datagrams, so the caller can poll it too.
 * A transport of each family reports net-snmp's domain of that family and
 * returns the peer in the record that domain's receive returns: IPv4 as
 * snmpUDPDomain (netsnmpUDPDomain, a netsnmp_indexed_addr_pair), IPv6 as
 * snmpUDPIPv6Domain (netsnmp_UDPIPv6Domain, a struct sockaddr_in6).
 * net-snmp's community mapping tells the families apart by the PDU's
 * domain (the transport's: agent/mibgroup/mibII/vacm_conf.c compares the
 * pointer) and checks the record by its size: com2sec/rocommunity lines
 * map IPv4 sources (netsnmp_udp_getSecName), com2sec6/rocommunity6 lines
 * IPv6 ones (netsnmp_udp6_getSecName), as in snmpd.  The domain is the
 * transport's, not the datagram's, so the agent has a session of each
 * family: the IPv4 one reads the IPv4 queue, the IPv6 one the IPv6 queue.
 *
 * The transport domains "pzudp" and "pzudp6" are registered under
 * snmpUDPDomain's and snmpUDPIPv6Domain's OIDs with the prefixes "udp"
 * and "udp6" (and net-snmp's other IPv6 names) before net-snmp registers
 * its own (which it then silently refuses as duplicates): a trap2sink or
 * trapsess line, with or without "udp:", with "udp6:[addr]", and an
 * SNMP-TARGET-MIB row of either domain all send through the caller, never
 * a kernel socket.  Server transports from the configuration
 * (agentaddress) are refused: the caller's are the only ones.
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
#include <net-snmp/library/snmpUDPIPv6Domain.h>

#include <arpa/inet.h>

#include "byte_order.h"
#include "snmp_internal.h"

/*
 * net-snmp keeps a pointer to the tdomain in its domain list, and creates
 * trap-sink transports through it without a user argument: the tdomain and
 * the agent it sends for are therefore file-scope.  One agent per process
 * (net-snmp's own state is global too).
 */
static netsnmp_tdomain pzudp_tdomain, pzudp6_tdomain;
static struct pz_snmp *pzudp_agent;

/* snmpUDPIPv6Domain's OID length (net-snmp exports the array without one). */
#define PZUDP6_OID_LEN (sizeof((const oid[]){TRANSPORT_DOMAIN_UDP_IPV6}) / sizeof(oid))

/* What a transport of ours carries in t->data (freed by net-snmp). */
struct pzudp_data {
    bool server;            /* the agent's transport: reads the queue of its family */
    bool ipv6;              /* its family (a sink's: its destination's) */
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

/* Fill an AF_INET6 sockaddr from a peer (the zone as its scope ID). */
static void pzudp_sin6(struct sockaddr_in6 *sin6, const struct pz_snmp_peer *p)
{
    memset(sin6, 0, sizeof(*sin6));
    sin6->sin6_family = AF_INET6;
    memcpy(sin6->sin6_addr.s6_addr, p->addr6, 16);
    sin6->sin6_port = htons(p->port);
    sin6->sin6_scope_id = p->scope;
}

/*
 * The peer of an address record net-snmp hands back (opaque of a received
 * datagram): an IPv4 pair or an IPv6 sockaddr, told apart by size and
 * family; false for anything else.
 */
static bool pzudp_record_peer(const void *rec, int len, struct pz_snmp_peer *p)
{
    memset(p, 0, sizeof(*p));
    if (rec && len == (int)sizeof(netsnmp_indexed_addr_pair)) {
        const netsnmp_indexed_addr_pair *pair = rec;

        if (pair->remote_addr.sin.sin_family != AF_INET)
            return false;
        p->addr = ntohl(pair->remote_addr.sin.sin_addr.s_addr);
        p->port = ntohs(pair->remote_addr.sin.sin_port);
        return true;
    }
    if (rec && len == (int)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *sin6 = rec;

        if (sin6->sin6_family != AF_INET6)
            return false;
        p->ipv6 = true;
        memcpy(p->addr6, sin6->sin6_addr.s6_addr, 16);
        p->port = ntohs(sin6->sin6_port);
        p->scope = sin6->sin6_scope_id;
        return true;
    }
    return false;
}

bool snmp_peer_equal(const struct pz_snmp_peer *a, const struct pz_snmp_peer *b)
{
    if (a->ipv6 != b->ipv6 || a->port != b->port)
        return false;
    return a->ipv6 ? memcmp(a->addr6, b->addr6, 16) == 0 : a->addr == b->addr;
}

/* Take the oldest queued datagram of one family under the lock; returns false if none. */
static bool snmp_queue_pop(struct pz_snmp *s, bool ipv6, struct snmp_dgram *d)
{
    struct snmp_rxq *q = &s->rx[ipv6];
    bool got = false;

    pthread_mutex_lock(&s->lock);
    if (q->count) {
        *d = q->queue[q->head];
        q->queue[q->head].buf = NULL;
        q->head = (q->head + 1) % PZ_SNMP_QUEUE_LEN;
        q->count--;
        got = true;
    }
    pthread_mutex_unlock(&s->lock);
    return got;
}

/*
 * The address record of a received datagram's peer, as net-snmp's domain
 * of its family returns it (UDP: a netsnmp_indexed_addr_pair, UDP/IPv6: a
 * struct sockaddr_in6); its size in *len, NULL on OOM.
 */
static void *pzudp_record(const struct pz_snmp_peer *from, int *len)
{
    if (from->ipv6) {
        struct sockaddr_in6 *sin6 = calloc(1, sizeof(*sin6));

        if (sin6)
            pzudp_sin6(sin6, from);
        *len = (int)sizeof(*sin6);
        return sin6;
    }
    netsnmp_indexed_addr_pair *pair = calloc(1, sizeof(*pair));

    if (pair) {
        pzudp_sin(&pair->remote_addr.sin, from);
        pair->local_addr.sin.sin_family = AF_INET;
    }
    *len = (int)sizeof(*pair);
    return pair;
}

/*
 * f_recv: hand net-snmp the oldest queued datagram and its peer (the
 * server: the agent's queue; a sink: the Responses routed to it).  Returns
 * the length, or 0 with NETSNMP_TRANSPORT_FLAG_EMPTY_PKT when nothing waits.
 */
static int pzudp_recv(netsnmp_transport *t, void *buf, int size, void **opaque, int *olen)
{
    struct pzudp_data *td = t->data;
    struct snmp_dgram d;
    void *rec;
    int rlen;
    size_t n;

    *opaque = NULL;
    *olen = 0;
    if (!td || !pzudp_agent ||
        !(td->server ? snmp_queue_pop(pzudp_agent, td->ipv6, &d)
                     : snmp_sink_pop(pzudp_agent, t->sock, &d))) {
        t->flags |= NETSNMP_TRANSPORT_FLAG_EMPTY_PKT;
        return 0;
    }
    rec = pzudp_record(&d.from, &rlen);
    if (!rec) {
        free(d.buf);
        t->flags |= NETSNMP_TRANSPORT_FLAG_EMPTY_PKT;
        return 0;
    }
    n = d.len < (size_t)size ? d.len : (size_t)size;
    memcpy(buf, d.buf, n);
    free(d.buf);
    *opaque = rec;
    *olen = rlen;
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
    if (opaque && *opaque && olen && pzudp_record_peer(*opaque, *olen, &to)) {
        /* an answer: to the request's peer */
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

/*
 * f_fmtaddr: "pzudp: [a.b.c.d]:port" or "pzudp6: [v6]:port" of an address
 * record (or the transport's peer); a string net-snmp frees.
 */
static char *pzudp_fmtaddr(netsnmp_transport *t, const void *data, int len)
{
    const struct pzudp_data *td = t ? t->data : NULL;
    struct pz_snmp_peer p;
    char text[INET6_ADDRSTRLEN] = "";
    char out[96];

    if (!pzudp_record_peer(data, len, &p)) {
        memset(&p, 0, sizeof(p));
        if (td && !td->server)
            p = td->to;
        else if (td)
            p.ipv6 = td->ipv6;
    }
    if (p.ipv6)
        inet_ntop(AF_INET6, p.addr6, text, sizeof(text));
    else
        snprintf(text, sizeof(text), "%u.%u.%u.%u", p.addr >> 24, (p.addr >> 16) & 0xFF,
                 (p.addr >> 8) & 0xFF, p.addr & 0xFF);
    snprintf(out, sizeof(out), "%s: [%s]:%u", p.ipv6 ? "pzudp6" : "pzudp", text, p.port);
    return strdup(out);
}

/*
 * f_get_taddr: the peer in SNMP-TARGET-MIB form: snmpUDPAddress (4 address
 * + 2 port bytes) or TransportAddressIPv6 (16 + 2, RFC 3419).
 */
static void pzudp_get_taddr(netsnmp_transport *t, void **addr, size_t *len)
{
    const struct pzudp_data *td = t->data;
    size_t n = td->to.ipv6 ? 18 : 6;
    uint8_t *b = malloc(n);

    *addr = b;
    *len = b ? n : 0;
    if (!b)
        return;
    if (td->to.ipv6)
        memcpy(b, td->to.addr6, 16);
    else
        be32_put(b, td->to.addr);
    be16_put(b + n - 2, td->to.port);
}

/*
 * A transport of ours with the callbacks and the domain of its family set
 * (a server's: ipv6; a sink's: its destination's); NULL on OOM.
 */
static netsnmp_transport *pzudp_new(bool server, bool ipv6, const struct pz_snmp_peer *to, int sock)
{
    netsnmp_transport *t = calloc(1, sizeof(*t));
    struct pzudp_data *td = calloc(1, sizeof(*td));

    if (!t || !td) {
        free(t);
        free(td);
        return NULL;
    }
    td->server = server;
    td->ipv6 = to ? to->ipv6 : ipv6;
    if (to)
        td->to = *to;
    t->domain = td->ipv6 ? netsnmp_UDPIPv6Domain : netsnmpUDPDomain;
    t->domain_length = td->ipv6 ? PZUDP6_OID_LEN : (size_t)netsnmpUDPDomain_len;
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

/* The port of a sink from text (1..65535), or from default_target ("[host:]port"), or 162. */
static int pzudp_port(const char *text, const char *default_target, uint16_t *port)
{
    unsigned long v = 162;
    char *end;

    if (!text && default_target)
        text = strrchr(default_target, ':') ? strrchr(default_target, ':') + 1 : default_target;
    if (text && *text) {
        v = strtoul(text, &end, 10);
        if (*end || v == 0 || v > 65535)
            return -1;
    }
    *port = (uint16_t)v;
    return 0;
}

/*
 * Parse "a.b.c.d[:port]" (numeric only: the agent does no name lookups)
 * with the port from default_target ("[host:]port") when absent.  Returns
 * 0 or -1.
 */
static int pzudp_parse(const char *target, const char *default_target, struct pz_snmp_peer *p)
{
    char host[64];
    const char *colon;
    struct in_addr in;

    if (!target)
        return -1;
    colon = strchr(target, ':');
    if ((colon ? (size_t)(colon - target) : strlen(target)) >= sizeof(host))
        return -1;
    memcpy(host, target, colon ? (size_t)(colon - target) : strlen(target) + 1);
    if (colon)
        host[colon - target] = '\0';
    if (inet_pton(AF_INET, host, &in) != 1 ||
        pzudp_port(colon ? colon + 1 : NULL, default_target, &p->port) != 0)
        return -1;
    memset(p->addr6, 0, sizeof(p->addr6));
    p->ipv6 = false;
    p->scope = 0;
    p->addr = ntohl(in.s_addr);
    return 0;
}

/*
 * Parse "[v6]:port", "[v6]" or a bare "v6" (numeric only, no zone: a
 * link-local sink is reached through the plane's only interface) with the
 * port from default_target when absent.  Returns 0 or -1.
 */
static int pzudp6_parse(const char *target, const char *default_target, struct pz_snmp_peer *p)
{
    char host[INET6_ADDRSTRLEN];
    const char *port = NULL, *close;
    size_t len;

    if (!target)
        return -1;
    if (target[0] == '[') {
        close = strchr(target, ']');
        if (!close || (close[1] && close[1] != ':'))
            return -1;
        len = (size_t)(close - target - 1);
        target++;
        port = close[1] ? close + 2 : NULL;
    } else {
        len = strlen(target);
    }
    if (len >= sizeof(host))
        return -1;
    memcpy(host, target, len);
    host[len] = '\0';
    memset(p, 0, sizeof(*p));
    p->ipv6 = true;
    if (inet_pton(AF_INET6, host, p->addr6) != 1)
        return -1;
    return pzudp_port(port, default_target, &p->port);
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
    t = pzudp_new(false, to->ipv6, to, fd);
    if (!t)
        close(fd);
    return t;
}

/*
 * A client transport (notification sink) of either domain to the numeric
 * target of spec (parse: the domain's syntax, what: its name for the error
 * line); servers are refused (the caller's transports are the only ones).
 * Returns the transport or NULL.
 */
static netsnmp_transport *
pzudp_sink(netsnmp_tdomain_spec *spec,
           int (*parse)(const char *, const char *, struct pz_snmp_peer *), const char *what)
{
    struct pz_snmp_peer to;

    if (!pzudp_agent || (spec->flags & NETSNMP_TSPEC_LOCAL)) {
        snmp_log(LOG_ERR, "portzero: only the caller's transport serves SNMP (%s refused)\n",
                 spec->target ? spec->target : "");
        return NULL;
    }
    if (parse(spec->target, spec->default_target, &to) != 0) {
        snmp_log(LOG_ERR, "portzero: notification target '%s' is not a numeric %s address\n",
                 spec->target ? spec->target : "", what);
        return NULL;
    }
    return pzudp_new_sender(&to);
}

/*
 * f_create_from_tspec of "udp": a sink at a numeric IPv4 address; NULL if
 * refused.  An IPv6 target without a prefix ("[v6]:port", "v6") is left to
 * the next default domain, udp6, without a word, as net-snmp's udp domain
 * leaves it.
 */
static netsnmp_transport *pzudp_create_tspec(netsnmp_tdomain_spec *spec)
{
    const char *t = spec->target;

    if (t && !(spec->flags & NETSNMP_TSPEC_LOCAL) &&
        (t[0] == '[' || (strchr(t, ':') && strchr(t, ':') != strrchr(t, ':'))))
        return NULL;
    return pzudp_sink(spec, pzudp_parse, "IPv4");
}

/* f_create_from_tspec of "udp6": a sink at a numeric IPv6 address; NULL if refused. */
static netsnmp_transport *pzudp6_create_tspec(netsnmp_tdomain_spec *spec)
{
    return pzudp_sink(spec, pzudp6_parse, "IPv6 ([addr]:port)");
}

/* f_create_from_ostring (SNMP-TARGET-MIB rows, UDP): 4 address bytes + 2 port bytes. */
static netsnmp_transport *pzudp_create_ostring(const void *o, size_t len, int local)
{
    const uint8_t *b = o;
    struct pz_snmp_peer to = {0};

    if (local || len != 6 || !pzudp_agent)
        return NULL;
    to.addr = be32_get(b);
    to.port = be16_get(b + 4);
    return pzudp_new_sender(&to);
}

/* f_create_from_ostring (SNMP-TARGET-MIB rows, UDP/IPv6): 16 address bytes + 2 port bytes. */
static netsnmp_transport *pzudp6_create_ostring(const void *o, size_t len, int local)
{
    const uint8_t *b = o;
    struct pz_snmp_peer to = {.ipv6 = true};

    if (local || len != 18 || !pzudp_agent)
        return NULL;
    memcpy(to.addr6, b, 16);
    to.port = be16_get(b + 16);
    return pzudp_new_sender(&to);
}

/*
 * Fill tdomain d (name OID, NULL-ended prefixes n of them, the two
 * constructors) and register it ahead of net-snmp's; 0, -ENOMEM or
 * -EEXIST.  net-snmp frees the prefix array when it clears its domain list.
 */
static int pzudp_register(netsnmp_tdomain *d, const oid *name, size_t name_len,
                          const char *const *prefixes, size_t n,
                          netsnmp_transport *(*tspec)(netsnmp_tdomain_spec *),
                          netsnmp_transport *(*ostring)(const void *, size_t, int))
{
    const char **prefix = calloc(n + 1, sizeof(*prefix));

    if (!prefix)
        return -ENOMEM;
    memcpy(prefix, prefixes, n * sizeof(*prefix));
    memset(d, 0, sizeof(*d));
    d->name = name;
    d->name_length = name_len;
    d->prefix = prefix;
    d->f_create_from_tspec = tspec;
    d->f_create_from_ostring = ostring;
    if (!netsnmp_tdomain_register(d)) {
        free(prefix);
        return -EEXIST;
    }
    return 0;
}

int snmp_transport_register(struct pz_snmp *s)
{
    static const char *const v4[] = {"pzudp", "udp"};
    /* net-snmp's UDP/IPv6 domain's names (snmpUDPIPv6Domain.c) */
    static const char *const v6[] = {"pzudp6", "udp6", "ipv6", "udpv6", "udpipv6"};
    int rc;

    pzudp_agent = s;
    rc = pzudp_register(&pzudp_tdomain, netsnmpUDPDomain, netsnmpUDPDomain_len, v4, 2,
                        pzudp_create_tspec, pzudp_create_ostring);
    if (rc == 0)
        rc = pzudp_register(&pzudp6_tdomain, netsnmp_UDPIPv6Domain, PZUDP6_OID_LEN, v6, 5,
                            pzudp6_create_tspec, pzudp6_create_ostring);
    return rc;
}

void *snmp_transport_open_server(struct pz_snmp *s, bool ipv6)
{
    return pzudp_new(true, ipv6, NULL, ipv6 ? s->efd6 : s->efd);
}

void snmp_transport_forget(struct pz_snmp *s)
{
    if (pzudp_agent == s)
        pzudp_agent = NULL;
}

void snmp_queue_drain(struct pz_snmp *s)
{
    struct snmp_dgram d;

    for (int f = 0; f < 2; f++)
        while (snmp_queue_pop(s, f, &d))
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
    struct snmp_rxq *q;
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
    q = &s->rx[from->ipv6];
    if (q->count == PZ_SNMP_QUEUE_LEN) {
        s->stats.datagrams_dropped++;
        rc = -ENOBUFS;
    } else {
        struct snmp_dgram *d = &q->queue[(q->head + q->count) % PZ_SNMP_QUEUE_LEN];

        d->from = *from;
        d->len = len;
        d->buf = copy;
        copy = NULL;
        q->count++;
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
