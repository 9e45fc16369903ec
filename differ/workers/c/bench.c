/* bench.c: in-process speed of tpb_worker_decode.
 *
 * Usage: bench FILE [SECONDS]   (FILE: raw bundles, N x 64 bytes)
 * Decodes the bundles of FILE round-robin on one thread for about SECONDS
 * (default 2) and prints decodes per second and the mean answer length.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int tpb_worker_decode(int generation, const unsigned char bundle[64], char *answer, size_t capacity);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench FILE [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static unsigned char data[64 * 65536];
    size_t n = fread(data, 64, sizeof data / 64, f);
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "bench: no bundles in %s\n", argv[1]);
        return 2;
    }

    char answer[2048];
    static volatile unsigned sink; /* keeps the answers observable */
    unsigned long long decodes = 0, chars = 0;
    double start = now(), elapsed;
    do {
        for (size_t i = 0; i < n; i++) {
            int len = tpb_worker_decode(2 + (int)(i % 3), data + 64 * i, answer, sizeof answer);
            chars += (unsigned long long)len;
            sink ^= (unsigned char)answer[len / 2];
        }
        decodes += n;
        elapsed = now() - start;
    } while (elapsed < seconds);

    printf("bench: %zu bundles, %llu decodes in %.2f s: %.2f million decodes/s per core, "
           "%.0f ns each, mean answer %.0f chars\n",
           n, decodes, elapsed, (double)decodes / elapsed / 1e6, elapsed * 1e9 / (double)decodes,
           (double)chars / (double)decodes);
    return 0;
}
