/*
 * fuzz_input.c - a cursor over a fuzzer's input (fuzz_input.h).
 */
#include "fuzz_input.h"

#include "board_mem.h"

uint8_t fuzz_byte(struct fuzz_in *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

uint64_t fuzz_u64(struct fuzz_in *in)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)fuzz_byte(in) << (8 * i);
    return v;
}

uint8_t fuzz_identity_base(struct fuzz_in *in, struct board_identity *id)
{
    uint8_t shape = fuzz_byte(in);
    unsigned ports = 1 + fuzz_byte(in) % 64;

    if (shape & 1)
        board_mem_default_ca_identity(id, 0x1000, ports > 4 ? 2 : ports);
    else
        board_mem_default_switch_identity(id, 0x2000, ports);
    id->enhanced_port0 = shape & 2;
    return shape;
}
