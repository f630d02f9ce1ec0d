/*
 * gmp.h - what the PMA and the Congestion Control agent share as General
 * Services agents on QP1: status codes, request screening, response header
 * and response addressing.  Not part of the libraries' public interface.
 */
#ifndef PZ_GMP_H
#define PZ_GMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define GMP_DATA_OFFS 64 /* PMA and CC attribute data */
#define GMP_DATA_SIZE (IB_MAD_SIZE - GMP_DATA_OFFS)

/* MAD status values: mad.h (MAD_STATUS_*; the DR D bit is separate). */

/*
 * Screen a received MAD for an agent of mgmt_class: returns the method
 * (without the response bit) of a request the agent must answer, or -1 when
 * the MAD must be dropped silently (short, not an IBA MAD, another class, a
 * response, a Trap or TrapRepress: an agent never answers those).
 */
int gmp_request_method(const uint8_t *mad, size_t len, unsigned mgmt_class);

/* Turn the copy of a request in mad[] into a GetResp carrying status. */
void gmp_make_response(uint8_t *mad, unsigned status);

/*
 * Address the response to a request received as *in: LID-routed back to its
 * source LID and QP, from QP1 with the well-known Q_Key, same P_Key and SL.
 * A switch answers from port 0; a CA from the port the request came in on
 * (port 1 for a request from its local stack).
 */
void gmp_reply_addr(const struct mad_addr *in, const struct board_identity *id,
                    struct mad_addr *out);

/* a + b, sticking at UINT64_MAX instead of wrapping. */
static inline uint64_t gmp_sat_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

/* v clamped to the largest value a width-bit field holds. */
static inline uint64_t gmp_saturate(uint64_t v, unsigned width)
{
    uint64_t max = width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;

    return v > max ? max : v;
}

#endif /* PZ_GMP_H */
