/*
 * cli_log.c - `show log [LINES] [json]`: the agent's most recent log lines
 * (the agent's in-memory ring, read through cli_env's log_recent), oldest first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_internal.h"
#include "cli_json.h"

/* A log time (ms, CLOCK_REALTIME) as "YYYY-MM-DD HH:MM:SS.mmm" UTC into buf[32]; returns buf. */
static const char *cli_log_time(int64_t ms, char buf[32])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    size_t n;

    gmtime_r(&t, &tm);
    n = strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf + n, 32 - n, ".%03u", (unsigned)(ms % 1000));
    return buf;
}

int cli_cmd_show_log(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                     struct cli_job **job)
{
    struct cli_log_line *lines;
    unsigned want = CLI_LOG_LINES;
    bool json;
    struct cli_args r = cli_strip_json(a, &json);
    struct cli_json j;
    char when[32];
    size_t n;

    (void)job;
    if (r.argc > 1 || (r.argc == 1 && cli_parse_uint(r.argv[0], 1, CLI_LOG_LINES, &want))) {
        cli_printf(out, "%% usage: show log [LINES (1..%u)] [json]\n", CLI_LOG_LINES);
        return CLI_USAGE;
    }
    lines = malloc(sizeof(*lines) * want);
    if (!lines) {
        cli_printf(out, "%% out of memory\n");
        return CLI_FAILED;
    }
    n = env->log_recent ? env->log_recent(lines, want) : 0;
    if (json) {
        cli_json_begin(&j, out);
        cli_json_array(&j, "log");
    }
    for (size_t i = 0; i < n; i++) {
        cli_log_time(lines[i].time_ms, when);
        if (!json) {
            cli_printf(out, "%s %-5s %s\n", when, lines[i].level, lines[i].text);
            continue;
        }
        cli_json_object(&j, NULL);
        cli_json_str(&j, "time", when);
        cli_json_str(&j, "level", lines[i].level);
        cli_json_str(&j, "text", lines[i].text);
        cli_json_close_object(&j);
    }
    if (json) {
        cli_json_close_array(&j);
        cli_json_end(&j);
    }
    free(lines);
    return CLI_OK;
}
