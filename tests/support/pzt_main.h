/*
 * pzt_main.h - the main() of a cmocka test program, written once.
 *
 * PZT_MAIN(test_a, test_b, ...) defines main(): it runs the named test
 * functions (each as cmocka_unit_test(name), so cmocka reports it by name),
 * in that order, as one cmocka group and returns cmocka's status (the number
 * of tests that failed, 0 when all passed).  Up to 32 tests a program.
 * PZT_MAIN_SETUP(setup, teardown, test_a, ...) runs each between the two
 * (cmocka_unit_test_setup_teardown).
 */
#ifndef PZ_TEST_PZT_MAIN_H
#define PZ_TEST_PZT_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* PZT_TEST(setup, teardown, name): one test between setup and teardown (both NULL: none). */
#define PZT_TEST(s, d, t) cmocka_unit_test_setup_teardown(t, s, d)

/* PZT_TESTS_n(setup, teardown, name, ...): the n names, each as PZT_TEST, comma-separated. */
#define PZT_TESTS_1(s, d, t) PZT_TEST(s, d, t)
#define PZT_TESTS_2(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_1(s, d, __VA_ARGS__)
#define PZT_TESTS_3(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_2(s, d, __VA_ARGS__)
#define PZT_TESTS_4(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_3(s, d, __VA_ARGS__)
#define PZT_TESTS_5(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_4(s, d, __VA_ARGS__)
#define PZT_TESTS_6(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_5(s, d, __VA_ARGS__)
#define PZT_TESTS_7(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_6(s, d, __VA_ARGS__)
#define PZT_TESTS_8(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_7(s, d, __VA_ARGS__)
#define PZT_TESTS_9(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_8(s, d, __VA_ARGS__)
#define PZT_TESTS_10(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_9(s, d, __VA_ARGS__)
#define PZT_TESTS_11(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_10(s, d, __VA_ARGS__)
#define PZT_TESTS_12(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_11(s, d, __VA_ARGS__)
#define PZT_TESTS_13(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_12(s, d, __VA_ARGS__)
#define PZT_TESTS_14(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_13(s, d, __VA_ARGS__)
#define PZT_TESTS_15(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_14(s, d, __VA_ARGS__)
#define PZT_TESTS_16(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_15(s, d, __VA_ARGS__)
#define PZT_TESTS_17(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_16(s, d, __VA_ARGS__)
#define PZT_TESTS_18(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_17(s, d, __VA_ARGS__)
#define PZT_TESTS_19(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_18(s, d, __VA_ARGS__)
#define PZT_TESTS_20(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_19(s, d, __VA_ARGS__)
#define PZT_TESTS_21(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_20(s, d, __VA_ARGS__)
#define PZT_TESTS_22(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_21(s, d, __VA_ARGS__)
#define PZT_TESTS_23(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_22(s, d, __VA_ARGS__)
#define PZT_TESTS_24(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_23(s, d, __VA_ARGS__)
#define PZT_TESTS_25(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_24(s, d, __VA_ARGS__)
#define PZT_TESTS_26(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_25(s, d, __VA_ARGS__)
#define PZT_TESTS_27(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_26(s, d, __VA_ARGS__)
#define PZT_TESTS_28(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_27(s, d, __VA_ARGS__)
#define PZT_TESTS_29(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_28(s, d, __VA_ARGS__)
#define PZT_TESTS_30(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_29(s, d, __VA_ARGS__)
#define PZT_TESTS_31(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_30(s, d, __VA_ARGS__)
#define PZT_TESTS_32(s, d, t, ...) PZT_TEST(s, d, t), PZT_TESTS_31(s, d, __VA_ARGS__)

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

/* PZT_MAIN_SETUP(setup, teardown, name, ...): every test between setup and teardown. */
#define PZT_MAIN_SETUP(setup, teardown, ...)                                                       \
    int main(void)                                                                                 \
    {                                                                                              \
        const struct CMUnitTest tests[] = {                                                        \
            PZT_TESTS_OF(PZT_COUNT(__VA_ARGS__))(setup, teardown, __VA_ARGS__)};                   \
        return cmocka_run_group_tests(tests, NULL, NULL);                                          \
    }

/* PZT_MAIN(name, ...): every test without set-up (cmocka_unit_test). */
#define PZT_MAIN(...) PZT_MAIN_SETUP(NULL, NULL, __VA_ARGS__)

#endif
