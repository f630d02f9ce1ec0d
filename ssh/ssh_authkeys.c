/*
 * ssh_authkeys.c - authorized_keys parsing (base64 by mbedtls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbedtls/base64.h>

#include "ssh_authkeys.h"
#include "ssh_wire.h"

#define AK_FILE_MAX (1u << 20)

/* Key types this server verifies. */
static const char *const usable_types[] = {"ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa", NULL};

/* True if c is a space or tab. */
static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* True if the token (len bytes) names a key type OpenSSH knows, usable or not: then the
 * line has no options prefix. */
static bool looks_like_key_type(const char *tok, size_t len)
{
    static const char *const prefixes[] = {"ssh-", "ecdsa-sha2-", "sk-", "rsa-sha2-", NULL};
    size_t i, plen;

    for (i = 0; prefixes[i]; i++) {
        plen = strlen(prefixes[i]);
        if (len > plen && memcmp(tok, prefixes[i], plen) == 0)
            return true;
    }
    return false;
}

/* Index just past the options field starting at i (double quotes may hold blanks and
 * \" escapes); len if it never ends. */
static size_t skip_options(const char *s, size_t i, size_t len)
{
    bool quoted = false;

    for (; i < len; i++) {
        if (quoted && s[i] == '\\' && i + 1 < len && s[i + 1] == '"')
            i++;
        else if (s[i] == '"')
            quoted = !quoted;
        else if (!quoted && is_blank(s[i]))
            return i;
    }
    return len;
}

/* Parses one authorized_keys line. */
enum ssh_authkeys_line ssh_authkeys_parse_line(const char *line, size_t len, uint8_t *blob,
                                               size_t cap, size_t *blob_len)
{
    size_t i = 0, tstart, tlen, bstart, k;
    struct ssh_rd rd;

    while (i < len && is_blank(line[i]))
        i++;
    if (i == len || line[i] == '#')
        return SSH_AK_BLANK;
    tstart = i;
    while (i < len && !is_blank(line[i]))
        i++;
    if (!looks_like_key_type(line + tstart, i - tstart)) {
        i = skip_options(line, tstart, len);
        return i < len ? SSH_AK_OPTIONS : SSH_AK_MALFORMED;
    }
    tlen = i - tstart;
    while (i < len && is_blank(line[i]))
        i++;
    bstart = i;
    while (i < len && !is_blank(line[i]))
        i++;
    if (i == bstart || mbedtls_base64_decode(blob, cap, blob_len,
                                             (const unsigned char *)line + bstart, i - bstart) != 0)
        return SSH_AK_MALFORMED;
    ssh_rd_init(&rd, blob, *blob_len);
    {
        size_t inner_len;
        const uint8_t *inner = ssh_rd_string(&rd, &inner_len);

        if (!inner || inner_len != tlen || memcmp(inner, line + tstart, tlen) != 0)
            return SSH_AK_MALFORMED;
    }
    for (k = 0; usable_types[k]; k++)
        if (strlen(usable_types[k]) == tlen && memcmp(usable_types[k], line + tstart, tlen) == 0)
            return SSH_AK_KEY;
    return SSH_AK_TYPE;
}

/* True if one of text's lines holds blob. */
bool ssh_authkeys_has_key(const char *text, size_t len, const uint8_t *blob, size_t blob_len)
{
    uint8_t *line_blob = malloc(SSH_AK_BLOB_MAX);
    size_t start = 0, i, got;
    bool found = false;

    if (!line_blob)
        return false;
    for (i = 0; i <= len && !found; i++) {
        if (i < len && text[i] != '\n')
            continue;
        if (ssh_authkeys_parse_line(text + start, i - start, line_blob, SSH_AK_BLOB_MAX, &got) ==
                SSH_AK_KEY &&
            got == blob_len && memcmp(line_blob, blob, got) == 0)
            found = true;
        start = i + 1;
    }
    free(line_blob);
    return found;
}

/* Reads path and looks for blob: 1 found, 0 not found, -1 unreadable or too big. */
int ssh_authkeys_file_has_key(const char *path, const uint8_t *blob, size_t blob_len)
{
    FILE *f;
    char *text;
    size_t n;
    int rc;

    if (!path || !*path || !(f = fopen(path, "rb")))
        return -1;
    text = malloc(AK_FILE_MAX);
    if (!text) {
        fclose(f);
        return -1;
    }
    n = fread(text, 1, AK_FILE_MAX, f);
    rc = ferror(f) || n == AK_FILE_MAX ? -1 : ssh_authkeys_has_key(text, n, blob, blob_len);
    fclose(f);
    free(text);
    return rc;
}
