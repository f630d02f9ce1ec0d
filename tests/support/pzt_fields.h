/*
 * pzt_fields.h - check many fields of a MAD attribute at once:
 *
 *   PZT_EXPECT_FIELDS(data, {IB_PORT_LID_F, 0x10}, {IB_PORT_SMLID_F, 1});
 *
 * reads each field with libibmad (mad_get_field: fields of up to 32 bits,
 * offsets from data) and fails the test at the caller's line on the first
 * one that differs, naming it (libibmad's name) with the wanted and the
 * read value; PZT_SET_FIELDS(data, {FIELD, VALUE}, ...) writes such a list
 * (mad_set_field), in order.  Header-only: cmocka and libibmad come with it.
 */
#ifndef PZ_TEST_PZT_FIELDS_H
#define PZ_TEST_PZT_FIELDS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <infiniband/mad.h>

/* One field of an attribute and the value a test wants in it. */
struct pzt_field {
    enum MAD_FIELDS f;
    uint64_t v;
};

/*
 * Check the n wanted fields of data; on the first mismatch print the field,
 * the wanted and the read value and fail the test at file:line.
 */
static inline void pzt_expect_fields(const uint8_t *data, const struct pzt_field *want, size_t n,
                                     const char *file, int line)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t got = mad_get_field((void *)data, 0, want[i].f);

        if (got != want[i].v) {
            print_error("%s: want %llu (0x%llx), got %llu (0x%llx)\n", mad_field_name(want[i].f),
                        (unsigned long long)want[i].v, (unsigned long long)want[i].v,
                        (unsigned long long)got, (unsigned long long)got);
            _fail(file, line);
        }
    }
}

/* Write the n fields of the list into data, in order. */
static inline void pzt_set_fields(uint8_t *data, const struct pzt_field *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mad_set_field(data, 0, list[i].f, (uint32_t)list[i].v);
}

/* PZT_FIELDS(...): the {FIELD, VALUE} list given and its length, as two arguments. */
#define PZT_FIELDS(...)                                                                            \
    (const struct pzt_field[]){__VA_ARGS__},                                                       \
        sizeof((const struct pzt_field[]){__VA_ARGS__}) / sizeof(struct pzt_field)

/* PZT_SET_FIELDS(data, {FIELD, VALUE}, ...): pzt_set_fields with the list given. */
#define PZT_SET_FIELDS(data, ...) pzt_set_fields((data), PZT_FIELDS(__VA_ARGS__))

/* PZT_EXPECT_FIELDS(data, {FIELD, VALUE}, ...): pzt_expect_fields on the list given. */
#define PZT_EXPECT_FIELDS(data, ...)                                                               \
    pzt_expect_fields((data), PZT_FIELDS(__VA_ARGS__), __FILE__, __LINE__)

#endif
