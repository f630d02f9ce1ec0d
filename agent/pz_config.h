/*
 * pz_config.h - portzero.conf: the agent's configuration.
 *
 * Format: one "key = value" per line; '#' starts a comment; blank lines are
 * ignored.  Unknown keys, bad values and a key given twice are errors naming
 * the line (a duplicate: both lines).  Command-line settings (-o) override
 * the file's.
 */
#ifndef PZ_CONFIG_H
#define PZ_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An IPv4 address with its prefix length ("10.0.0.5/24"), host byte order. */
struct pz_config_ipv4 {
    uint32_t addr;
    unsigned prefix_len; /* 0 .. 32 */
};

/* An IPv6 address with its prefix length ("fd00::5/64"), network order; all zero = empty. */
struct pz_config_ipv6 {
    uint8_t addr[16];
    unsigned prefix_len; /* 1 .. 128 when set */
};

struct pz_config {
    char ca[64];        /* umad device name; empty = first device */
    unsigned port;      /* umad port number; 0 = first port */
    char node_desc[65]; /* NodeDescription: the 64-byte field, NUL terminated here */
    uint64_t node_guid;
    unsigned num_ports;
    bool enhanced_port0;
    unsigned lft_cap;
    unsigned mft_cap;
    unsigned log_level;    /* 0 error .. 3 debug */
    bool board_sim;        /* board = sim: the switch is one of pzfabric's */
    char sim_node[64];     /* switch to take over; empty = $SIM_HOST */
    char sim_sockname[64]; /* pzfabric socket name; empty = $IBSIM_SOCKNAME or "sim" */
    int mad_transport;     /* auto|umad|board: -1, 0, 1 (auto: board for board = sim) */
    unsigned busy_poll_us; /* keep polling this long after input before sleeping; 0 = off */
    /* Port-0 datagrams and the echo service (traffic/pz_echo.h). */
    int dgram;           /* dgram = on|off|auto: 1, 0, -1 (auto: on for board = sim) */
    uint32_t dgram_qkey; /* the datagram QP's Q_Key; high bit clear */
    /* Switch-to-switch reachability (traffic/pz_reach.c, traffic/reach.h). */
    bool reach;                 /* reach = on|off: discover and probe the other switches */
    unsigned reach_interval_ms; /* between two probes of one switch */
    unsigned reach_timeout_ms;  /* a probe unanswered this long is a miss */
    unsigned reach_lost_after;  /* misses in a row that make a switch unreachable */
    unsigned reach_refresh_s;   /* SA rediscovery of the switches and their echo services */
    unsigned reach_lease_s;     /* lease of the echo service's ServiceRecord, renewed at half */
    unsigned reach_lost_keep_s; /* a switch gone from the subnet stays listed as lost this long */
    /* Congestion monitor (pma/cong_monitor.h, node/node_monitor.c). */
    bool monitor;                 /* monitor = on|off */
    unsigned monitor_interval_ms; /* sampling interval, >= 100 */
    uint64_t monitor_threshold;   /* congestion threshold, XmitWait ticks per second */
    unsigned monitor_low_util;    /* low-utilisation threshold, percent */
    unsigned monitor_clear;       /* a class clears below this % of the threshold */
    bool monitor_notices;         /* hot-spot notices to the master SM */
    char monitor_ca_ports[128];   /* CA-facing ports ("1-18,20"); empty = discover them */
    /* The IP management plane on port 0 (ipoib/, net/, agent/pz_ip.c). */
    bool ip;                           /* ip = on|off; on runs it when ip_address is set */
    struct pz_config_ipv4 ip_address;  /* the switch's address and prefix; empty = no IP plane */
    struct pz_config_ipv4 ip_gateway;  /* default gateway; empty = none */
    unsigned ipoib_pkey;               /* the IPoIB partition (membership bit ignored) */
    bool ip6;                          /* IPv6 on the plane too (link-local from port 0's GUID) */
    struct pz_config_ipv6 ip6_address; /* a global address and prefix; empty = link-local/SLAAC */
    struct pz_config_ipv6 ip6_gateway; /* IPv6 default router; empty = the RAs' routers */
    bool iperf_server;                 /* the iperf 2 server on port 5001 (traffic/) */
    char ctl_socket[108];              /* the control socket (pz-cli); empty = none */
    char state_dir[128];               /* persistent state: SNMP engine and users, SSH host keys */
    bool snmp;                     /* snmp = on|off; on serves UDP 161 when snmp_config is set */
    char snmp_config[128];         /* snmpd.conf tokens; empty = no SNMP agent */
    bool ssh;                      /* ssh = on|off; on serves TCP 22 when a user is set up */
    char ssh_authorized_keys[128]; /* admin's OpenSSH authorized_keys */
    char ssh_password_hash[160];   /* admin's crypt(3) hash; empty = no password login */
    char ssh_monitor_authorized_keys[128]; /* the read-only monitor user's */
    char ssh_monitor_password_hash[160];
    unsigned ssh_max_sessions;      /* logged-in connections at once */
    bool ssh_compat_algorithms;     /* also offer NIST P-256 and the non-etm MACs */
    unsigned ssh_pw_workers;        /* password hashes at once (verifier threads) */
    unsigned ssh_pw_queue;          /* password attempts waiting for a verifier; more: refused */
    unsigned ssh_backoff_after;     /* failed passwords of an address before back-off; 0 = off */
    unsigned ssh_backoff_base_ms;   /* the first wait of an address in back-off */
    unsigned ssh_backoff_max_ms;    /* the wait's cap (it doubles per failure) */
    unsigned ssh_backoff_forget_ms; /* an address quiet this long starts afresh */
    unsigned ssh_backoff_table;     /* addresses remembered */
};

/*
 * The key table: one descriptor a key drives parsing, the defaults, the key
 * list of --help and --check-config's printout.  Adding a key is one line
 * in pz_config.c's table (and its field in struct pz_config).
 */
enum pz_config_type {
    PZ_CONFIG_UINT,        /* number (decimal or 0x hex) in [min, max], a multiple of step */
    PZ_CONFIG_HEX,         /* the same, printed as 0x and width hex digits */
    PZ_CONFIG_CHOICE,      /* one of choices' names (booleans, enums), stored as its value */
    PZ_CONFIG_STRING,      /* text that fits the field; empty allowed */
    PZ_CONFIG_PORTS,       /* a port list (pz_config_port_list) or empty */
    PZ_CONFIG_PATH,        /* an absolute path that fits the field, or empty */
    PZ_CONFIG_IPV4_PREFIX, /* A.B.C.D/N into a struct pz_config_ipv4, or empty (all zero) */
    PZ_CONFIG_IPV4,        /* A.B.C.D into a struct pz_config_ipv4 (prefix 32), or empty */
    PZ_CONFIG_IPV6_PREFIX, /* X:Y::Z/N (unicast) into a struct pz_config_ipv6, or empty */
    PZ_CONFIG_IPV6, /* X:Y::Z (unicast) into a struct pz_config_ipv6 (prefix 128), or empty */
};

/* How a field is stored (set by PZ_CONFIG_FIELD from the member's type). */
enum pz_config_storage {
    PZ_CONFIG_AS_BOOL,
    PZ_CONFIG_AS_INT,
    PZ_CONFIG_AS_UINT,
    PZ_CONFIG_AS_ULONG,
    PZ_CONFIG_AS_ULLONG,
    PZ_CONFIG_AS_CHARS,
    PZ_CONFIG_AS_IPV4,
    PZ_CONFIG_AS_IPV6,
};

/* One accepted word of a CHOICE key and the value it stands for. */
struct pz_config_choice {
    const char *name;
    int value;
};

/* One configuration key. */
struct pz_config_key {
    const char *name;
    enum pz_config_type type;
    size_t offset; /* of the field in its struct */
    size_t size;   /* of the field */
    enum pz_config_storage storage;
    uint64_t min, max; /* UINT, HEX: the range */
    uint64_t step;     /* UINT, HEX: values are multiples of it (0: any) */
    unsigned width;    /* HEX: digits printed */
    /* CHOICE: the words, NULL-terminated; a value prints as the first word for it. */
    const struct pz_config_choice *choices;
    int64_t def;          /* default: UINT, HEX, CHOICE */
    const char *def_text; /* default: STRING, PORTS, PATH, IPV4_PREFIX */
    const char *help;     /* one line */
};

/* The offset, size and storage of member m of struct type t, for a key descriptor. */
#define PZ_CONFIG_FIELD(t, m)                                                                      \
    .offset = offsetof(t, m), .size = sizeof(((t *)0)->m),                                         \
    .storage = _Generic(((t *)0)->m,                                                               \
        bool: PZ_CONFIG_AS_BOOL,                                                                   \
        int: PZ_CONFIG_AS_INT,                                                                     \
        unsigned int: PZ_CONFIG_AS_UINT,                                                           \
        unsigned long: PZ_CONFIG_AS_ULONG,                                                         \
        unsigned long long: PZ_CONFIG_AS_ULLONG,                                                   \
        char *: PZ_CONFIG_AS_CHARS,                                                                \
        struct pz_config_ipv4: PZ_CONFIG_AS_IPV4,                                                  \
        struct pz_config_ipv6: PZ_CONFIG_AS_IPV6)

/* Boolean words: on/off (printed), yes/no, true/false, 1/0. */
extern const struct pz_config_choice pz_config_on_off[];
/* The same words, yes/no printed. */
extern const struct pz_config_choice pz_config_yes_no[];

/* The key table of struct pz_config; *count gets its length. */
const struct pz_config_key *pz_config_keys(size_t *count);

/* The key called name, or NULL. */
const struct pz_config_key *pz_config_key_find(const char *name);

/*
 * Parse value into key's field of the struct at base.  Returns 0, or -1
 * (bad syntax, out of range, too long) with the field unchanged.
 */
int pz_config_key_set(const struct pz_config_key *key, void *base, const char *value);

/* Format key's field of the struct at base as the file would say it, into buf (size n). */
void pz_config_key_format(const struct pz_config_key *key, const void *base, char *buf, size_t n);

/* Describe key's accepted values ("1..254", "on|off", "A.B.C.D/N") into buf (size n). */
void pz_config_key_syntax(const struct pz_config_key *key, char *buf, size_t n);

/* Print every key of the table with its values, default and help (for --help) to f. */
void pz_config_print_keys(FILE *f);

/* Print *cfg in portzero.conf syntax, one "key = value" per table key, to f. */
void pz_config_print(const struct pz_config *cfg, FILE *f);

/* The longest NodeDescription: the attribute's 64 bytes, no terminator needed. */
#define PZ_CONFIG_NODE_DESC_MAX 64

/* Highest port number a port list may name (a switch has at most 254 ports). */
#define PZ_CONFIG_MAX_PORT 254
/* The longest busy-polling window (busy_poll_us): 10 ms. */
#define PZ_CONFIG_MAX_BUSY_POLL_US 10000

/* Fill *cfg with the defaults (the table's). */
void pz_config_defaults(struct pz_config *cfg);

/*
 * Apply the configuration text text[0..len) to *cfg.  Returns 0, or -1 with a
 * message in err (size errlen) naming the line.
 */
int pz_config_parse(struct pz_config *cfg, const char *text, size_t len, char *err, size_t errlen);

/* Apply one "key=value" setting (as given on the command line with -o). */
int pz_config_set(struct pz_config *cfg, const char *key, const char *value, char *err,
                  size_t errlen);

/*
 * Parse a port list ("1-18,20": numbers and ranges 1..PZ_CONFIG_MAX_PORT,
 * comma separated) into mask (bit p of byte p / 8 = port p).  Returns the
 * number of ports named, or -1 for bad syntax or a port out of range.
 */
int pz_config_port_list(const char *s, uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8]);

/* Whether cfg asks for the IP plane: an address, and ip not off. */
bool pz_config_wants_ip(const struct pz_config *cfg);
/*
 * Whether port 0 has clients that register at the SA (the IP plane's group
 * join, reachability's ServiceRecord): port 0 then advertises
 * IsClientReregistrationSupported, so a new SM's ClientReregister makes them
 * register again at once instead of at their next look at the SA.
 */
bool pz_config_port0_sa_clients(const struct pz_config *cfg);

/* Whether the switch's MADs travel over the board/sim connection (board = sim, mad_transport not
 * umad). */
bool pz_config_mads_over_board(const struct pz_config *cfg);

/* Read and parse a file.  Returns 0 or -1 with a message in err. */
int pz_config_load(struct pz_config *cfg, const char *path, char *err, size_t errlen);

#endif /* PZ_CONFIG_H */
