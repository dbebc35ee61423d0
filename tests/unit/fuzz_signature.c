/* Mutation fuzzing of the signature reader: a real signature file (argv[1]) is damaged
 * (byte flips, random bytes, cuts, duplicated or deleted chunks, digits changed) and read
 * each time.  The reader must answer 0 or -1 with a one-line message, never crash or hang
 * (this runs under ASan/UBSan in CI).  Deterministic: own PRNG, fixed seed.
 *
 *   fuzz_signature SIGNATURE.xml [ITERATIONS [SEED]] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_signature.h"

static uint64_t state;

static uint64_t rnd(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_signature SIGNATURE.xml [ITERATIONS [SEED]]\n");
        return 2;
    }
    long iters = argc > 2 ? atol(argv[2]) : 500;
    state = argc > 3 ? strtoull(argv[3], NULL, 10) : 4242;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *orig = malloc((size_t)n + 1), *buf = malloc(2 * (size_t)n + 64);
    if (!orig || !buf || fread(orig, 1, (size_t)n, f) != (size_t)n)
        return 2;
    fclose(f);
    char path[] = "/tmp/pas2p-fuzzsig-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 2;
    close(fd);
    long ok = 0, refused = 0;
    for (long it = 0; it < iters; it++) {
        size_t len = (size_t)n;
        memcpy(buf, orig, len);
        int edits = 1 + (int)(rnd() % 6);
        for (int e = 0; e < edits && len > 1; e++) {
            size_t at = rnd() % len;
            switch (rnd() % 6) {
            case 0: buf[at] ^= (char)(1u << (rnd() % 8)); break;
            case 1: buf[at] = (char)rnd(); break;
            case 2: len = at + 1; break;
            case 3: { /* duplicate a chunk (elements repeated) */
                size_t cnt = rnd() % 200;
                if (at + cnt > len) cnt = len - at;
                memmove(buf + at + cnt, buf + at, len - at);
                len += cnt;
                break;
            }
            case 4: { /* delete a chunk */
                size_t cnt = rnd() % 200;
                if (at + cnt > len) cnt = len - at;
                memmove(buf + at, buf + at + cnt, len - at - cnt);
                len -= cnt;
                break;
            }
            default: /* a digit changed: numbers out of range, counts that do not match */
                for (size_t k = at; k < len; k++)
                    if (buf[k] >= '0' && buf[k] <= '9') {
                        buf[k] = (char)('0' + rnd() % 10);
                        break;
                    }
                break;
            }
        }
        f = fopen(path, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        pas2p_signature_t s;
        char err[1024] = "";
        int has_rank = 0, ok_whole = 0; /* the whole reader read a table for rank it & 1 */
        if (pas2p_signature_read(path, &s, err, sizeof err) == 0) {
            ok++;
            ok_whole = 1;
            for (uint32_t r = 0; r < s.nranks; r++)
                has_rank |= s.ranks[r].rank == (uint32_t)(it & 1);
            pas2p_signature_free(&s);
        } else {
            refused++;
            if (!err[0] || strchr(err, '\n')) {
                fprintf(stderr, "iteration %ld: refused without a one-line message: [%s]\n", it, err);
                return 1;
            }
        }
        /* predict's own reader (every rank's table, no events): a one-line message, never a
         * crash, and it accepts what the whole reader accepts */
        char err3[1024] = "";
        if (pas2p_signature_read_tables(path, &s, err3, sizeof err3) == 0)
            pas2p_signature_free(&s);
        else if (!err3[0] || strchr(err3, '\n') || ok_whole) {
            fprintf(stderr, "iteration %ld: read_tables refused [%s]\n", it, err3);
            return 1;
        }
        /* predict's per-rank streaming reader: a one-line message too, never a crash, and
         * it accepts what the whole reader accepts (for a rank the file has) */
        char err2[1024] = "";
        int rc2 = pas2p_signature_read_rank(path, (uint32_t)(it & 1), &s, err2, sizeof err2);
        if (rc2 == 0)
            pas2p_signature_free(&s);
        else if (has_rank) {
            fprintf(stderr, "iteration %ld: read_rank refused what the whole reader read: [%s]\n", it, err2);
            return 1;
        } else if (!err2[0] || strchr(err2, '\n')) {
            fprintf(stderr, "iteration %ld: read_rank refused without a one-line message: [%s]\n", it, err2);
            return 1;
        }
    }
    unlink(path);
    printf("fuzz_signature: %ld iterations, %ld read, %ld refused with a message: OK\n", iters, ok,
           refused);
    free(orig);
    free(buf);
    return 0;
}
