/*
 * pz_config.c - portzero.conf parser.
 */
#include "pz_config.h"

#include "cong_monitor.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PZ_CONFIG_MAX_LINE 512
/* Distinct keys a file can set (more than there are keys). */
#define PZ_CONFIG_MAX_KEYS 64
#define PZ_CONFIG_MAX_KEY 32

_Static_assert(sizeof(((struct pz_config *)0)->node_desc) == PZ_CONFIG_NODE_DESC_MAX + 1,
               "node_desc holds the whole 64-byte field and a terminator");

/* The keys a file has set so far, each with the line that set it. */
struct pz_config_seen {
    char key[PZ_CONFIG_MAX_KEYS][PZ_CONFIG_MAX_KEY];
    unsigned line[PZ_CONFIG_MAX_KEYS];
    unsigned count;
};

void pz_config_defaults(struct pz_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    snprintf(cfg->node_desc, sizeof(cfg->node_desc), "portzero switch");
    cfg->node_guid = 0x0002c90300000001ull;
    cfg->num_ports = 36;
    cfg->lft_cap = 0xC000;
    cfg->mft_cap = 1024;
    cfg->log_level = 2;
    cfg->monitor = true;
    cfg->monitor_interval_ms = CONG_INTERVAL_DEFAULT_MS;
    cfg->monitor_threshold = CONG_THRESHOLD_DEFAULT;
    cfg->monitor_low_util = CONG_LOW_UTIL_DEFAULT;
    cfg->monitor_clear = CONG_CLEAR_DEFAULT;
    cfg->monitor_notices = true;
    cfg->dgram = -1;
    cfg->dgram_qkey = 0x505a0001u; /* PZ_ECHO_QKEY_DEFAULT */
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

/* Parse a boolean: yes/no, true/false, on/off, 1/0. */
static int pz_parse_bool(const char *s, bool *out)
{
    if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "on") || !strcmp(s, "1")) {
        *out = true;
        return 0;
    }
    if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "off") || !strcmp(s, "0")) {
        *out = false;
        return 0;
    }
    return -1;
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

/* Apply one monitor_* key; returns 0, -1 (bad value) or 1 (not a monitor key). */
static int pz_config_set_monitor(struct pz_config *cfg, const char *key, const char *value)
{
    uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8];
    uint64_t v = 0;
    int rc;

    if (!strcmp(key, "monitor"))
        return pz_parse_bool(value, &cfg->monitor);
    if (!strcmp(key, "monitor_notices"))
        return pz_parse_bool(value, &cfg->monitor_notices);
    if (!strcmp(key, "monitor_interval_ms")) {
        rc = pz_parse_u64(value, CONG_INTERVAL_MIN_MS, 3600000, &v);
        cfg->monitor_interval_ms = rc ? cfg->monitor_interval_ms : (unsigned)v;
    } else if (!strcmp(key, "monitor_threshold")) {
        rc = pz_parse_u64(value, 1, 1000000000000ull, &v);
        cfg->monitor_threshold = rc ? cfg->monitor_threshold : v;
    } else if (!strcmp(key, "monitor_low_util")) {
        rc = pz_parse_u64(value, 1, 100, &v);
        cfg->monitor_low_util = rc ? cfg->monitor_low_util : (unsigned)v;
    } else if (!strcmp(key, "monitor_clear")) {
        rc = pz_parse_u64(value, 1, 100, &v);
        cfg->monitor_clear = rc ? cfg->monitor_clear : (unsigned)v;
    } else if (!strcmp(key, "monitor_ca_ports")) {
        rc = *value && pz_config_port_list(value, mask) < 0 ? -1 : 0;
        rc = rc ? rc : pz_parse_str(value, cfg->monitor_ca_ports, sizeof(cfg->monitor_ca_ports));
    } else {
        return 1;
    }
    return rc;
}

int pz_config_set(struct pz_config *cfg, const char *key, const char *value, char *err,
                  size_t errlen)
{
    uint64_t v = 0;
    int rc = -1;

    if (!strcmp(key, "ca")) {
        rc = pz_parse_str(value, cfg->ca, sizeof(cfg->ca));
    } else if (!strcmp(key, "port")) {
        rc = pz_parse_u64(value, 0, 254, &v);
        cfg->port = rc ? cfg->port : (unsigned)v;
    } else if (!strcmp(key, "node_desc")) {
        rc = pz_parse_str(value, cfg->node_desc, sizeof(cfg->node_desc));
    } else if (!strcmp(key, "node_guid")) {
        rc = pz_parse_u64(value, 1, UINT64_MAX, &v);
        cfg->node_guid = rc ? cfg->node_guid : v;
    } else if (!strcmp(key, "num_ports")) {
        rc = pz_parse_u64(value, 1, 254, &v);
        cfg->num_ports = rc ? cfg->num_ports : (unsigned)v;
    } else if (!strcmp(key, "enhanced_port0")) {
        rc = pz_parse_bool(value, &cfg->enhanced_port0);
    } else if (!strcmp(key, "lft_cap")) {
        rc = pz_parse_u64(value, 64, 0xC000, &v);
        rc = rc || v % 64 ? -1 : 0;
        cfg->lft_cap = rc ? cfg->lft_cap : (unsigned)v;
    } else if (!strcmp(key, "mft_cap")) {
        rc = pz_parse_u64(value, 0, 0x4000, &v);
        rc = rc || v % 32 ? -1 : 0;
        cfg->mft_cap = rc ? cfg->mft_cap : (unsigned)v;
    } else if (!strcmp(key, "board")) {
        rc = strcmp(value, "sim") && strcmp(value, "mem") ? -1 : 0;
        cfg->board_sim = rc ? cfg->board_sim : !strcmp(value, "sim");
    } else if (!strcmp(key, "sim_node")) {
        rc = pz_parse_str(value, cfg->sim_node, sizeof(cfg->sim_node));
    } else if (!strcmp(key, "sim_sockname")) {
        rc = pz_parse_str(value, cfg->sim_sockname, sizeof(cfg->sim_sockname));
    } else if (!strcmp(key, "dgram")) {
        bool on = false;

        rc = strcmp(value, "auto") ? pz_parse_bool(value, &on) : 0;
        cfg->dgram = rc ? cfg->dgram : !strcmp(value, "auto") ? -1 : on;
    } else if (!strcmp(key, "dgram_qkey")) {
        /* A Q_Key with the high bit set is a controlled one: never a QP's own. */
        rc = pz_parse_u64(value, 0, 0x7FFFFFFF, &v);
        cfg->dgram_qkey = rc ? cfg->dgram_qkey : (uint32_t)v;
    } else if (!strcmp(key, "log_level")) {
        rc = pz_parse_u64(value, 0, 3, &v);
        cfg->log_level = rc ? cfg->log_level : (unsigned)v;
    } else if ((rc = pz_config_set_monitor(cfg, key, value)) <= 0) {
        /* a monitor_* key: rc says how it went */
    } else {
        snprintf(err, errlen, "unknown key '%s'", key);
        return -1;
    }
    if (rc)
        snprintf(err, errlen, "bad value '%s' for '%s'", value, key);
    return rc;
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
    for (unsigned i = 0; i < seen->count; i++) {
        if (!strcmp(seen->key[i], key)) {
            snprintf(err, errlen, "duplicate key '%s' (line %u sets it too)", key, seen->line[i]);
            return -1;
        }
    }
    return 0;
}

/* Record that line lineno set key (a known key: it fits). */
static void pz_config_seen_add(struct pz_config_seen *seen, const char *key, unsigned lineno)
{
    if (seen->count == PZ_CONFIG_MAX_KEYS)
        return;
    snprintf(seen->key[seen->count], PZ_CONFIG_MAX_KEY, "%s", key);
    seen->line[seen->count++] = lineno;
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
    struct pz_config_seen seen = {.count = 0};
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
