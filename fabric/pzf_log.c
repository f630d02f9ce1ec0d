/*
 * pzf_log.c - pzfabric's messages on stderr.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pzf_log.h"

void pzf_log(int verbose, enum pzf_log_level level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if ((int)level > verbose)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "pzfabric: %s\n", msg);
}
