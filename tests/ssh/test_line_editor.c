/*
 * test_line_editor.c - the CLI's line editor (cli/line_editor.c): typing,
 * backspace, cursor movement and insertion, Ctrl-A/E/U/K/C, CR LF as one
 * Enter, history with the arrow keys, tab completion (unique, common prefix,
 * list), Ctrl-D on an empty line, an overlong line refused (never run cut off).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "line_editor.h"
#include "pzt_main.h"

struct term {
    char out[8192];
    size_t len;
};

/* Terminal output capture. */
static void term_out(void *ctx, const char *buf, size_t len)
{
    struct term *t = ctx;

    if (len > sizeof(t->out) - 1 - t->len)
        len = sizeof(t->out) - 1 - t->len;
    memcpy(t->out + t->len, buf, len);
    t->len += len;
    t->out[t->len] = 0;
}

/* Completion over a few words. */
static size_t complete(void *ctx, const char *line, size_t len, const char **cands, size_t max)
{
    static const char *const words[] = {"show", "shutdown", "ping", "help", NULL};
    size_t n = 0, i;

    (void)ctx;
    for (i = 0; words[i] && n < max; i++)
        if (strncmp(words[i], line, len) == 0)
            cands[n++] = words[i];
    return n;
}

static const struct le_ops ops = {term_out, complete};

/* Feeds s; expects exactly one line result want (or LE_MORE) and returns the line. */
static enum le_result feed(struct line_editor *le, const char *s, char *line)
{
    size_t used = 0, off = 0, len = strlen(s);
    enum le_result r = LE_MORE;

    line[0] = 0;
    while (off < len) {
        r = le_input(le, (const uint8_t *)s + off, len - off, &used, line, LE_LINE_MAX + 1);
        off += used;
        if (r != LE_MORE)
            break;
    }
    assert_int_equal(off, len);
    return r;
}

static void test_editing(void **state)
{
    struct term t = {0};
    struct line_editor le;
    char line[LE_LINE_MAX + 1];

    (void)state;
    le_init(&le, &ops, &t, "> ");
    le_prompt(&le);
    assert_non_null(strstr(t.out, "> "));
    assert_int_equal(feed(&le, "helo\x7flo\r", line), LE_LINE);
    assert_string_equal(line, "hello");
    /* left arrow twice, insert, Ctrl-E, append */
    assert_int_equal(feed(&le, "ac\x1b[D\x1b[Db\x05!\r", line), LE_LINE);
    assert_string_equal(line, "bac!");
    assert_int_equal(feed(&le, "\n", line), LE_MORE);         /* CR LF: one Enter */
    assert_int_equal(feed(&le, "xyz\x01>\r", line), LE_LINE); /* Ctrl-A: insert at start */
    assert_string_equal(line, ">xyz");
    assert_int_equal(feed(&le,
                          "abc\x15"
                          "def\n",
                          line),
                     LE_LINE); /* Ctrl-U kills */
    assert_string_equal(line, "def");
    assert_int_equal(feed(&le, "abcd\x1b[D\x1b[D\x0b\r", line), LE_LINE); /* Ctrl-K */
    assert_string_equal(line, "ab");
    assert_int_equal(feed(&le, "junk\x03ok\r", line), LE_LINE); /* Ctrl-C drops */
    assert_string_equal(line, "ok");
    assert_int_equal(feed(&le, "\x04", line), LE_EOF);
}

static void test_history(void **state)
{
    struct term t = {0};
    struct line_editor le;
    char line[LE_LINE_MAX + 1];

    (void)state;
    le_init(&le, &ops, &t, "> ");
    feed(&le, "first\r", line);
    feed(&le, "second\r", line);
    feed(&le, "second\r", line); /* repeated: stored once */
    assert_int_equal(feed(&le, "\x1b[A\r", line), LE_LINE);
    assert_string_equal(line, "second");
    assert_int_equal(feed(&le, "\x1b[A\x1b[A\r", line), LE_LINE);
    assert_string_equal(line, "first");
    /* up then down returns to the line being typed */
    assert_int_equal(feed(&le, "par\x1b[A\x1b[Btial\r", line), LE_LINE);
    assert_string_equal(line, "partial");
    /* more history than the ring holds: the oldest go */
    for (int i = 0; i < LE_HISTORY + 5; i++) {
        char cmd[16];

        snprintf(cmd, sizeof(cmd), "c%d\r", i);
        feed(&le, cmd, line);
    }
    for (int i = 0; i < LE_HISTORY + 3; i++)
        feed(&le, "\x1b[A", line);
    assert_int_equal(feed(&le, "\r", line), LE_LINE);
    assert_string_equal(line, "c5");
}

static void test_completion(void **state)
{
    struct term t = {0};
    struct line_editor le;
    char line[LE_LINE_MAX + 1];

    (void)state;
    le_init(&le, &ops, &t, "> ");
    assert_int_equal(feed(&le, "pi\t\r", line), LE_LINE);
    assert_string_equal(line, "ping "); /* unique: word and a space */
    assert_int_equal(feed(&le, "s\tow\r", line), LE_LINE);
    assert_string_equal(line, "show"); /* common prefix "sh" */
    t.len = 0;
    assert_int_equal(feed(&le, "sh\t", line), LE_MORE); /* ambiguous: the list */
    assert_non_null(strstr(t.out, "show  shutdown"));
    assert_int_equal(feed(&le, "\r", line), LE_LINE);
    assert_string_equal(line, "sh");
    assert_int_equal(feed(&le, "zz\t\r", line), LE_LINE);
    assert_string_equal(line, "zz");
}

static void test_long_line(void **state)
{
    struct term t = {0};
    struct line_editor le;
    char line[LE_LINE_MAX + 1], big[LE_LINE_MAX * 2 + 2];

    (void)state;
    le_init(&le, &ops, &t, "> ");
    memset(big, 'a', LE_LINE_MAX * 2);
    big[LE_LINE_MAX * 2] = '\r';
    big[LE_LINE_MAX * 2 + 1] = 0;
    /* The bytes beyond LE_LINE_MAX are dropped with one bell, and Enter refuses the
     * cut-off line instead of running it. */
    assert_int_equal(feed(&le, big, line), LE_MORE);
    assert_string_equal(line, "");
    assert_non_null(strstr(t.out, "line too long"));
    assert_ptr_equal(strchr(t.out, '\a'), strrchr(t.out, '\a'));
    /* A line of exactly LE_LINE_MAX runs, and so does the next one. */
    big[LE_LINE_MAX] = '\r';
    big[LE_LINE_MAX + 1] = 0;
    assert_int_equal(feed(&le, big, line), LE_LINE);
    assert_int_equal(strlen(line), LE_LINE_MAX);
    assert_int_equal(feed(&le, "help\r", line), LE_LINE);
    assert_string_equal(line, "help");
}

PZT_MAIN(test_editing, test_history, test_completion, test_long_line)
