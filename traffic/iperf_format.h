/*
 * iperf_format.h - numbers as iperf 2 prints them: an adaptive unit (the
 * largest that keeps the value under 1024 for bytes, 1000 for bits) and
 * three significant digits ("1.86 GBytes", " 131 KBytes", "16.0
 * Gbits/sec").
 */
#ifndef PZ_IPERF_FORMAT_H
#define PZ_IPERF_FORMAT_H

#include <stddef.h>

/* Format a byte count into buf; returns buf. */
const char *iperf_format_bytes(double bytes, char *buf, size_t len);

/* Format a rate in bits per second into buf ("1.06 Mbits/sec"); returns buf. */
const char *iperf_format_rate(double bits_per_s, char *buf, size_t len);

/*
 * Parse a rate as iperf's -b takes it: a number with an optional k, m or g
 * suffix (powers of 1000), e.g. "10M", "2.5g", "500000".  Returns the
 * bits per second, or 0 when it is not one (or below 1 or above 100 Gbit/s).
 */
double iperf_parse_rate(const char *s);

#endif
