/*
 * pzt_same.h - check that many members of two structs are equal at once:
 *
 *   PZT_EXPECT_SAME(back, sent, flags, bytes, lost);
 *
 * compares each named integer member of got and want (as 64-bit values, as
 * assert_int_equal does) and fails the test at the caller's line on the first
 * one that differs, naming the member with the wanted and the got value.
 * Up to 16 members a call.  Header-only: cmocka comes with it.
 */
#ifndef PZ_TEST_PZT_SAME_H
#define PZ_TEST_PZT_SAME_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pzt_main.h"

/* One member's name and its value in got and in want. */
struct pzt_same {
    const char *name;
    uint64_t got, want;
};

/* The struct pzt_same of one member. */
static inline struct pzt_same pzt_same_of(const char *name, uint64_t got, uint64_t want)
{
    return (struct pzt_same){name, got, want};
}

/* Check the n pairs; on the first that differs print it and fail at file:line. */
static inline void pzt_expect_same(const struct pzt_same *l, size_t n, const char *file, int line)
{
    for (size_t i = 0; i < n; i++) {
        if (l[i].got != l[i].want) {
            print_error("%s: want %llu (0x%llx), got %llu (0x%llx)\n", l[i].name,
                        (unsigned long long)l[i].want, (unsigned long long)l[i].want,
                        (unsigned long long)l[i].got, (unsigned long long)l[i].got);
            _fail(file, line);
        }
    }
}

/* PZT_SAME_n(got, want, member, ...): the n members as struct pzt_same, comma-separated. */
#define PZT_SAME_1(g, w, m) pzt_same_of(#m, (uint64_t)(g).m, (uint64_t)(w).m)
#define PZT_SAME_2(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_1(g, w, __VA_ARGS__)
#define PZT_SAME_3(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_2(g, w, __VA_ARGS__)
#define PZT_SAME_4(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_3(g, w, __VA_ARGS__)
#define PZT_SAME_5(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_4(g, w, __VA_ARGS__)
#define PZT_SAME_6(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_5(g, w, __VA_ARGS__)
#define PZT_SAME_7(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_6(g, w, __VA_ARGS__)
#define PZT_SAME_8(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_7(g, w, __VA_ARGS__)
#define PZT_SAME_9(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_8(g, w, __VA_ARGS__)
#define PZT_SAME_10(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_9(g, w, __VA_ARGS__)
#define PZT_SAME_11(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_10(g, w, __VA_ARGS__)
#define PZT_SAME_12(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_11(g, w, __VA_ARGS__)
#define PZT_SAME_13(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_12(g, w, __VA_ARGS__)
#define PZT_SAME_14(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_13(g, w, __VA_ARGS__)
#define PZT_SAME_15(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_14(g, w, __VA_ARGS__)
#define PZT_SAME_16(g, w, m, ...) PZT_SAME_1(g, w, m), PZT_SAME_15(g, w, __VA_ARGS__)
#define PZT_SAME_JOIN(n) PZT_SAME_##n
#define PZT_SAME_OF(n) PZT_SAME_JOIN(n)

/* PZT_EXPECT_SAME(got, want, member, ...): pzt_expect_same on the members named. */
#define PZT_EXPECT_SAME(got, want, ...)                                                            \
    pzt_expect_same(                                                                               \
        (const struct pzt_same[]){PZT_SAME_OF(PZT_COUNT(__VA_ARGS__))(got, want, __VA_ARGS__)},    \
        PZT_COUNT(__VA_ARGS__), __FILE__, __LINE__)

#endif
