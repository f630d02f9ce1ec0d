/*
 * pzt_main.h - the main() of a cmocka test program, written once.
 *
 * PZT_MAIN(test_a, test_b, ...) defines main(): it runs the named test
 * functions (each as cmocka_unit_test(name), so cmocka reports it by name),
 * in that order, as one cmocka group and returns cmocka's status (the number
 * of tests that failed, 0 when all passed).  Up to 32 tests a program; a
 * program whose tests need set-up functions writes its own main().
 */
#ifndef PZ_TEST_PZT_MAIN_H
#define PZ_TEST_PZT_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* PZT_TESTS_n(name, ...): the n names, each as cmocka_unit_test(name), comma-separated. */
#define PZT_TESTS_1(t) cmocka_unit_test(t)
#define PZT_TESTS_2(t, ...) cmocka_unit_test(t), PZT_TESTS_1(__VA_ARGS__)
#define PZT_TESTS_3(t, ...) cmocka_unit_test(t), PZT_TESTS_2(__VA_ARGS__)
#define PZT_TESTS_4(t, ...) cmocka_unit_test(t), PZT_TESTS_3(__VA_ARGS__)
#define PZT_TESTS_5(t, ...) cmocka_unit_test(t), PZT_TESTS_4(__VA_ARGS__)
#define PZT_TESTS_6(t, ...) cmocka_unit_test(t), PZT_TESTS_5(__VA_ARGS__)
#define PZT_TESTS_7(t, ...) cmocka_unit_test(t), PZT_TESTS_6(__VA_ARGS__)
#define PZT_TESTS_8(t, ...) cmocka_unit_test(t), PZT_TESTS_7(__VA_ARGS__)
#define PZT_TESTS_9(t, ...) cmocka_unit_test(t), PZT_TESTS_8(__VA_ARGS__)
#define PZT_TESTS_10(t, ...) cmocka_unit_test(t), PZT_TESTS_9(__VA_ARGS__)
#define PZT_TESTS_11(t, ...) cmocka_unit_test(t), PZT_TESTS_10(__VA_ARGS__)
#define PZT_TESTS_12(t, ...) cmocka_unit_test(t), PZT_TESTS_11(__VA_ARGS__)
#define PZT_TESTS_13(t, ...) cmocka_unit_test(t), PZT_TESTS_12(__VA_ARGS__)
#define PZT_TESTS_14(t, ...) cmocka_unit_test(t), PZT_TESTS_13(__VA_ARGS__)
#define PZT_TESTS_15(t, ...) cmocka_unit_test(t), PZT_TESTS_14(__VA_ARGS__)
#define PZT_TESTS_16(t, ...) cmocka_unit_test(t), PZT_TESTS_15(__VA_ARGS__)
#define PZT_TESTS_17(t, ...) cmocka_unit_test(t), PZT_TESTS_16(__VA_ARGS__)
#define PZT_TESTS_18(t, ...) cmocka_unit_test(t), PZT_TESTS_17(__VA_ARGS__)
#define PZT_TESTS_19(t, ...) cmocka_unit_test(t), PZT_TESTS_18(__VA_ARGS__)
#define PZT_TESTS_20(t, ...) cmocka_unit_test(t), PZT_TESTS_19(__VA_ARGS__)
#define PZT_TESTS_21(t, ...) cmocka_unit_test(t), PZT_TESTS_20(__VA_ARGS__)
#define PZT_TESTS_22(t, ...) cmocka_unit_test(t), PZT_TESTS_21(__VA_ARGS__)
#define PZT_TESTS_23(t, ...) cmocka_unit_test(t), PZT_TESTS_22(__VA_ARGS__)
#define PZT_TESTS_24(t, ...) cmocka_unit_test(t), PZT_TESTS_23(__VA_ARGS__)
#define PZT_TESTS_25(t, ...) cmocka_unit_test(t), PZT_TESTS_24(__VA_ARGS__)
#define PZT_TESTS_26(t, ...) cmocka_unit_test(t), PZT_TESTS_25(__VA_ARGS__)
#define PZT_TESTS_27(t, ...) cmocka_unit_test(t), PZT_TESTS_26(__VA_ARGS__)
#define PZT_TESTS_28(t, ...) cmocka_unit_test(t), PZT_TESTS_27(__VA_ARGS__)
#define PZT_TESTS_29(t, ...) cmocka_unit_test(t), PZT_TESTS_28(__VA_ARGS__)
#define PZT_TESTS_30(t, ...) cmocka_unit_test(t), PZT_TESTS_29(__VA_ARGS__)
#define PZT_TESTS_31(t, ...) cmocka_unit_test(t), PZT_TESTS_30(__VA_ARGS__)
#define PZT_TESTS_32(t, ...) cmocka_unit_test(t), PZT_TESTS_31(__VA_ARGS__)

/* PZT_COUNT(name, ...): how many names (1 to 32). */
#define PZT_COUNT(...)                                                                             \
    PZT_COUNT_AT(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16,  \
                 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define PZT_COUNT_AT(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17,   \
                     _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, n, \
                     ...)                                                                          \
    n
#define PZT_TESTS_JOIN(n) PZT_TESTS_##n
#define PZT_TESTS_OF(n) PZT_TESTS_JOIN(n)

#define PZT_MAIN(...)                                                                              \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests[] = {PZT_TESTS_OF(PZT_COUNT(__VA_ARGS__))(__VA_ARGS__)};     \
        return cmocka_run_group_tests(tests, NULL, NULL);                                          \
    }

#endif
