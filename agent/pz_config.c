/*
 * pz_config.c - portzero.conf parser.
 */
#include "pz_config.h"

#include "cong_monitor.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PZ_CONFIG_MAX_LINE 512

_Static_assert(sizeof(((struct pz_config *)0)->node_desc) == PZ_CONFIG_NODE_DESC_MAX + 1,
               "node_desc holds the whole 64-byte field and a terminator");

/* Boolean words: on/off (printed), yes/no, true/false, 1/0. */
const struct pz_config_choice pz_config_on_off[] = {
    {"on", 1},    {"off", 0}, {"yes", 1}, {"no", 0}, {"true", 1},
    {"false", 0}, {"1", 1},   {"0", 0},   {NULL, 0},
};

/* The same words, yes/no printed. */
const struct pz_config_choice pz_config_yes_no[] = {
    {"yes", 1},   {"no", 0}, {"on", 1}, {"off", 0}, {"true", 1},
    {"false", 0}, {"1", 1},  {"0", 0},  {NULL, 0},
};

/* board = mem|sim, into board_sim. */
static const struct pz_config_choice pz_config_board[] = {
    {"mem", 0},
    {"sim", 1},
    {NULL, 0},
};

/* mad_transport = auto|umad|board: -1, 0, 1. */
static const struct pz_config_choice pz_config_mad_transport[] = {
    {"auto", -1},
    {"umad", 0},
    {"board", 1},
    {NULL, 0},
};

/* dgram = auto|off|on (and the other boolean words): -1, 0, 1. */
static const struct pz_config_choice pz_config_dgram[] = {
    {"auto", -1}, {"off", 0},  {"on", 1}, {"no", 0}, {"yes", 1},
    {"false", 0}, {"true", 1}, {"0", 0},  {"1", 1},  {NULL, 0},
};

/* A key called name, of struct pz_config's field m. */
#define PZ_KEY_NAMED(name_, m, ...)                                                                \
    {                                                                                              \
        .name = name_, PZ_CONFIG_FIELD(struct pz_config, m), __VA_ARGS__                           \
    }
/* A key called as struct pz_config's field m. */
#define PZ_KEY(m, ...) PZ_KEY_NAMED(#m, m, __VA_ARGS__)

/* Every key, in --check-config's order: the single list of them. */
static const struct pz_config_key pz_config_table[] = {
    PZ_KEY(ca, .type = PZ_CONFIG_STRING, .def_text = "",
           .help = "umad device name; empty = the first device"),
    PZ_KEY(port, .type = PZ_CONFIG_UINT, .min = 0, .max = PZ_CONFIG_MAX_PORT,
           .help = "umad port number; 0 = the first port"),
    PZ_KEY(node_desc, .type = PZ_CONFIG_STRING, .def_text = "portzero switch",
           .help = "NodeDescription, up to 64 bytes"),
    PZ_KEY(node_guid, .type = PZ_CONFIG_HEX, .min = 1, .max = UINT64_MAX, .width = 16,
           .def = 0x0002c90300000001ll, .help = "NodeGUID (board = mem)"),
    PZ_KEY(num_ports, .type = PZ_CONFIG_UINT, .min = 1, .max = PZ_CONFIG_MAX_PORT, .def = 36,
           .help = "number of external ports (board = mem)"),
    PZ_KEY(enhanced_port0, .type = PZ_CONFIG_CHOICE, .choices = pz_config_yes_no, .def = 0,
           .help = "SwitchInfo.EnhancedPort0 (board = mem)"),
    PZ_KEY(lft_cap, .type = PZ_CONFIG_UINT, .min = 64, .max = 0xC000, .step = 64, .def = 0xC000,
           .help = "LinearFDBCap, a multiple of 64 (board = mem)"),
    PZ_KEY(mft_cap, .type = PZ_CONFIG_UINT, .min = 0, .max = 0x4000, .step = 32, .def = 1024,
           .help = "MulticastFDBCap, a multiple of 32 (board = mem)"),
    PZ_KEY(log_level, .type = PZ_CONFIG_UINT, .min = 0, .max = 3, .def = 2,
           .help = "0 error, 1 warning, 2 info, 3 debug (-v raises it)"),
    PZ_KEY_NAMED("board", board_sim, .type = PZ_CONFIG_CHOICE, .choices = pz_config_board, .def = 0,
                 .help = "mem: an in-memory switch; sim: a switch of pzfabric"),
    PZ_KEY(sim_node, .type = PZ_CONFIG_STRING, .def_text = "",
           .help = "board = sim: the switch to take over; empty = $SIM_HOST"),
    PZ_KEY(sim_sockname, .type = PZ_CONFIG_STRING, .def_text = "",
           .help = "board = sim: pzfabric's socket; empty = $IBSIM_SOCKNAME or sim"),
    PZ_KEY(mad_transport, .type = PZ_CONFIG_CHOICE, .choices = pz_config_mad_transport, .def = -1,
           .help = "umad: MADs through libibumad; board: over board = sim's connection "
                   "(no umad); auto = board for board = sim"),
    PZ_KEY(busy_poll_us, .type = PZ_CONFIG_UINT, .min = 0, .max = PZ_CONFIG_MAX_BUSY_POLL_US,
           .help = "after input, poll this many us more before sleeping: a core spent "
                   "for lower MAD latency; 0 = off"),
    PZ_KEY(monitor, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "the congestion monitor"),
    PZ_KEY(monitor_interval_ms, .type = PZ_CONFIG_UINT, .min = CONG_INTERVAL_MIN_MS, .max = 3600000,
           .def = CONG_INTERVAL_DEFAULT_MS, .help = "congestion monitor sampling interval, ms"),
    PZ_KEY(monitor_threshold, .type = PZ_CONFIG_UINT, .min = 1, .max = 1000000000000ull,
           .def = CONG_THRESHOLD_DEFAULT,
           .help = "congestion threshold, XmitWait ticks (1 us) per second"),
    PZ_KEY(monitor_low_util, .type = PZ_CONFIG_UINT, .min = 1, .max = 100,
           .def = CONG_LOW_UTIL_DEFAULT,
           .help = "low-utilisation threshold, percent of the link rate"),
    PZ_KEY(monitor_clear, .type = PZ_CONFIG_UINT, .min = 1, .max = 100, .def = CONG_CLEAR_DEFAULT,
           .help = "a class clears below this percent of the threshold"),
    PZ_KEY(monitor_notices, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "hot-spot notices to the master SM"),
    PZ_KEY(monitor_ca_ports, .type = PZ_CONFIG_PORTS, .def_text = "",
           .help = "ports that face CAs (e.g. 1-18,20); empty = discover them"),
    PZ_KEY(dgram, .type = PZ_CONFIG_CHOICE, .choices = pz_config_dgram, .def = -1,
           .help = "port-0 datagrams and the echo service; auto = on for board = sim"),
    /* A Q_Key with the high bit set is a controlled one: never a QP's own. */
    PZ_KEY(dgram_qkey, .type = PZ_CONFIG_HEX, .min = 0, .max = 0x7FFFFFFF, .width = 8,
           .def = 0x505a0001, /* PZ_ECHO_QKEY_DEFAULT */
           .help = "the datagram QP's Q_Key (high bit clear)"),
    PZ_KEY(reach, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "switch-to-switch reachability: register the echo service at the SA, "
                   "discover the switches, probe their port 0"),
    PZ_KEY(reach_interval_ms, .type = PZ_CONFIG_UINT, .min = 100, .max = 3600000, .def = 10000,
           .help = "between two reachability probes of one switch"),
    PZ_KEY(reach_timeout_ms, .type = PZ_CONFIG_UINT, .min = 10, .max = 60000, .def = 1000,
           .help = "a probe unanswered this long is a miss (less than reach_interval_ms)"),
    PZ_KEY(reach_lost_after, .type = PZ_CONFIG_UINT, .min = 1, .max = 100, .def = 3,
           .help = "misses in a row that make a switch unreachable"),
    PZ_KEY(reach_refresh_s, .type = PZ_CONFIG_UINT, .min = 1, .max = 86400, .def = 30,
           .help = "SA rediscovery of the switches and their echo services"),
    PZ_KEY(reach_lease_s, .type = PZ_CONFIG_UINT, .min = 10, .max = 86400, .def = 300,
           .help = "lease of the echo service's ServiceRecord at the SA, renewed at half"),
    PZ_KEY(reach_lost_keep_s, .type = PZ_CONFIG_UINT, .min = 0, .max = 604800, .def = 3600,
           .help = "a switch that answered and left the subnet stays listed as lost this long"),
    PZ_KEY(ip, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "the IP management plane (IPoIB on port 0); runs when ip_address is set"),
    PZ_KEY(ip_address, .type = PZ_CONFIG_IPV4_PREFIX, .def_text = "",
           .help = "the switch's IPoIB address, e.g. 10.0.0.1/24; empty = no IP plane"),
    PZ_KEY(ip_gateway, .type = PZ_CONFIG_IPV4, .def_text = "",
           .help = "default gateway; empty = none (only the subnet is reached)"),
    /* On by default: a link-local address as Linux's ipoib gives one (issue 26). */
    PZ_KEY(ip6, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "IPv6 on the IP plane too: fe80::<port 0 GUID>, SLAAC, the keys below"),
    PZ_KEY(ip6_address, .type = PZ_CONFIG_IPV6_PREFIX, .def_text = "",
           .help = "a global IPv6 address, e.g. fd00::1/64; empty = link-local and SLAAC only"),
    PZ_KEY(ip6_gateway, .type = PZ_CONFIG_IPV6, .def_text = "",
           .help = "IPv6 default router; empty = the routers RAs announce"),
    PZ_KEY(ipoib_pkey, .type = PZ_CONFIG_HEX, .min = 1, .max = 0xFFFF, .width = 4, .def = 0xFFFF,
           .help = "the IPoIB partition (its broadcast group); the full-member bit is implied"),
    /* On by default, like the echo service on port 7: a receive-only sink with
     * bounded sessions, and what `iperf -c SWITCH` and the traffic matrix need. */
    PZ_KEY(iperf_server, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "the iperf 2 server (TCP and UDP port 5001) on the IP plane"),
    PZ_KEY(ctl_socket, .type = PZ_CONFIG_PATH, .def_text = "",
           .help = "the control socket pz-cli talks to (unix stream); empty = none"),
    PZ_KEY(state_dir, .type = PZ_CONFIG_PATH, .def_text = "/var/lib/portzero",
           .help = "persistent state (SNMP engineBoots and users, SSH host keys), created 0700"),
    PZ_KEY(snmp, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "the SNMP agent on UDP 161 of the IP plane; runs when snmp_config is set"),
    PZ_KEY(ssh, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 1,
           .help = "the SSH CLI on TCP 22 of the IP plane; runs when a user has a key or password"),
    PZ_KEY(ssh_authorized_keys, .type = PZ_CONFIG_PATH, .def_text = "",
           .help = "admin's OpenSSH authorized_keys file; empty = no key login"),
    PZ_KEY(ssh_password_hash, .type = PZ_CONFIG_STRING, .def_text = "",
           .help = "admin's crypt(3) hash (mkpasswd, openssl passwd -6); empty = no password"),
    PZ_KEY(ssh_monitor_authorized_keys, .type = PZ_CONFIG_PATH, .def_text = "",
           .help = "the read-only monitor user's authorized_keys (show and ping only)"),
    PZ_KEY(ssh_monitor_password_hash, .type = PZ_CONFIG_STRING, .def_text = "",
           .help = "the monitor user's crypt(3) hash; empty = no password"),
    PZ_KEY(ssh_max_sessions, .type = PZ_CONFIG_UINT, .min = 1, .max = 16, .def = 4,
           .help = "SSH logins at once"),
    /* Off by default: ssh-audit fails the NIST curve and warns on encrypt-and-MAC. */
    PZ_KEY(ssh_compat_algorithms, .type = PZ_CONFIG_CHOICE, .choices = pz_config_on_off, .def = 0,
           .help = "also offer ecdh-sha2-nistp256, the ecdsa-sha2-nistp256 host key and the "
                   "non-etm hmac-sha2-256/512 (ssh-audit fails or warns on them; off offers "
                   "curve25519, ssh-ed25519, chacha20/AES-GCM/AES-CTR with -etm MACs)"),
    /* One verifier: a hash takes a core, the agent loop keeps the other(s). */
    PZ_KEY(ssh_pw_workers, .type = PZ_CONFIG_UINT, .min = 1, .max = 8, .def = 1,
           .help = "password hashes computed at once (verifier threads, at nice 19, off the "
                   "thread that serves the MADs)"),
    PZ_KEY(ssh_pw_queue, .type = PZ_CONFIG_UINT, .min = 1, .max = 64, .def = 8,
           .help = "password attempts waiting for a verifier; a further one is refused "
                   "(USERAUTH_FAILURE, counted against the connection's 6 tries)"),
    PZ_KEY(ssh_backoff_after, .type = PZ_CONFIG_UINT, .min = 0, .max = 1000, .def = 5,
           .help = "failed passwords from one address before its attempts wait their turn; "
                   "0 = no back-off"),
    PZ_KEY(ssh_backoff_base_ms, .type = PZ_CONFIG_UINT, .min = 1, .max = 3600000, .def = 1000,
           .help = "the first wait between an address's attempts in back-off; doubles per "
                   "further failure"),
    PZ_KEY(ssh_backoff_max_ms, .type = PZ_CONFIG_UINT, .min = 1, .max = 3600000, .def = 60000,
           .help = "the longest wait between an address's attempts"),
    PZ_KEY(ssh_backoff_forget_ms, .type = PZ_CONFIG_UINT, .min = 1000, .max = 86400000,
           .def = 600000,
           .help = "an address without a failed password this long (or after a login) starts "
                   "afresh"),
    PZ_KEY(ssh_backoff_table, .type = PZ_CONFIG_UINT, .min = 1, .max = 65536, .def = 256,
           .help = "addresses the back-off remembers (the least recently used forgotten first)"),
    PZ_KEY(snmp_config, .type = PZ_CONFIG_PATH, .def_text = "",
           .help = "net-snmp snmpd.conf tokens (createUser, rouser, trap2sink...); empty = none"),
};

#define PZ_CONFIG_NKEYS (sizeof(pz_config_table) / sizeof(pz_config_table[0]))

/* The line that set each table key so far (0: none). */
struct pz_config_seen {
    unsigned line[PZ_CONFIG_NKEYS];
};

const struct pz_config_key *pz_config_keys(size_t *count)
{
    *count = PZ_CONFIG_NKEYS;
    return pz_config_table;
}

const struct pz_config_key *pz_config_key_find(const char *name)
{
    for (size_t i = 0; i < PZ_CONFIG_NKEYS; i++)
        if (!strcmp(pz_config_table[i].name, name))
            return &pz_config_table[i];
    return NULL;
}

/* Store integer v into key's field of the struct at base. */
static void pz_store_int(const struct pz_config_key *key, void *base, int64_t v)
{
    void *p = (char *)base + key->offset;

    switch (key->storage) {
    case PZ_CONFIG_AS_BOOL:
        *(bool *)p = v != 0;
        break;
    case PZ_CONFIG_AS_INT:
        *(int *)p = (int)v;
        break;
    case PZ_CONFIG_AS_UINT:
        *(unsigned *)p = (unsigned)v;
        break;
    case PZ_CONFIG_AS_ULONG:
        *(unsigned long *)p = (unsigned long)v;
        break;
    case PZ_CONFIG_AS_ULLONG:
        *(unsigned long long *)p = (unsigned long long)v;
        break;
    default:
        break;
    }
}

/* Key's integer field of the struct at base; returns it (0 for a non-integer field). */
static int64_t pz_load_int(const struct pz_config_key *key, const void *base)
{
    const void *p = (const char *)base + key->offset;

    switch (key->storage) {
    case PZ_CONFIG_AS_BOOL:
        return *(const bool *)p;
    case PZ_CONFIG_AS_INT:
        return *(const int *)p;
    case PZ_CONFIG_AS_UINT:
        return *(const unsigned *)p;
    case PZ_CONFIG_AS_ULONG:
        return (int64_t) * (const unsigned long *)p;
    case PZ_CONFIG_AS_ULLONG:
        return (int64_t) * (const unsigned long long *)p;
    default:
        return 0;
    }
}

/* Parse an unsigned number (decimal or 0x hex) within [min, max]. */
static int pz_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;

    if (!*s || *s == '-')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Parse a decimal number of at most 3 digits within [0, max] at *s (advanced); returns it or -1. */
static int pz_parse_small(const char **s, int max)
{
    int v = 0, digits = 0;

    while (isdigit((unsigned char)**s) && digits < 3) {
        v = v * 10 + (**s - '0');
        (*s)++;
        digits++;
    }
    return digits && v <= max ? v : -1;
}

/* Parse "A.B.C.D/N" into *out; returns 0 or -1. */
static int pz_parse_ipv4_prefix(const char *s, struct pz_config_ipv4 *out)
{
    uint32_t addr = 0;
    int v;

    for (int i = 0; i < 4; i++) {
        if (i && *s++ != '.')
            return -1;
        if ((v = pz_parse_small(&s, 255)) < 0)
            return -1;
        addr = addr << 8 | (uint32_t)v;
    }
    if (*s++ != '/' || (v = pz_parse_small(&s, 32)) < 0 || *s)
        return -1;
    out->addr = addr;
    out->prefix_len = (unsigned)v;
    return 0;
}

/* Parse "A.B.C.D" into *out (prefix 32); returns 0 or -1. */
static int pz_parse_ipv4(const char *s, struct pz_config_ipv4 *out)
{
    char buf[24];

    if (strlen(s) > 15)
        return -1;
    snprintf(buf, sizeof(buf), "%s/32", s);
    return pz_parse_ipv4_prefix(buf, out);
}

/*
 * Parse "X:Y::Z/N" (with_prefix) or "X:Y::Z" (prefix 128) into *out: a
 * unicast address, neither :: nor multicast.  Returns 0 or -1.
 */
static int pz_parse_ipv6(const char *s, bool with_prefix, struct pz_config_ipv6 *out)
{
    char buf[64];
    const char *slash = strchr(s, '/');
    int plen = 128;

    if (strlen(s) >= sizeof(buf) || (with_prefix != (slash != NULL)))
        return -1;
    snprintf(buf, sizeof(buf), "%.*s", slash ? (int)(slash - s) : (int)strlen(s), s);
    if (slash) {
        const char *p = slash + 1;
        if ((plen = pz_parse_small(&p, 128)) < 1 || *p)
            return -1;
    }
    if (inet_pton(AF_INET6, buf, out->addr) != 1 || out->addr[0] == 0xff)
        return -1;
    for (int i = 0; i < 16; i++)
        if (out->addr[i])
            break;
        else if (i == 15)
            return -1; /* :: */
    out->prefix_len = (unsigned)plen;
    return 0;
}

/* Copy a string value that must fit dst (size n, NUL terminated). */
static int pz_parse_str(const char *s, char *dst, size_t n)
{
    size_t len = strlen(s);

    if (len >= n)
        return -1;
    memcpy(dst, s, len + 1);
    return 0;
}

/* The value name stands for among choices; returns 0 or -1 (no such word). */
static int pz_parse_choice(const struct pz_config_choice *choices, const char *name, int *out)
{
    for (; choices->name; choices++) {
        if (!strcmp(choices->name, name)) {
            *out = choices->value;
            return 0;
        }
    }
    return -1;
}

/* Parse a text value (STRING, PORTS, PATH) into key's character field; returns 0 or -1. */
static int pz_config_key_set_text(const struct pz_config_key *key, void *base, const char *value)
{
    uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8];

    if (key->type == PZ_CONFIG_PORTS && *value && pz_config_port_list(value, mask) < 0)
        return -1;
    if (key->type == PZ_CONFIG_PATH && *value && *value != '/')
        return -1;
    return pz_parse_str(value, (char *)base + key->offset, key->size);
}

int pz_config_key_set(const struct pz_config_key *key, void *base, const char *value)
{
    uint64_t v;
    int choice;

    switch (key->type) {
    case PZ_CONFIG_UINT:
    case PZ_CONFIG_HEX:
        if (pz_parse_u64(value, key->min, key->max, &v) || (key->step && v % key->step))
            return -1;
        pz_store_int(key, base, (int64_t)v);
        return 0;
    case PZ_CONFIG_CHOICE:
        if (pz_parse_choice(key->choices, value, &choice))
            return -1;
        pz_store_int(key, base, choice);
        return 0;
    case PZ_CONFIG_IPV4_PREFIX:
    case PZ_CONFIG_IPV4: {
        struct pz_config_ipv4 ip = {0, 0};

        if (*value && (key->type == PZ_CONFIG_IPV4 ? pz_parse_ipv4(value, &ip)
                                                   : pz_parse_ipv4_prefix(value, &ip)))
            return -1;
        memcpy((char *)base + key->offset, &ip, sizeof(ip));
        return 0;
    }
    case PZ_CONFIG_IPV6_PREFIX:
    case PZ_CONFIG_IPV6: {
        struct pz_config_ipv6 ip6;

        memset(&ip6, 0, sizeof(ip6));
        if (*value && pz_parse_ipv6(value, key->type == PZ_CONFIG_IPV6_PREFIX, &ip6))
            return -1;
        memcpy((char *)base + key->offset, &ip6, sizeof(ip6));
        return 0;
    }
    default:
        return pz_config_key_set_text(key, base, value);
    }
}

/* The name a CHOICE key's value v prints as (the first with that value), or "?". */
static const char *pz_choice_name(const struct pz_config_choice *choices, int64_t v)
{
    for (; choices->name; choices++)
        if (choices->value == v)
            return choices->name;
    return "?";
}

void pz_config_key_format(const struct pz_config_key *key, const void *base, char *buf, size_t n)
{
    const char *p = (const char *)base + key->offset;
    struct pz_config_ipv4 ip;
    struct pz_config_ipv6 ip6;
    char text[INET6_ADDRSTRLEN];

    switch (key->type) {
    case PZ_CONFIG_UINT:
        snprintf(buf, n, "%llu", (unsigned long long)pz_load_int(key, base));
        break;
    case PZ_CONFIG_HEX:
        snprintf(buf, n, "0x%0*llx", (int)key->width, (unsigned long long)pz_load_int(key, base));
        break;
    case PZ_CONFIG_CHOICE:
        snprintf(buf, n, "%s", pz_choice_name(key->choices, pz_load_int(key, base)));
        break;
    case PZ_CONFIG_IPV4_PREFIX:
    case PZ_CONFIG_IPV4:
        memcpy(&ip, p, sizeof(ip));
        if (!ip.addr && !ip.prefix_len)
            snprintf(buf, n, "%s", "");
        else if (key->type == PZ_CONFIG_IPV4)
            snprintf(buf, n, "%u.%u.%u.%u", ip.addr >> 24, ip.addr >> 16 & 0xFF,
                     ip.addr >> 8 & 0xFF, ip.addr & 0xFF);
        else
            snprintf(buf, n, "%u.%u.%u.%u/%u", ip.addr >> 24, ip.addr >> 16 & 0xFF,
                     ip.addr >> 8 & 0xFF, ip.addr & 0xFF, ip.prefix_len);
        break;
    case PZ_CONFIG_IPV6_PREFIX:
    case PZ_CONFIG_IPV6:
        memcpy(&ip6, p, sizeof(ip6));
        if (!ip6.prefix_len || !inet_ntop(AF_INET6, ip6.addr, text, sizeof(text)))
            snprintf(buf, n, "%s", "");
        else if (key->type == PZ_CONFIG_IPV6)
            snprintf(buf, n, "%s", text);
        else
            snprintf(buf, n, "%s/%u", text, ip6.prefix_len);
        break;
    default:
        snprintf(buf, n, "%.*s", (int)key->size, p);
        break;
    }
}

/* Append the distinct-valued names of choices ("auto|off|on") to buf (size n). */
static void pz_choice_syntax(const struct pz_config_choice *choices, char *buf, size_t n)
{
    size_t len = 0;

    buf[0] = '\0';
    for (const struct pz_config_choice *c = choices; c->name && len < n; c++) {
        if (strcmp(pz_choice_name(choices, c->value), c->name))
            continue; /* a synonym */
        len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? "|" : "", c->name);
    }
}

void pz_config_key_syntax(const struct pz_config_key *key, char *buf, size_t n)
{
    switch (key->type) {
    case PZ_CONFIG_UINT:
        snprintf(buf, n, key->step ? "%llu..%llu, step %llu" : "%llu..%llu",
                 (unsigned long long)key->min, (unsigned long long)key->max,
                 (unsigned long long)key->step);
        break;
    case PZ_CONFIG_HEX:
        snprintf(buf, n, "0x%llx..0x%llx", (unsigned long long)key->min,
                 (unsigned long long)key->max);
        break;
    case PZ_CONFIG_CHOICE:
        pz_choice_syntax(key->choices, buf, n);
        break;
    case PZ_CONFIG_PORTS:
        snprintf(buf, n, "port list 1..%d", PZ_CONFIG_MAX_PORT);
        break;
    case PZ_CONFIG_PATH:
        snprintf(buf, n, "absolute path");
        break;
    case PZ_CONFIG_IPV4_PREFIX:
        snprintf(buf, n, "A.B.C.D/N");
        break;
    case PZ_CONFIG_IPV4:
        snprintf(buf, n, "A.B.C.D");
        break;
    case PZ_CONFIG_IPV6_PREFIX:
        snprintf(buf, n, "X:Y::Z/N");
        break;
    case PZ_CONFIG_IPV6:
        snprintf(buf, n, "X:Y::Z");
        break;
    default:
        snprintf(buf, n, "text, up to %zu bytes", key->size - 1);
        break;
    }
}

/* Set key's field of the struct at base to the table's default. */
static void pz_config_key_default(const struct pz_config_key *key, void *base)
{
    if (key->type == PZ_CONFIG_UINT || key->type == PZ_CONFIG_HEX || key->type == PZ_CONFIG_CHOICE)
        pz_store_int(key, base, key->def);
    else
        pz_config_key_set(key, base, key->def_text ? key->def_text : "");
}

void pz_config_defaults(struct pz_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < PZ_CONFIG_NKEYS; i++)
        pz_config_key_default(&pz_config_table[i], cfg);
}

void pz_config_print_keys(FILE *f)
{
    struct pz_config def;
    char syntax[64], value[PZ_CONFIG_MAX_LINE];

    pz_config_defaults(&def);
    for (size_t i = 0; i < PZ_CONFIG_NKEYS; i++) {
        const struct pz_config_key *key = &pz_config_table[i];

        pz_config_key_syntax(key, syntax, sizeof(syntax));
        pz_config_key_format(key, &def, value, sizeof(value));
        fprintf(f, "  %s = %s (default: %s)\n      %s\n", key->name, syntax,
                *value ? value : "empty", key->help);
    }
}

void pz_config_print(const struct pz_config *cfg, FILE *f)
{
    char value[PZ_CONFIG_MAX_LINE];

    for (size_t i = 0; i < PZ_CONFIG_NKEYS; i++) {
        pz_config_key_format(&pz_config_table[i], cfg, value, sizeof(value));
        fprintf(f, "%s = %s\n", pz_config_table[i].name, value);
    }
}

/* Parse one port number of a port list at *s (advanced past it); returns it or -1. */
static long pz_port_number(const char **s)
{
    long v = 0;

    if (!isdigit((unsigned char)**s))
        return -1;
    while (isdigit((unsigned char)**s)) {
        v = v * 10 + (**s - '0');
        if (v > PZ_CONFIG_MAX_PORT)
            return -1;
        (*s)++;
    }
    return v >= 1 ? v : -1;
}

int pz_config_port_list(const char *s, uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8])
{
    int count = 0;

    memset(mask, 0, (PZ_CONFIG_MAX_PORT + 8) / 8);
    for (;;) {
        long lo = pz_port_number(&s), hi = lo;

        if (lo < 0)
            return -1;
        if (*s == '-') {
            s++;
            hi = pz_port_number(&s);
            if (hi < lo)
                return -1;
        }
        for (long p = lo; p <= hi; p++) {
            count += !(mask[p / 8] & (1u << (p % 8)));
            mask[p / 8] |= (uint8_t)(1u << (p % 8));
        }
        if (*s == '\0')
            return count;
        if (*s++ != ',')
            return -1;
    }
}

int pz_config_set(struct pz_config *cfg, const char *key, const char *value, char *err,
                  size_t errlen)
{
    const struct pz_config_key *k = pz_config_key_find(key);

    if (!k) {
        snprintf(err, errlen, "unknown key '%s'", key);
        return -1;
    }
    if (pz_config_key_set(k, cfg, value)) {
        snprintf(err, errlen, "bad value '%s' for '%s'", value, key);
        return -1;
    }
    return 0;
}

/* Strip leading and trailing white space in place; returns the start. */
static char *pz_trim(char *s)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* Whether a line before this one set key; returns 0, or -1 with err naming that line. */
static int pz_config_seen_check(const struct pz_config_seen *seen, const char *key, char *err,
                                size_t errlen)
{
    const struct pz_config_key *k = pz_config_key_find(key);
    unsigned line = k ? seen->line[k - pz_config_table] : 0;

    if (line) {
        snprintf(err, errlen, "duplicate key '%s' (line %u sets it too)", key, line);
        return -1;
    }
    return 0;
}

/* Record that line lineno set key (a known key). */
static void pz_config_seen_add(struct pz_config_seen *seen, const char *key, unsigned lineno)
{
    const struct pz_config_key *k = pz_config_key_find(key);

    if (k)
        seen->line[k - pz_config_table] = lineno;
}

/* Apply line lineno (a key set twice is an error); returns 0 or -1 with err set. */
static int pz_config_line(struct pz_config *cfg, struct pz_config_seen *seen, char *line,
                          unsigned lineno, char *err, size_t errlen)
{
    char *hash = strchr(line, '#'), *eq, *key, *value;
    struct pz_config next;

    if (hash)
        *hash = '\0';
    key = pz_trim(line);
    if (!*key)
        return 0;
    eq = strchr(key, '=');
    if (!eq) {
        snprintf(err, errlen, "expected 'key = value'");
        return -1;
    }
    *eq = '\0';
    value = pz_trim(eq + 1);
    key = pz_trim(key);
    /* A bad value is reported as such; a good one set twice as the duplicate; neither applies. */
    next = *cfg;
    if (pz_config_set(&next, key, value, err, errlen) ||
        pz_config_seen_check(seen, key, err, errlen))
        return -1;
    *cfg = next;
    pz_config_seen_add(seen, key, lineno);
    return 0;
}

int pz_config_parse(struct pz_config *cfg, const char *text, size_t len, char *err, size_t errlen)
{
    struct pz_config_seen seen = {{0}};
    char line[PZ_CONFIG_MAX_LINE];
    unsigned lineno = 0;
    size_t pos = 0;

    while (pos < len) {
        size_t n = 0;
        char msg[160] = "";

        lineno++;
        while (pos < len && text[pos] != '\n') {
            if (text[pos] == '\0' || n + 1 >= sizeof(line)) {
                snprintf(err, errlen, "line %u: %s", lineno,
                         text[pos] == '\0' ? "NUL byte" : "line too long");
                return -1;
            }
            line[n++] = text[pos++];
        }
        line[n] = '\0';
        pos++; /* the newline */
        if (pz_config_line(cfg, &seen, line, lineno, msg, sizeof(msg))) {
            snprintf(err, errlen, "line %u: %s", lineno, msg);
            return -1;
        }
    }
    return 0;
}

int pz_config_load(struct pz_config *cfg, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    char *buf;
    size_t len;
    int rc;

    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    buf = malloc(1 << 16);
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    len = fread(buf, 1, 1 << 16, f);
    if (!feof(f)) {
        snprintf(err, errlen, "%s: larger than 64 KiB", path);
        rc = -1;
    } else {
        rc = pz_config_parse(cfg, buf, len, err, errlen);
    }
    free(buf);
    fclose(f);
    return rc;
}

bool pz_config_mads_over_board(const struct pz_config *cfg)
{
    return cfg->board_sim && cfg->mad_transport != 0;
}

bool pz_config_wants_ip(const struct pz_config *cfg)
{
    return cfg->ip && cfg->ip_address.addr;
}

bool pz_config_port0_sa_clients(const struct pz_config *cfg)
{
    return pz_config_wants_ip(cfg) || cfg->reach;
}
