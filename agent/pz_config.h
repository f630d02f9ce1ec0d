/*
 * pz_config.h - portzero.conf: the agent's configuration.
 *
 * Format: one "key = value" per line; '#' starts a comment; blank lines are
 * ignored.  Unknown keys and bad values are errors with the line number.
 */
#ifndef PZ_CONFIG_H
#define PZ_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pz_config {
    char ca[64];        /* umad device name; empty = first device */
    unsigned port;      /* umad port number; 0 = first port */
    char node_desc[64]; /* NodeDescription */
    uint64_t node_guid;
    unsigned num_ports;
    bool enhanced_port0;
    unsigned lft_cap;
    unsigned mft_cap;
    unsigned log_level;    /* 0 error .. 3 debug */
    bool board_sim;        /* board = sim: the switch is one of pzfabric's */
    char sim_node[64];     /* switch to take over; empty = $SIM_HOST */
    char sim_sockname[64]; /* pzfabric socket name; empty = $IBSIM_SOCKNAME or "sim" */
};

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

/* Read and parse a file.  Returns 0 or -1 with a message in err. */
int pz_config_load(struct pz_config *cfg, const char *path, char *err, size_t errlen);

#endif /* PZ_CONFIG_H */
