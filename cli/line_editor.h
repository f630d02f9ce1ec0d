/*
 * line_editor.h - a terminal line editor for the CLI's interactive
 * sessions: insert and delete at the cursor, cursor and word movement, a
 * history ring recalled with the arrow keys, and a tab-completion hook.  It
 * reads the bytes a terminal sends (VT100/xterm keys) and writes the echo and
 * redraw sequences through a callback; no I/O of its own, so the SSH shell
 * (or a serial console) drives it.
 */
#ifndef PZ_LINE_EDITOR_H
#define PZ_LINE_EDITOR_H

#include <stddef.h>
#include <stdint.h>

#define LE_LINE_MAX 256
#define LE_HISTORY 32
#define LE_COMPLETIONS 32

struct le_ops {
    /* Terminal output. */
    void (*output)(void *ctx, const char *buf, size_t len);
    /* Candidates for the word before the cursor (line[0..len) is the text up to the
     * cursor): fills up to max full words into cands (static strings) and returns how
     * many there are.  NULL: tab inserts nothing. */
    size_t (*complete)(void *ctx, const char *line, size_t len, const char **cands, size_t max);
};

enum le_result {
    LE_MORE, /* all bytes taken, no line yet */
    LE_LINE, /* a line is complete: in the caller's buffer */
    LE_EOF,  /* Ctrl-D on an empty line */
};

struct line_editor {
    const struct le_ops *ops;
    void *ctx;
    char prompt[32];
    char line[LE_LINE_MAX + 1];
    size_t len, cursor;
    char history[LE_HISTORY][LE_LINE_MAX + 1];
    unsigned hist_count, hist_next, hist_pos; /* hist_pos: entries back from the newest */
    char saved[LE_LINE_MAX + 1];              /* the line being typed while browsing */
    int esc;                                  /* escape sequence state */
    int overflow; /* typed bytes were dropped (line full): Enter refuses the line */
    char last_char;
};

void le_init(struct line_editor *le, const struct le_ops *ops, void *ctx, const char *prompt);
/* Writes the prompt (and the current line). */
void le_prompt(struct line_editor *le);
/* Feeds typed bytes until a line completes: *used says how many were taken.  On LE_LINE
 * the line (NUL-terminated, no newline) is in out and was added to the history.  A line
 * that outgrew LE_LINE_MAX (the bytes beyond were dropped with a bell) is not returned:
 * Enter prints a refusal and a new prompt, so a cut-off paste never runs. */
enum le_result le_input(struct line_editor *le, const uint8_t *buf, size_t len, size_t *used,
                        char *out, size_t cap);

#endif
