/* main.c: the process transport of the C worker (tpb_worker_c.c).
 *
 * Reads request lines from stdin and writes one answer line per request:
 *   decode vN HEX128   -> the decode answer (N = 2, 3 or 4; 128 hex digits)
 *   encode ... / validate ... / any other kind -> unsupported
 *   a malformed request -> error TEXT
 * Exits 0 at end of input.
 *
 * Answers are fully buffered and flushed only when the worker is about to
 * block for more input, so a harness that pipelines many requests pays one
 * write per batch, while one that waits for each answer still gets it at once.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int tpb_worker_decode(int generation, const unsigned char bundle[64], char *answer, size_t capacity);

#define IN_BYTES (1u << 16)
#define MAX_LINE 4096u /* longer requests are answered `error` and skipped */

static char in_buf[IN_BYTES];
static size_t in_len, in_pos;
static int in_eof;
static char out_buf[1u << 16];

/* Refill the input buffer, flushing pending answers first: we only ever
 * block on read() with nothing left for the caller to wait on. */
static int refill(void)
{
    if (in_eof)
        return 0;
    fflush(stdout);
    for (;;) {
        ssize_t n = read(STDIN_FILENO, in_buf, sizeof in_buf);
        if (n > 0) {
            in_len = (size_t)n;
            in_pos = 0;
            return 1;
        }
        if (n < 0 && errno == EINTR)
            continue;
        in_eof = 1;
        return 0;
    }
}

/* Next line without its terminator into `line` (NUL-terminated); returns its
 * length, or -1 at end of input. A line longer than `cap - 1` is consumed
 * whole and reported as length `cap` (too long). */
static long next_line(char *line, size_t cap)
{
    size_t len = 0;
    int any = 0;
    for (;;) {
        if (in_pos == in_len && !refill())
            break;
        any = 1;
        char *start = in_buf + in_pos;
        char *nl = memchr(start, '\n', in_len - in_pos);
        size_t chunk = nl ? (size_t)(nl - start) : in_len - in_pos;
        if (len < cap - 1) {
            size_t take = chunk < cap - 1 - len ? chunk : cap - 1 - len;
            memcpy(line + len, start, take);
        }
        len += chunk;
        in_pos += chunk + (nl ? 1 : 0);
        if (nl)
            break;
    }
    if (!any)
        return -1;
    if (len > cap - 1)
        return (long)cap;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    line[len] = '\0';
    return (long)len;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Split off the next space-separated word; returns NULL when none is left. */
static char *next_word(char **cursor)
{
    char *s = *cursor;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '\0')
        return NULL;
    char *word = s;
    while (*s != '\0' && *s != ' ' && *s != '\t')
        s++;
    if (*s != '\0')
        *s++ = '\0';
    *cursor = s;
    return word;
}

static void answer_decode(char *rest)
{
    char *gen_word = next_word(&rest);
    char *hex_word = next_word(&rest);
    char *extra = next_word(&rest);
    unsigned char bundle[64];
    char answer[2048];
    int generation;

    if (gen_word == NULL || hex_word == NULL || extra != NULL) {
        fputs("error usage: decode v2|v3|v4 HEX128\n", stdout);
        return;
    }
    if (strcmp(gen_word, "v2") == 0)
        generation = 2;
    else if (strcmp(gen_word, "v3") == 0)
        generation = 3;
    else if (strcmp(gen_word, "v4") == 0)
        generation = 4;
    else {
        fputs("error generation must be v2, v3 or v4\n", stdout);
        return;
    }
    if (strlen(hex_word) != 128) {
        fputs("error bundle must be 128 hex digits (64 bytes)\n", stdout);
        return;
    }
    for (int i = 0; i < 64; i++) {
        int hi = hex_value(hex_word[2 * i]);
        int lo = hex_value(hex_word[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fputs("error bundle has a non-hex digit\n", stdout);
            return;
        }
        bundle[i] = (unsigned char)(hi << 4 | lo);
    }
    int need = tpb_worker_decode(generation, bundle, answer, sizeof answer);
    if (need < 0 || (size_t)need >= sizeof answer) {
        fputs("error answer too long\n", stdout);
        return;
    }
    fwrite(answer, 1, (size_t)need, stdout);
    fputc('\n', stdout);
}

int main(void)
{
    static char line[MAX_LINE];
    long len;

    setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    while ((len = next_line(line, sizeof line)) >= 0) {
        if ((size_t)len >= sizeof line) {
            fputs("error request line too long\n", stdout);
            continue;
        }
        char *rest = line;
        char *kind = next_word(&rest);
        if (kind == NULL)
            fputs("error empty request\n", stdout);
        else if (strcmp(kind, "decode") == 0)
            answer_decode(rest);
        else
            fputs("unsupported\n", stdout);
    }
    fflush(stdout);
    return ferror(stdout) ? 1 : 0;
}
