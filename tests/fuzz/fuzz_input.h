/*
 * fuzz_input.h - a cursor over a fuzzer's input, shared by the fuzz targets
 * that read their input as a header and a stream of operations.
 */
#ifndef PZ_FUZZ_INPUT_H
#define PZ_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

/* A cursor over the fuzzer's input. */
struct fuzz_in {
    const uint8_t *p;
    size_t left;
};

/* Take one byte (0 when exhausted). */
uint8_t fuzz_byte(struct fuzz_in *in);

/* Take a little-endian 64-bit value (missing bytes are 0). */
uint64_t fuzz_u64(struct fuzz_in *in);

/*
 * Build a default switch or CA identity from two header bytes (shape, number of
 * ports); shape bit 0 picks a CA, bit 1 enhanced port 0.  Returns the shape byte,
 * whose other bits the caller may use.
 */
uint8_t fuzz_identity_base(struct fuzz_in *in, struct board_identity *id);

#endif
