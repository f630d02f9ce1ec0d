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
    /* Port-0 datagrams and the echo service (agent/pz_echo.h). */
    int dgram;           /* dgram = on|off|auto: 1, 0, -1 (auto: on for board = sim) */
    uint32_t dgram_qkey; /* the datagram QP's Q_Key; high bit clear */
    /* Congestion monitor (pma/cong_monitor.h, agent/pz_monitor.c). */
    bool monitor;                 /* monitor = on|off */
    unsigned monitor_interval_ms; /* sampling interval, >= 100 */
    uint64_t monitor_threshold;   /* congestion threshold, XmitWait ticks per second */
    unsigned monitor_low_util;    /* low-utilisation threshold, percent */
    unsigned monitor_clear;       /* a class clears below this % of the threshold */
    bool monitor_notices;         /* hot-spot notices to the master SM */
    char monitor_ca_ports[128];   /* CA-facing ports ("1-18,20"); empty = discover them */
};

/* The longest NodeDescription: the attribute's 64 bytes, no terminator needed. */
#define PZ_CONFIG_NODE_DESC_MAX 64

/* Highest port number a port list may name (a switch has at most 254 ports). */
#define PZ_CONFIG_MAX_PORT 254

/* Fill *cfg with the defaults. */
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

/* Read and parse a file.  Returns 0 or -1 with a message in err. */
int pz_config_load(struct pz_config *cfg, const char *path, char *err, size_t errlen);

#endif /* PZ_CONFIG_H */
