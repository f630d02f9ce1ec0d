/*
 * topo_parse.c - read ibsim net files / ibnetdiscover output into a topology.
 *
 * Accepted lines (leading blanks are ignored, '#' starts a comment line):
 *   Switch N "name" [# "desc"] [enhanced port 0 | base port 0] [lid L] [lmc M]
 *   Hca N "name" [# "desc"]          (also "Ca N ...")
 *   [p](guid) "remote"[rp](guid) [w=W] [s=S] [e=E] [# lid L lmc M ...]
 *       (ibnetdiscover's comment "# ... lid L 4xQDR" sets the port's width
 *       and speed enables, topo_link.c)
 *   switchguid=X  switchguid+X  caguid=X  hcaguids=X  rtguid=X
 *   sysimgguid=X  vendid=X  devid=X  width=W  speed=S  extspeed=E  port0=WxSPEED
 * Port lines follow their node's header; any other line ends the record.
 * The "(guid)" after a port number is what ibnetdiscover prints; it is
 * skipped, GUIDs come from the scheme described in topo.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pzf_array.h"
#include "topo_internal.h"

/* What the parser knows between lines. */
struct topo_parser {
    struct topo *t;
    const char *file;
    unsigned line;
    char *err;
    long node; /* node whose port lines may follow, -1 if none */
    struct topo_cable *cables;
    size_t num_cables;
    size_t cap_cables;
    uint64_t guid_base[3]; /* indexed by enum topo_node_type */
    uint64_t next_guid[3];
    uint64_t sysimg_guid; /* for the next node only, 0 = none */
    uint32_t vendor_id;   /* for the next node only */
    bool has_vendor_id;
    uint16_t device_id; /* for every following node */
    bool has_device_id;
    uint8_t width, speed, speed_ext;  /* port defaults, 0 = the board's */
    uint8_t port0_width, port0_speed; /* port0=WxSPEED for the following switches, 0 = default */
    bool speed_ext_set;               /* extspeed= was given (0 then means none) */
};

/* Record "file:line: message" in the error buffer; returns -1. */
static int topo_error(struct topo_parser *p, const char *fmt, ...)
{
    int n = snprintf(p->err, TOPO_ERR_MAX, "%s:%u: ", p->file, p->line);
    va_list ap;

    if (n < 0 || n >= TOPO_ERR_MAX)
        return -1;
    va_start(ap, fmt);
    vsnprintf(p->err + n, TOPO_ERR_MAX - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The first character of s that is not a blank. */
static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/*
 * If s starts with the word kw (not followed by a letter, digit or '_'),
 * return what follows it; else NULL.
 */
static const char *keyword(const char *s, const char *kw)
{
    size_t n = strlen(kw);

    if (strncmp(s, kw, n) != 0 || isalnum((unsigned char)s[n]) || s[n] == '_')
        return NULL;
    return s + n;
}

/*
 * Read an unsigned number (C syntax: 0x.. hex, 0.. octal, else decimal)
 * at *s, at most max; advance *s.  Returns 0, or -1 if there is no number
 * or it is too big.
 */
static int read_number(const char **s, uint64_t max, uint64_t *value)
{
    char *end;
    unsigned long long v;

    if (!isdigit((unsigned char)**s))
        return -1;
    errno = 0;
    v = strtoull(*s, &end, 0);
    if (errno || v > max)
        return -1;
    *s = end;
    *value = v;
    return 0;
}

/* Read a decimal number at *s, at most max; returns 0 or -1. */
static int read_decimal(const char **s, uint64_t max, uint64_t *value)
{
    uint64_t v = 0;

    if (!isdigit((unsigned char)**s))
        return -1;
    while (isdigit((unsigned char)**s)) {
        v = v * 10 + (uint64_t)(**s - '0');
        if (v > max)
            return -1;
        (*s)++;
    }
    *value = v;
    return 0;
}

/*
 * Read a double-quoted string at *s into out (at most max bytes plus NUL);
 * advance *s past the closing quote.  Returns 0 or -1 with a message.
 */
static int read_quoted(struct topo_parser *p, const char **s, char *out, size_t max,
                       const char *what)
{
    const char *start, *end;

    if (**s != '"')
        return topo_error(p, "expected a quoted %s", what);
    start = *s + 1;
    end = strchr(start, '"');
    if (!end)
        return topo_error(p, "%s has no closing quote", what);
    if ((size_t)(end - start) > max)
        return topo_error(p, "%s is longer than %zu characters", what, max);
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    *s = end + 1;
    return 0;
}

/* Skip a "(hexdigits)" group as ibnetdiscover prints after ports; returns 0 or -1. */
static int skip_guid_group(struct topo_parser *p, const char **s)
{
    const char *c = *s;

    if (*c != '(')
        return 0;
    for (c++; isxdigit((unsigned char)*c); c++)
        ;
    if (*c != ')')
        return topo_error(p, "bad port GUID group, expected \"(hex)\"");
    *s = c + 1;
    return 0;
}

/* Find the word w in s (delimited by blanks or the string's ends), or NULL. */
static const char *find_word(const char *s, const char *w)
{
    size_t n = strlen(w);

    for (const char *c = strstr(s, w); c; c = strstr(c + 1, w))
        if ((c == s || c[-1] == ' ' || c[-1] == '\t') &&
            (c[n] == '\0' || c[n] == ' ' || c[n] == '\t'))
            return c;
    return NULL;
}

/* Read "lid N" and "lmc M" from text if present; returns 0 or -1 with a message. */
static int read_lid_lmc(struct topo_parser *p, const char *text, uint16_t *lid, uint8_t *lmc)
{
    const char *c;
    uint64_t v;

    if ((c = find_word(text, "lid"))) {
        c = skip_blanks(c + 3);
        if (read_number(&c, 0xFFFF, &v))
            return topo_error(p, "\"lid\" needs a number up to 65535");
        *lid = (uint16_t)v;
    }
    if ((c = find_word(text, "lmc"))) {
        c = skip_blanks(c + 3);
        if (read_number(&c, 7, &v))
            return topo_error(p, "\"lmc\" needs a number from 0 to 7");
        *lmc = (uint8_t)v;
    }
    return 0;
}

/*
 * Split the text after a node name into the NodeDescription (quoted or not,
 * after '#') and the remaining flag text.  Returns 0 or -1.
 */
static int read_description(struct topo_parser *p, const char *rest, struct topo_node *n,
                            char *flags, size_t flags_size)
{
    static const char *const stops[] = {" enhanced port ", " base port ", " lid ", " lmc "};
    const char *hash = strchr(rest, '#');
    const char *d, *end;

    snprintf(flags, flags_size, "%.*s", hash ? (int)(hash - rest) : (int)strlen(rest), rest);
    if (!hash)
        return 0;
    d = skip_blanks(hash + 1);
    if (*d == '"') {
        char desc[TOPO_DESC_MAX + 1];

        if (read_quoted(p, &d, desc, TOPO_DESC_MAX, "node description"))
            return -1;
        if (desc[0])
            memcpy(n->desc, desc, sizeof(desc));
        end = d;
    } else {
        end = d + strlen(d);
        for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
            const char *s = strstr(d, stops[i]);
            if (s && s < end)
                end = s;
        }
        if (end > d)
            snprintf(n->desc, sizeof(n->desc), "%.*s", (int)(end - d), d);
    }
    strncat(flags, " ", flags_size - strlen(flags) - 1);
    strncat(flags, end, flags_size - strlen(flags) - 1);
    return 0;
}

/*
 * Give a new node its GUIDs and per-node settings (ibsim's scheme); returns
 * 0, or -1 with a message when one of its GUIDs would be 0 (the counter
 * wrapped past 2^64: no port may have GUID 0).
 */
static int assign_guids(struct topo_parser *p, struct topo_node *n)
{
    uint64_t span = n->type == TOPO_SWITCH ? 0 : n->num_ports;

    if (p->next_guid[n->type] == 0 || p->next_guid[n->type] + span < p->next_guid[n->type])
        return topo_error(p, "node \"%s\" would get GUID 0 (the GUIDs wrap past 2^64)", n->name);
    n->node_guid = p->next_guid[n->type];
    if (n->type == TOPO_SWITCH)
        p->next_guid[n->type] += 1;
    else
        p->next_guid[n->type] += n->num_ports + 1;
    n->system_image_guid = p->sysimg_guid ? p->sysimg_guid : n->node_guid;
    n->vendor_id = p->vendor_id;
    n->has_vendor_id = p->has_vendor_id;
    n->device_id = p->device_id;
    n->has_device_id = p->has_device_id;
    n->port0_width = p->port0_width;
    n->port0_speed = p->port0_speed;
    p->sysimg_guid = 0;
    p->has_vendor_id = false;
    return 0;
}

/* Handle "Switch N "name" ..." / "Hca N "name" ..." (s: after the keyword). */
static int parse_header(struct topo_parser *p, const char *s, enum topo_node_type type)
{
    char name[TOPO_NAME_MAX + 1], flags[1024];
    struct topo_node *n;
    uint64_t num_ports;

    s = skip_blanks(s);
    if (read_decimal(&s, TOPO_MAX_PORTS, &num_ports) || num_ports == 0)
        return topo_error(p, "expected a number of ports from 1 to %d", TOPO_MAX_PORTS);
    s = skip_blanks(s);
    if (read_quoted(p, &s, name, TOPO_NAME_MAX, "node name"))
        return -1;
    if (!name[0])
        return topo_error(p, "empty node name");
    n = topo_add_node(p->t, type, (unsigned)num_ports);
    if (!n)
        return topo_error(p, "out of memory");
    n->line = p->line;
    memcpy(n->name, name, sizeof(name));
    snprintf(n->desc, sizeof(n->desc), "%s", name);
    if (assign_guids(p, n))
        return -1;
    p->node = (long)(p->t->num_nodes - 1);
    if (read_description(p, s, n, flags, sizeof(flags)))
        return -1;
    if (strstr(flags, "enhanced port 0"))
        n->enhanced_port0 = 1;
    else if (strstr(flags, "base port 0"))
        n->enhanced_port0 = -1;
    if (type == TOPO_SWITCH)
        return read_lid_lmc(p, flags, &n->lid, &n->lmc);
    return 0;
}

/* Handle "w=N", "s=N", "e=N" port options; returns 0 or -1. */
static int parse_port_options(struct topo_parser *p, const char *s, struct topo_port *port)
{
    for (s = skip_blanks(s); *s && *s != '#'; s = skip_blanks(s)) {
        char opt = *s;
        uint64_t v;

        if ((opt != 'w' && opt != 's' && opt != 'e') || s[1] != '=')
            return topo_error(p, "unexpected \"%.20s\" in port line (options: w= s= e=)", s);
        s += 2;
        if (read_number(&s, opt == 'w' ? 31 : 15, &v) || (opt != 'e' && v == 0))
            return topo_error(p, "bad value for port option %c=", opt);
        if (opt == 'w')
            port->width = (uint8_t)v;
        else if (opt == 's')
            port->speed = (uint8_t)v;
        else
            port->speed_ext = (uint8_t)v;
        port->speed_ext_set |= opt == 'e';
    }
    return 0;
}

/* Remember a cable to be connected once every node is known; returns 0 or -1. */
static int add_cable(struct topo_parser *p, unsigned port, const char *remote, unsigned remote_port)
{
    struct topo_cable *c;

    if (p->num_cables == p->cap_cables) {
        struct topo_cable *cables = pzf_array_grow(p->cables, &p->cap_cables, sizeof(*cables), 64);

        if (!cables)
            return topo_error(p, "out of memory");
        p->cables = cables;
    }
    c = &p->cables[p->num_cables++];
    c->node = (uint32_t)p->node;
    c->port = (uint8_t)port;
    c->remote_port = (uint8_t)remote_port;
    c->line = p->line;
    snprintf(c->remote, sizeof(c->remote), "%s", remote);
    return 0;
}

/* Handle a port line "[p](guid) "remote"[rp](guid) options # comment". */
static int parse_port_line(struct topo_parser *p, const char *s)
{
    struct topo_node *n = &p->t->nodes[p->node];
    char remote[TOPO_NAME_MAX + 1];
    uint64_t port, remote_port = 1; /* ibsim's default */
    struct topo_port *tp;
    const char *hash;

    s++; /* '[' */
    if (read_decimal(&s, TOPO_MAX_PORTS, &port) || *s != ']')
        return topo_error(p, "bad port number, expected \"[N]\"");
    s++;
    if (port == 0 || port > n->num_ports)
        return topo_error(p, "node \"%s\" has ports 1 to %u, not %u", n->name, n->num_ports,
                          (unsigned)port);
    tp = &n->ports[port];
    if (tp->line)
        return topo_error(p, "port %u of \"%s\" is already described at line %u", (unsigned)port,
                          n->name, tp->line);
    if (skip_guid_group(p, &s))
        return -1;
    s = skip_blanks(s);
    if (read_quoted(p, &s, remote, TOPO_NAME_MAX, "remote node name"))
        return -1;
    if (*s == '[') {
        s++;
        if (read_decimal(&s, TOPO_MAX_PORTS, &remote_port) || *s != ']' || remote_port == 0)
            return topo_error(p, "bad remote port number, expected \"[N]\" with N >= 1");
        s++;
    }
    if (skip_guid_group(p, &s))
        return -1;
    tp->line = p->line;
    tp->width = p->width;
    tp->speed = p->speed;
    tp->speed_ext = p->speed_ext;
    tp->speed_ext_set = p->speed_ext_set;
    if (parse_port_options(p, s, tp))
        return -1;
    hash = strchr(s, '#');
    /* ibnetdiscover's "... lid 3 4xQDR": it wins over the options, as in ibsim. */
    if (hash)
        topo_link_annotation(hash + 1, tp);
    if (hash && n->type == TOPO_CA && keyword(skip_blanks(hash + 1), "lid") &&
        read_lid_lmc(p, hash + 1, &tp->lid, &tp->lmc))
        return -1;
    return add_cable(p, (unsigned)port, remote, (unsigned)remote_port);
}

/* Handle "xxxguid=X" (absolute) or "xxxguid+X" (relative to the last base). */
static int parse_guid_base(struct topo_parser *p, const char *s, enum topo_node_type type)
{
    char op;
    uint64_t v;

    s = skip_blanks(s);
    op = *s;
    if (op != '=' && op != '+')
        return topo_error(p, "expected '=' or '+' and a GUID");
    s = skip_blanks(s + 1);
    if (read_number(&s, UINT64_MAX, &v))
        return topo_error(p, "expected a GUID number");
    if (op == '=' ? v == 0 : p->guid_base[type] + v == 0)
        return topo_error(p, "GUID 0 is not a valid GUID");
    if (op == '=') {
        p->guid_base[type] = v;
        p->next_guid[type] = v;
    } else {
        p->next_guid[type] = p->guid_base[type] + v;
    }
    return 0;
}

/* Handle "name=value" settings; *value gets the number, at most max. */
static int parse_setting(struct topo_parser *p, const char *s, const char *name, uint64_t max,
                         uint64_t *value)
{
    s = skip_blanks(s);
    if (*s != '=')
        return topo_error(p, "expected \"%s=value\"", name);
    s = skip_blanks(s + 1);
    if (read_number(&s, max, value))
        return topo_error(p, "bad value for %s (at most %llu)", name, (unsigned long long)max);
    return 0;
}

/*
 * port0=WxSPEED: the active width and speed of the management port of the
 * switches that follow (1x, 4x, 8x, 12x; SDR, DDR, QDR: PortInfo's active
 * codes).  Returns 0 or -1 (an error recorded).
 */
static int parse_port0(struct topo_parser *p, const char *s)
{
    static const struct {
        const char *name;
        uint8_t code;
    } speeds[] = {{"SDR", 1}, {"DDR", 2}, {"QDR", 4}};
    char *end;
    unsigned long lanes;

    s = skip_blanks(s);
    if (*s != '=')
        return topo_error(p, "expected \"port0=WxSPEED\" (e.g. port0=1xSDR)");
    s = skip_blanks(s + 1);
    lanes = strtoul(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X'))
        return topo_error(p, "bad port0 mode (want WxSPEED, e.g. 1xSDR)");
    switch (lanes) {
    case 1:
        p->port0_width = 1;
        break;
    case 4:
        p->port0_width = 2;
        break;
    case 8:
        p->port0_width = 4;
        break;
    case 12:
        p->port0_width = 8;
        break;
    default:
        return topo_error(p, "port0 width must be 1x, 4x, 8x or 12x");
    }
    for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++) {
        size_t n = strlen(speeds[i].name);
        if (!strncmp(end + 1, speeds[i].name, n) && !isalnum((unsigned char)end[1 + n])) {
            p->port0_speed = speeds[i].code;
            return 0;
        }
    }
    return topo_error(p, "port0 speed must be SDR, DDR or QDR");
}

/* Handle vendid=, devid=, sysimgguid=, width=, speed=, extspeed=, port0=; 1 if not one of them. */
static int parse_settings(struct topo_parser *p, const char *line)
{
    const char *s;
    uint64_t v;

    if ((s = keyword(line, "vendid"))) {
        if (parse_setting(p, s, "vendid", 0xFFFFFF, &v))
            return -1;
        p->vendor_id = (uint32_t)v;
        p->has_vendor_id = true;
    } else if ((s = keyword(line, "devid"))) {
        if (parse_setting(p, s, "devid", 0xFFFF, &v))
            return -1;
        p->device_id = (uint16_t)v;
        p->has_device_id = true;
    } else if ((s = keyword(line, "sysimgguid"))) {
        if (parse_setting(p, s, "sysimgguid", UINT64_MAX, &p->sysimg_guid))
            return -1;
        if (p->sysimg_guid == 0)
            return topo_error(p, "sysimgguid 0 is not a valid GUID");
    } else if ((s = keyword(line, "width"))) {
        if (parse_setting(p, s, "width", 31, &v))
            return -1;
        if (v == 0)
            return topo_error(p, "width must be 1 to 31");
        p->width = (uint8_t)v;
    } else if ((s = keyword(line, "speed"))) {
        if (parse_setting(p, s, "speed", 15, &v))
            return -1;
        if (v == 0)
            return topo_error(p, "speed must be 1 to 15");
        p->speed = (uint8_t)v;
    } else if ((s = keyword(line, "port0"))) {
        if (parse_port0(p, s))
            return -1;
    } else if ((s = keyword(line, "extspeed"))) {
        if (parse_setting(p, s, "extspeed", 15, &v))
            return -1;
        p->speed_ext = (uint8_t)v;
        p->speed_ext_set = true;
    } else {
        return 1;
    }
    return 0;
}

/* Handle a line outside a node record; returns 0 or -1. */
static int parse_top_line(struct topo_parser *p, const char *line)
{
    static const char *const unsupported[] = {"include", "do", "module", "pdebug", "Rt"};
    const char *s;
    int r;

    if ((s = keyword(line, "Switch")))
        return parse_header(p, s, TOPO_SWITCH);
    if ((s = keyword(line, "Hca")) || (s = keyword(line, "Ca")))
        return parse_header(p, s, TOPO_CA);
    if ((s = keyword(line, "switchguid")))
        return parse_guid_base(p, s, TOPO_SWITCH);
    if ((s = keyword(line, "caguid")) || (s = keyword(line, "hcaguids")))
        return parse_guid_base(p, s, TOPO_CA);
    if (keyword(line, "rtguid"))
        return 0; /* routers are not emulated; their GUIDs do not matter */
    r = parse_settings(p, line);
    if (r <= 0)
        return r;
    if (line[0] == '[')
        return topo_error(p, "port line outside a node record");
    for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
        if (keyword(line, unsupported[i]))
            return topo_error(p, "\"%s\" lines are not supported", unsupported[i]);
    return topo_error(p, "unrecognised line \"%.40s\"", line);
}

/* Handle one line (without its newline); returns 0 or -1. */
static int parse_line(struct topo_parser *p, char *line)
{
    size_t len = strlen(line);
    const char *s;

    while (len && isspace((unsigned char)line[len - 1]))
        line[--len] = '\0';
    s = skip_blanks(line);
    if (*s == '#')
        return 0;
    if (p->node >= 0 && *s == '[')
        return parse_port_line(p, s);
    p->node = -1; /* any other line ends the record */
    if (!*s)
        return 0;
    return parse_top_line(p, s);
}

/* Split text into lines and parse each; returns 0 or -1. */
static int parse_lines(struct topo_parser *p, const char *text, size_t len)
{
    size_t pos = 0;
    char *line = NULL;
    int rc = 0;

    while (pos < len && rc == 0) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

        p->line++;
        if (memchr(text + pos, '\0', n)) {
            rc = topo_error(p, "NUL byte in line (not a text file?)");
            break;
        }
        free(line);
        line = malloc(n + 1);
        if (!line) {
            rc = topo_error(p, "out of memory");
            break;
        }
        memcpy(line, text + pos, n);
        line[n] = '\0';
        rc = parse_line(p, line);
        pos += n + 1;
    }
    free(line);
    return rc;
}

struct topo *topo_parse(const char *text, size_t len, const char *name, char err[TOPO_ERR_MAX])
{
    struct topo_parser p = {
        .file = name ? name : "topology",
        .err = err,
        .node = -1,
        .guid_base = {0, TOPO_CA_GUID_BASE, TOPO_SWITCH_GUID_BASE},
        .next_guid = {0, TOPO_CA_GUID_BASE, TOPO_SWITCH_GUID_BASE},
    };
    int rc;

    err[0] = '\0';
    p.t = calloc(1, sizeof(*p.t));
    if (!p.t) {
        snprintf(err, TOPO_ERR_MAX, "%s: out of memory", p.file);
        return NULL;
    }
    rc = parse_lines(&p, text ? text : "", text ? len : 0);
    if (rc == 0 && p.t->num_nodes == 0) {
        snprintf(err, TOPO_ERR_MAX, "%s: no Switch or Hca records", p.file);
        rc = -1;
    }
    if (rc == 0)
        rc = topo_connect(p.t, p.cables, p.num_cables, p.file, err);
    free(p.cables);
    if (rc) {
        topo_free(p.t);
        return NULL;
    }
    return p.t;
}

struct topo *topo_load(const char *path, char err[TOPO_ERR_MAX])
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0, cap = 0;
    struct topo *t = NULL;

    if (!f) {
        snprintf(err, TOPO_ERR_MAX, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (len == cap) {
            char *bigger = realloc(text, cap ? 2 * cap : 65536);
            if (!bigger) {
                snprintf(err, TOPO_ERR_MAX, "%s: out of memory", path);
                goto out;
            }
            text = bigger;
            cap = cap ? 2 * cap : 65536;
        }
        size_t n = fread(text + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f))
        snprintf(err, TOPO_ERR_MAX, "%s: read error", path);
    else
        t = topo_parse(text, len, path, err);
out:
    free(text);
    fclose(f);
    return t;
}
