/*
 * pzt_fields.h - check many fields of a MAD attribute at once:
 *
 *   PZT_EXPECT_FIELDS(data, {IB_PORT_LID_F, 0x10}, {IB_PORT_SMLID_F, 1});
 *
 * reads each field with libibmad (mad_get_field: fields of up to 32 bits,
 * offsets from data) and fails the test at the caller's line on the first
 * one that differs, naming it (libibmad's name) with the wanted and the
 * read value.  Header-only: cmocka and libibmad come with it.
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

/* PZT_EXPECT_FIELDS(data, {FIELD, VALUE}, ...): pzt_expect_fields on the list given. */
#define PZT_EXPECT_FIELDS(data, ...)                                                               \
    pzt_expect_fields((data), (const struct pzt_field[]){__VA_ARGS__},                             \
                      sizeof((const struct pzt_field[]){__VA_ARGS__}) / sizeof(struct pzt_field),  \
                      __FILE__, __LINE__)

#endif
