/*
 * snmp_info.c - what the CLI's `show snmp` reads: the engine (ID, boots,
 * time), the SNMPv2-MIB snmp group counters, and the configured users,
 * communities and notification sinks with their secrets left out.
 *
 * The configured access is read back from the configuration file's own
 * lines: net-snmp keeps communities and sinks in private tables with no
 * listing API, and the file is what the operator wrote.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "snmp_internal.h"

void pz_snmp_get_info(const struct pz_snmp *s, struct pz_snmp_info *info)
{
    memset(info, 0, sizeof(*info));
    info->engine_id_len = snmpv3_get_engineID(info->engine_id, sizeof(info->engine_id));
    info->engine_boots = (uint32_t)snmpv3_local_snmpEngineBoots();
    info->engine_time = (uint32_t)snmpv3_local_snmpEngineTime();
    info->in_pkts = snmp_get_statistic(STAT_SNMPINPKTS);
    info->out_pkts = snmp_get_statistic(STAT_SNMPOUTPKTS);
    info->in_bad_versions = snmp_get_statistic(STAT_SNMPINBADVERSIONS);
    info->in_bad_community_names = snmp_get_statistic(STAT_SNMPINBADCOMMUNITYNAMES);
    info->in_bad_community_uses = snmp_get_statistic(STAT_SNMPINBADCOMMUNITYUSES);
    info->in_asn_parse_errs = snmp_get_statistic(STAT_SNMPINASNPARSEERRS);
    info->silent_drops = snmp_get_statistic(STAT_SNMPSILENTDROPS);
    info->proxy_drops = snmp_get_statistic(STAT_SNMPPROXYDROPS);
    pz_snmp_get_stats(s, &info->agent);
}

/* Longest configuration line (net-snmp's own limit), words per line, word length. */
#define SNMP_LINE 1024
#define SNMP_WORDS 16
#define SNMP_WORD 256

/* Copy the words words[from..n) joined by spaces into out. */
static void snmp_join(char *out, size_t cap, char (*words)[SNMP_WORD], int from, int n)
{
    size_t len = 0;

    out[0] = '\0';
    for (int i = from; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i > from ? " " : "", words[i]);
}

/*
 * A sink's address without its transport prefix ("udp:", "udp6:"...: letters
 * and digits before the first ':', one of them not a hex digit, so that a
 * bare IPv6 address keeps its first group).
 */
static const char *snmp_sink_addr(const char *spec)
{
    size_t word = strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

    if (word && spec[word] == ':' && strspn(spec, "0123456789abcdefABCDEF") < word)
        return spec + word + 1;
    return spec;
}

/*
 * The host of a sink's address into out: what is between "[" and "]" of
 * an IPv6 one, a bare IPv6 address (two ':' or more) whole, else what
 * precedes ":PORT".
 */
static void snmp_sink_host(const char *addr, char *out, size_t cap)
{
    size_t len;

    if (addr[0] == '[') {
        addr++;
        len = strcspn(addr, "]");
    } else if (strchr(addr, ':') && strchr(addr, ':') != strrchr(addr, ':')) {
        len = strlen(addr);
    } else {
        len = strcspn(addr, ":");
    }
    snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), addr);
}

/*
 * The port of a sink: the third argument (trap2sink HOST [COMMUNITY [PORT]]),
 * else the ":PORT" of the host ("[v6]:PORT" for IPv6), else 162.
 */
static const char *snmp_sink_port(char (*w)[SNMP_WORD], int n)
{
    const char *addr = snmp_sink_addr(w[1]);
    const char *colon = addr[0] == '[' ? strstr(addr, "]:") : strrchr(addr, ':');

    if (n > 3)
        return w[3];
    if (addr[0] == '[')
        return colon && colon[2] ? colon + 2 : "162";
    if (colon && colon != strchr(addr, ':'))
        return "162"; /* a bare IPv6 address */
    return colon && colon[1] ? colon + 1 : "162";
}

/*
 * The index of the user name in createUser's words from first on:
 * [-M] [-e ENGINEID] NAME (usm_create_usmUser_from_string's order); n if none.
 */
static int snmp_user_word(char (*w)[SNMP_WORD], int first, int n)
{
    int u = first;

    if (u < n && !strcmp(w[u], "-M"))
        u++; /* net-snmp's keep-master-key flag */
    if (u < n && !strcmp(w[u], "-e"))
        u += 2;
    return u < n ? u : n;
}

/* Split text into net-snmp's words (copy_nword: quotes, backslashes); the count. */
static int snmp_words(const char *text, char (*w)[SNMP_WORD])
{
    const char *cp = skip_white_const(text);
    int n = 0;

    while (cp && n < SNMP_WORDS)
        cp = copy_nword_const(cp, w[n++], SNMP_WORD);
    return n;
}

/*
 * Call fn with the words of every line of the configuration file at path
 * that is not blank or a comment, until fn returns false.  Returns false if
 * the file cannot be opened.
 */
static bool snmp_conf_lines(const char *path, bool (*fn)(char (*w)[SNMP_WORD], int n, void *arg),
                            void *arg)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[SNMP_LINE];
    char w[SNMP_WORDS][SNMP_WORD];

    if (!f)
        return false;
    while (fgets(line, sizeof(line), f)) {
        const char *cp;
        int n;

        /* The rest of an overlong line is not a line of its own. */
        if (!strchr(line, '\n') && !feof(f)) {
            int c;

            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        }
        line[strcspn(line, "\r\n")] = '\0';
        cp = skip_white_const(line);
        if (!cp || *cp == '#')
            continue;
        n = snmp_words(cp, w);
        if (n && !fn(w, n, arg))
            break;
    }
    fclose(f);
    return true;
}

/* What snmp_conf_sets looks for and found. */
struct snmp_token_find {
    const char *token;
    bool found;
};

/* snmp_conf_lines callback: stop at a line of the token sought (any case, as net-snmp's). */
static bool snmp_token_find_line(char (*w)[SNMP_WORD], int n, void *arg)
{
    struct snmp_token_find *tf = arg;

    (void)n;
    tf->found = !strcasecmp(w[0], tf->token);
    return !tf->found;
}

bool snmp_conf_sets(const char *path, const char *token)
{
    struct snmp_token_find tf = {.token = token, .found = false};

    snmp_conf_lines(path, snmp_token_find_line, &tf);
    return tf.found;
}

/* What snmp_conf_user_configured looks for and found. */
struct snmp_user_find {
    const char *name;
    bool found;
};

/* snmp_conf_lines callback: stop at a createUser line of the user sought. */
static bool snmp_user_find_line(char (*w)[SNMP_WORD], int n, void *arg)
{
    struct snmp_user_find *uf = arg;
    int u;

    if (strcasecmp(w[0], "createUser"))
        return true;
    u = snmp_user_word(w, 1, n);
    uf->found = u < n && !strcmp(w[u], uf->name);
    return !uf->found;
}

bool snmp_conf_user_configured(const char *path, const char *args, char *name, size_t cap)
{
    char w[SNMP_WORDS][SNMP_WORD];
    int n = snmp_words(args ? args : "", w);
    int u = snmp_user_word(w, 0, n);
    struct snmp_user_find uf = {.name = name, .found = false};

    if (!cap)
        return false;
    name[0] = '\0';
    if (u >= n)
        return false;
    snprintf(name, cap, "%s", w[u]);
    snmp_conf_lines(path, snmp_user_find_line, &uf);
    return uf.found;
}

/*
 * One configuration line's words as an item without secrets; false for a line
 * that is not access or a sink.  The words are net-snmp's (copy_nword: a
 * quoted pass phrase or community is one word), tokens match in any case, as
 * net-snmp's do.  createUser: name and protocols (no pass phrases);
 * rouser/rwuser: name and the rest; communities: the string hidden, the
 * source and view kept; sinks: the host and port (the community hidden).
 */
static bool snmp_item(char (*w)[SNMP_WORD], int n, struct pz_snmp_conf_item *it)
{
    int u = 1;

    snprintf(it->kind, sizeof(it->kind), "%.*s", (int)sizeof(it->kind) - 1, w[0]);
    if (!strcasecmp(w[0], "createUser")) {
        u = snmp_user_word(w, 1, n);
        if (u >= n)
            return false;
        snprintf(it->name, sizeof(it->name), "%.*s", (int)sizeof(it->name) - 1, w[u]);
        snprintf(it->detail, sizeof(it->detail), "%.40s %.40s", u + 1 < n ? w[u + 1] : "noauth",
                 u + 3 < n ? w[u + 3] : "nopriv");
        return true;
    }
    if (!strcasecmp(w[0], "rouser") || !strcasecmp(w[0], "rwuser")) {
        if (n > 2 && !strcmp(w[1], "-s"))
            u = 3;
        if (u >= n)
            return false;
        snprintf(it->name, sizeof(it->name), "%.*s", (int)sizeof(it->name) - 1, w[u]);
        snmp_join(it->detail, sizeof(it->detail), w, u + 1, n);
        return true;
    }
    if (!strncasecmp(w[0], "rocommunity", 11) || !strncasecmp(w[0], "rwcommunity", 11)) {
        snprintf(it->name, sizeof(it->name), "(hidden)");
        snmp_join(it->detail, sizeof(it->detail), w, 2, n);
        return n > 1;
    }
    if (!strcasecmp(w[0], "trapsink") || !strcasecmp(w[0], "trap2sink") ||
        !strcasecmp(w[0], "informsink")) {
        if (n < 2)
            return false;
        snmp_sink_host(snmp_sink_addr(w[1]), it->name, sizeof(it->name));
        snprintf(it->detail, sizeof(it->detail), "port %.16s", snmp_sink_port(w, n));
        return true;
    }
    return false;
}

/* What pz_snmp_conf_items fills. */
struct snmp_items {
    struct pz_snmp_conf_item *items;
    size_t count, max;
};

/* snmp_conf_lines callback: one item per access or sink line, until max. */
static bool snmp_items_line(char (*w)[SNMP_WORD], int n, void *arg)
{
    struct snmp_items *it = arg;

    if (snmp_item(w, n, &it->items[it->count]))
        it->count++;
    return it->count < it->max;
}

size_t pz_snmp_conf_items(const struct pz_snmp *s, struct pz_snmp_conf_item *items, size_t max)
{
    struct snmp_items it = {.items = items, .count = 0, .max = max};

    if (max)
        snmp_conf_lines(s->p.config_file, snmp_items_line, &it);
    return it.count;
}
