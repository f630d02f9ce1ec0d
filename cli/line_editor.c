/*
 * line_editor.c - line editing for interactive CLI sessions.
 *
 * Redraw is one-line: carriage return, prompt, text, erase to the end of
 * the line, cursor moved back; lines longer than the terminal wrap as the
 * terminal wraps them (no multi-row redraw).
 */
#include <stdio.h>
#include <string.h>

#include "line_editor.h"

#define CTRL(c) ((c)&0x1f)

/* Sends text to the terminal. */
static void out(struct line_editor *le, const char *s, size_t len)
{
    if (len)
        le->ops->output(le->ctx, s, len);
}

/* Sends a C string to the terminal. */
static void outs(struct line_editor *le, const char *s)
{
    out(le, s, strlen(s));
}

/* Sets up an empty editor. */
void le_init(struct line_editor *le, const struct le_ops *ops, void *ctx, const char *prompt)
{
    memset(le, 0, sizeof(*le));
    le->ops = ops;
    le->ctx = ctx;
    snprintf(le->prompt, sizeof(le->prompt), "%s", prompt);
}

/* Redraws prompt and line, cursor in place. */
static void redraw(struct line_editor *le)
{
    char back[32];

    outs(le, "\r");
    outs(le, le->prompt);
    out(le, le->line, le->len);
    outs(le, "\x1b[K");
    if (le->len > le->cursor) {
        snprintf(back, sizeof(back), "\x1b[%zuD", le->len - le->cursor);
        outs(le, back);
    }
}

/* Writes the prompt and the line typed so far. */
void le_prompt(struct line_editor *le)
{
    redraw(le);
}

/* Empties the line (and forgets that bytes were dropped from it). */
static void clear_line(struct line_editor *le)
{
    le->len = le->cursor = 0;
    le->line[0] = 0;
    le->overflow = 0;
}

/* Inserts the bytes at the cursor if they fit; rings the bell and remembers the loss if not. */
static void insert(struct line_editor *le, const char *s, size_t n)
{
    if (le->len + n > LE_LINE_MAX) {
        if (!le->overflow)
            outs(le, "\a");
        le->overflow = 1;
        return;
    }
    memmove(le->line + le->cursor + n, le->line + le->cursor, le->len - le->cursor);
    memcpy(le->line + le->cursor, s, n);
    le->len += n;
    le->cursor += n;
    le->line[le->len] = 0;
    if (le->cursor == le->len)
        out(le, s, n); /* typing at the end: plain echo */
    else
        redraw(le);
}

/* Deletes n bytes before the cursor. */
static void delete_back(struct line_editor *le, size_t n)
{
    if (n > le->cursor)
        n = le->cursor;
    if (!n)
        return;
    memmove(le->line + le->cursor - n, le->line + le->cursor, le->len - le->cursor);
    le->cursor -= n;
    le->len -= n;
    le->line[le->len] = 0;
    if (!le->len)
        le->overflow = 0; /* erased to the prompt: a fresh line */
    redraw(le);
}

/* Replaces the whole line. */
static void set_line(struct line_editor *le, const char *s)
{
    snprintf(le->line, sizeof(le->line), "%s", s);
    le->len = le->cursor = strlen(le->line);
    redraw(le);
}

/* The history entry back entries before the newest (1 = newest). */
static const char *history_entry(const struct line_editor *le, unsigned back)
{
    return le->history[(le->hist_next + LE_HISTORY - back) % LE_HISTORY];
}

/* Up (older) or down (newer) in the history. */
static void history_move(struct line_editor *le, int older)
{
    if (older && le->hist_pos < le->hist_count) {
        if (le->hist_pos == 0)
            memcpy(le->saved, le->line, sizeof(le->saved));
        le->hist_pos++;
        set_line(le, history_entry(le, le->hist_pos));
    } else if (!older && le->hist_pos > 0) {
        le->hist_pos--;
        set_line(le, le->hist_pos ? history_entry(le, le->hist_pos) : le->saved);
    }
}

/* Adds a non-empty line to the history unless it repeats the newest. */
static void history_add(struct line_editor *le, const char *line)
{
    if (!*line || (le->hist_count && strcmp(history_entry(le, 1), line) == 0))
        return;
    snprintf(le->history[le->hist_next], LE_LINE_MAX + 1, "%s", line);
    le->hist_next = (le->hist_next + 1) % LE_HISTORY;
    if (le->hist_count < LE_HISTORY)
        le->hist_count++;
}

/* Length of the common prefix of the candidates. */
static size_t common_prefix(const char **cands, size_t n)
{
    size_t len = strlen(cands[0]), i, k;

    for (i = 1; i < n; i++) {
        for (k = 0; k < len && cands[i][k] == cands[0][k]; k++)
            ;
        len = k;
    }
    return len;
}

/* Tab: completes the word before the cursor, or lists the candidates. */
static void complete(struct line_editor *le)
{
    const char *cands[LE_COMPLETIONS];
    size_t n, word, common, i;

    if (!le->ops->complete)
        return;
    n = le->ops->complete(le->ctx, le->line, le->cursor, cands, LE_COMPLETIONS);
    if (n == 0)
        return;
    if (n > LE_COMPLETIONS)
        n = LE_COMPLETIONS;
    word = le->cursor;
    while (word > 0 && le->line[word - 1] != ' ')
        word--;
    common = common_prefix(cands, n);
    if (common > le->cursor - word) {
        insert(le, cands[0] + (le->cursor - word), common - (le->cursor - word));
        if (n == 1)
            insert(le, " ", 1);
        return;
    }
    if (n == 1)
        return;
    outs(le, "\r\n");
    for (i = 0; i < n; i++) {
        outs(le, cands[i]);
        outs(le, i + 1 < n ? "  " : "\r\n");
    }
    redraw(le);
}

/* Handles the final byte of an escape sequence (ESC [ x or ESC O x). */
static void escape_key(struct line_editor *le, char c)
{
    switch (c) {
    case 'A':
        history_move(le, 1);
        break;
    case 'B':
        history_move(le, 0);
        break;
    case 'C':
        if (le->cursor < le->len) {
            le->cursor++;
            outs(le, "\x1b[C");
        }
        break;
    case 'D':
        if (le->cursor > 0) {
            le->cursor--;
            outs(le, "\x1b[D");
        }
        break;
    case 'H':
        le->cursor = 0;
        redraw(le);
        break;
    case 'F':
        le->cursor = le->len;
        redraw(le);
        break;
    default:
        break;
    }
}

/* Feeds one byte; returns LE_LINE or LE_EOF when that byte ends the line. */
static enum le_result feed(struct line_editor *le, char c)
{
    char prev = le->last_char;

    le->last_char = c;
    if (le->esc == 1) {
        le->esc = (c == '[' || c == 'O') ? 2 : 0;
        return LE_MORE;
    }
    if (le->esc == 2) {
        if (c >= '0' && c <= '9')
            return LE_MORE; /* parameters of e.g. ESC [ 3 ~ */
        le->esc = 0;
        escape_key(le, c);
        return LE_MORE;
    }
    switch (c) {
    case '\r':
        return LE_LINE;
    case '\n':
        return prev == '\r' ? LE_MORE : LE_LINE; /* CR LF is one Enter */
    case 0x1b:
        le->esc = 1;
        return LE_MORE;
    case 0x7f:
    case CTRL('H'):
        delete_back(le, 1);
        return LE_MORE;
    case CTRL('A'):
        le->cursor = 0;
        redraw(le);
        return LE_MORE;
    case CTRL('E'):
        le->cursor = le->len;
        redraw(le);
        return LE_MORE;
    case CTRL('U'):
        delete_back(le, le->cursor);
        return LE_MORE;
    case CTRL('K'):
        le->len = le->cursor;
        le->line[le->len] = 0;
        redraw(le);
        return LE_MORE;
    case CTRL('C'):
        outs(le, "^C\r\n");
        clear_line(le);
        redraw(le);
        return LE_MORE;
    case CTRL('D'):
        return le->len == 0 ? LE_EOF : LE_MORE;
    case '\t':
        complete(le);
        return LE_MORE;
    default:
        if ((unsigned char)c >= 0x20)
            insert(le, &c, 1);
        return LE_MORE;
    }
}

/* Feeds typed bytes until a line completes or they run out. */
enum le_result le_input(struct line_editor *le, const uint8_t *buf, size_t len, size_t *used,
                        char *outbuf, size_t cap)
{
    enum le_result r = LE_MORE;
    size_t i;

    for (i = 0; i < len && r == LE_MORE; i++)
        r = feed(le, (char)buf[i]);
    *used = i;
    if (r == LE_LINE && le->overflow) {
        char msg[96];

        snprintf(msg, sizeof(msg), "\r\n%% line too long (at most %d characters): not run\r\n",
                 LE_LINE_MAX);
        outs(le, msg);
        clear_line(le);
        le->hist_pos = 0;
        redraw(le);
        return LE_MORE;
    }
    if (r == LE_LINE) {
        outs(le, "\r\n");
        snprintf(outbuf, cap, "%s", le->line);
        history_add(le, le->line);
        clear_line(le);
        le->hist_pos = 0;
    }
    return r;
}
