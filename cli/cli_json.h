/*
 * cli_json.h - a tiny JSON writer for `show ... json`: one object per
 * command, written straight to the CLI's sink.
 *
 * Written here rather than taken from a library: no JSON library is a
 * dependency of the project, and the CLI only writes flat objects and arrays
 * of them (numbers, strings, booleans, null), which needs a page of code.
 * Strings are escaped as RFC 8259 requires (quote, backslash, control
 * characters as \uXXXX; bytes >= 0x80 pass through as UTF-8).
 */
#ifndef PZ_CLI_JSON_H
#define PZ_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

#define CLI_JSON_MAX_DEPTH 8

/* A JSON document being written. */
struct cli_json {
    const struct cli_out *out;
    unsigned depth;
    bool first[CLI_JSON_MAX_DEPTH]; /* no member written yet at this depth */
};

/* Start the document: its outer object. */
void cli_json_begin(struct cli_json *j, const struct cli_out *out);

/* Close the outer object and end the line. */
void cli_json_end(struct cli_json *j);

/* Open a nested object or array; key NULL inside an array. */
void cli_json_object(struct cli_json *j, const char *key);
void cli_json_array(struct cli_json *j, const char *key);

/* Close the innermost object or array. */
void cli_json_close_object(struct cli_json *j);
void cli_json_close_array(struct cli_json *j);

/* Members (key NULL inside an array). */
void cli_json_str(struct cli_json *j, const char *key, const char *val);
void cli_json_uint(struct cli_json *j, const char *key, uint64_t val);
void cli_json_bool(struct cli_json *j, const char *key, bool val);
void cli_json_null(struct cli_json *j, const char *key);

/* A number with a fixed number of decimals (val / 10^decimals, e.g. 24.9). */
void cli_json_fixed(struct cli_json *j, const char *key, uint64_t val, unsigned decimals);

#endif
