/*
 * route_report.h - a route check's result for people (text) and programs
 * (JSON), written to a stdio stream: pz-routecheck prints to stdout, the
 * CLI into a memory stream.
 */
#ifndef PZ_ROUTE_REPORT_H
#define PZ_ROUTE_REPORT_H

#include <stdio.h>

#include "route_check.h"

/* Seconds spent reading the tables and checking (negative: not shown). */
struct rc_timing {
    double read_s, check_s;
};

/*
 * The readable report: counts, every kept unrouted route as
 * "src (LID a) -> dst (LID b): reason at X (LID c) port p", the loops, and
 * whether the channel dependency graph has a cycle, with one listed.
 */
void rc_report_text(FILE *out, const struct rc_fabric *f, const struct rc_result *r,
                    const struct rc_timing *t);

/* The same as one JSON object (keys in tools/README.md). */
void rc_report_json(FILE *out, const struct rc_fabric *f, const struct rc_result *r,
                    const struct rc_timing *t);

/* Whether the result has findings (unrouted routes, loops or a cycle). */
bool rc_result_has_findings(const struct rc_result *r);

#endif
