/* echo_opcode.c: the smallest tpb differ worker, as a process. It decodes
 * one field, the opcode (the first byte: hex digits 1-2 of the bundle), and
 * answers every other request kind `unsupported`. The benchmark uses it to
 * measure the process transport itself (cargo xtask bench, "differ" rows); it is
 * also the shortest correct answer to the protocol (docs/differential.md).
 *
 * Requests are read in whatever batches the pipe gives and answered in one
 * write per batch: a worker that flushed every line would be measured instead
 * of the transport. */
#include <string.h>
#include <unistd.h>

static char in[1 << 16];
static char out[1 << 17];

int main(void) {
    size_t have = 0;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, in + have, sizeof in - have);
        if (n <= 0) return 0;
        have += (size_t)n;
        size_t start = 0, used = 0;
        for (char *nl; (nl = memchr(in + start, '\n', have - start)) != NULL; start = (size_t)(nl - in) + 1) {
            const char *line = in + start;
            size_t len = (size_t)(nl - line);
            /* "decode vN HEX128": the opcode is the bundle's first two hex digits. */
            if (len >= 12 && memcmp(line, "decode ", 7) == 0) {
                memcpy(out + used, "opcode=0x", 9);
                out[used + 9] = line[10];
                out[used + 10] = line[11];
                out[used + 11] = '\n';
                used += 12;
            } else {
                memcpy(out + used, "unsupported\n", 12);
                used += 12;
            }
        }
        memmove(in, in + start, have - start);
        have -= start;
        if (have == sizeof in) return 1; /* a line longer than the buffer: not the protocol */
        for (size_t off = 0; off < used;) {
            ssize_t w = write(STDOUT_FILENO, out + off, used - off);
            if (w <= 0) return 1;
            off += (size_t)w;
        }
    }
}
