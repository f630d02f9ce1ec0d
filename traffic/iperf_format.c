/*
 * iperf_format.c - iperf's number formats (see iperf_format.h).
 */
#include "iperf_format.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* Print value with three significant digits and a unit (value < 1000 or 1024). */
static const char *format_scaled(double value, const char *unit, char *buf, size_t len)
{
    const char *fmt = value < 9.995 ? "%4.2f %s" : value < 99.95 ? "%4.1f %s" : "%4.0f %s";

    snprintf(buf, len, fmt, value, unit);
    return buf;
}

const char *iperf_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
    unsigned u = 0;

    while (bytes >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
        bytes /= 1024.0;
        u++;
    }
    return format_scaled(bytes, units[u], buf, len);
}

const char *iperf_format_rate(double bits_per_s, char *buf, size_t len)
{
    static const char *const units[] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec",
                                        "Tbits/sec"};
    unsigned u = 0;

    while (bits_per_s >= 1000.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
        bits_per_s /= 1000.0;
        u++;
    }
    return format_scaled(bits_per_s, units[u], buf, len);
}

double iperf_parse_rate(const char *s)
{
    char *end;
    double v;

    if (!isdigit((unsigned char)*s))
        return 0;
    v = strtod(s, &end);
    switch (tolower((unsigned char)*end)) {
    case 'k':
        v *= 1e3;
        end++;
        break;
    case 'm':
        v *= 1e6;
        end++;
        break;
    case 'g':
        v *= 1e9;
        end++;
        break;
    default:
        break;
    }
    if (*end || !(v >= 1.0) || v > 100e9)
        return 0;
    return v;
}
