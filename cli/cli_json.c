/*
 * cli_json.c - the JSON writer of `show ... json` (see cli_json.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli_json.h"

/* Write a string as a JSON string literal, escaped. */
static void cli_json_quote(const struct cli_out *out, const char *s)
{
    char esc[8];
    const char *run = s;

    out->write(out->arg, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out->write(out->arg, run, (size_t)(s - run));
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof(esc), "\\%c", c);
        else if (c == '\n')
            snprintf(esc, sizeof(esc), "\\n");
        else if (c == '\t')
            snprintf(esc, sizeof(esc), "\\t");
        else if (c == '\r')
            snprintf(esc, sizeof(esc), "\\r");
        else
            snprintf(esc, sizeof(esc), "\\u%04x", c);
        out->write(out->arg, esc, strlen(esc));
        run = s + 1;
    }
    out->write(out->arg, run, (size_t)(s - run));
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
