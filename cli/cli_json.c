/*
 * cli_json.c - the JSON writer of `show ... json` (see cli_json.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli_json.h"

/*
 * Length of the well-formed UTF-8 sequence (RFC 3629) that starts at s, or
 * 0 when the bytes there are not one: a stray continuation byte, a cut
 * sequence, an overlong form, a surrogate or a code point past U+10FFFF.
 * Written here because none of the libraries portzerod links offers a
 * validator; it is the table of RFC 3629 section 4, nothing more.
 */
static size_t cli_json_utf8_len(const unsigned char *s)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (s[0] == 0xe0)
        lo = 0xa0; /* overlong below U+0800 */
    else if (s[0] == 0xed)
        hi = 0x9f; /* surrogates U+D800..DFFF */
    else if (s[0] == 0xf0)
        lo = 0x90; /* overlong below U+10000 */
    else if (s[0] == 0xf4)
        hi = 0x8f; /* past U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return len;
}

/* The escape for byte c, which cannot stand as itself in a JSON string. */
static void cli_json_escape(unsigned char c, char esc[8])
{
    if (c == '"' || c == '\\')
        snprintf(esc, 8, "\\%c", c);
    else if (c == '\n')
        snprintf(esc, 8, "\\n");
    else if (c == '\t')
        snprintf(esc, 8, "\\t");
    else if (c == '\r')
        snprintf(esc, 8, "\\r");
    else
        snprintf(esc, 8, "\\u%04x", c);
}

/*
 * Write a string as a JSON string literal, escaped.  Well-formed UTF-8
 * passes through; a byte that is not part of a well-formed sequence (a
 * NodeDescription in another encoding, say) is written as \u00XX, the
 * Latin-1 character of that value, so the output is always valid JSON and
 * the byte's value stays readable.
 */
static void cli_json_quote(const struct cli_out *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    const unsigned char *run = s;
    char esc[8];

    out->write(out->arg, "\"", 1);
    while (*s) {
        size_t len = cli_json_utf8_len(s);

        if (len > 1 || (len == 1 && *s >= 0x20 && *s != '"' && *s != '\\')) {
            s += len;
            continue;
        }
        out->write(out->arg, (const char *)run, (size_t)(s - run));
        cli_json_escape(*s, esc);
        out->write(out->arg, esc, strlen(esc));
        run = ++s;
    }
    out->write(out->arg, (const char *)run, (size_t)(s - run));
    out->write(out->arg, "\"", 1);
}

/* The separator and key before a member at the current depth. */
static void cli_json_member(struct cli_json *j, const char *key)
{
    if (!j->first[j->depth])
        j->out->write(j->out->arg, ",", 1);
    j->first[j->depth] = false;
    if (key) {
        cli_json_quote(j->out, key);
        j->out->write(j->out->arg, ":", 1);
    }
}

/* Open a container with its bracket. */
static void cli_json_open(struct cli_json *j, const char *key, const char *bracket)
{
    cli_json_member(j, key);
    j->out->write(j->out->arg, bracket, 1);
    if (j->depth + 1 < CLI_JSON_MAX_DEPTH)
        j->depth++;
    j->first[j->depth] = true;
}

/* Close a container with its bracket. */
static void cli_json_close(struct cli_json *j, const char *bracket)
{
    j->out->write(j->out->arg, bracket, 1);
    if (j->depth)
        j->depth--;
}

void cli_json_begin(struct cli_json *j, const struct cli_out *out)
{
    j->out = out;
    j->depth = 0;
    j->first[0] = true;
    out->write(out->arg, "{", 1);
    j->depth = 1;
    j->first[1] = true;
}

void cli_json_end(struct cli_json *j)
{
    j->out->write(j->out->arg, "}\n", 2);
    j->depth = 0;
}

void cli_json_object(struct cli_json *j, const char *key)
{
    cli_json_open(j, key, "{");
}

void cli_json_array(struct cli_json *j, const char *key)
{
    cli_json_open(j, key, "[");
}

void cli_json_close_object(struct cli_json *j)
{
    cli_json_close(j, "}");
}

void cli_json_close_array(struct cli_json *j)
{
    cli_json_close(j, "]");
}

void cli_json_str(struct cli_json *j, const char *key, const char *val)
{
    cli_json_member(j, key);
    cli_json_quote(j->out, val);
}

void cli_json_uint(struct cli_json *j, const char *key, uint64_t val)
{
    cli_json_member(j, key);
    cli_printf(j->out, "%llu", (unsigned long long)val);
}

void cli_json_bool(struct cli_json *j, const char *key, bool val)
{
    cli_json_member(j, key);
    cli_printf(j->out, "%s", val ? "true" : "false");
}

void cli_json_null(struct cli_json *j, const char *key)
{
    cli_json_member(j, key);
    cli_printf(j->out, "null");
}

void cli_json_fixed(struct cli_json *j, const char *key, uint64_t val, unsigned decimals)
{
    uint64_t scale = 1;

    for (unsigned i = 0; i < decimals; i++)
        scale *= 10;
    cli_json_member(j, key);
    if (decimals)
        cli_printf(j->out, "%llu.%0*llu", (unsigned long long)(val / scale), (int)decimals,
                   (unsigned long long)(val % scale));
    else
        cli_printf(j->out, "%llu", (unsigned long long)val);
}
