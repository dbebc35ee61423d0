/* Mutation fuzzing of the rank-file reader: a real rank file (argv[1]) is damaged many
 * ways (byte flips, random bytes, cuts, overwritten length fields, spliced copies) and read
 * to the end each time.  The reader must only ever answer 1, 0 or -1 with a message, never
 * crash, hang or read outside its buffers (this runs under ASan/UBSan in CI).
 *
 *   fuzz_reader RANK_FILE [ITERATIONS [SEED]]
 *
 * Deterministic (own PRNG, fixed seed), so a failure reproduces. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_trace.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(b);
        return NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_reader RANK_FILE [ITERATIONS [SEED]]\n");
        return 2;
    }
    long iters = argc > 2 ? atol(argv[2]) : 2000;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) : 12345;
    size_t n;
    unsigned char *orig = slurp(argv[1], &n);
    if (!orig || n < sizeof(pas2p_file_header_t)) {
        fprintf(stderr, "fuzz_reader: cannot read a rank file from %s\n", argv[1]);
        return 2;
    }
    char path[] = "/tmp/pas2p-fuzz-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 2;
    close(fd);
    unsigned char *buf = malloc(2 * n + 64);
    long opened = 0, clean = 0, errors = 0, events = 0;
    volatile uint64_t sink = 0; /* keeps the payload reads */
    for (long it = 0; it < iters; it++) {
        size_t len = n;
        memcpy(buf, orig, n);
        int kind = (int)(rnd() % 6), edits = 1 + (int)(rnd() % 8);
        size_t hs = sizeof(pas2p_file_header_t);
        for (int e = 0; e < edits; e++) {
            size_t at = hs + rnd() % (len > hs ? len - hs : 1); /* mostly the records */
            if (rnd() % 8 == 0)
                at = rnd() % len; /* sometimes the header too */
            switch (kind) {
            case 0: buf[at] ^= (unsigned char)(1u << (rnd() % 8)); break;  /* bit flip */
            case 1: buf[at] = (unsigned char)rnd(); break;                /* random byte */
            case 2: len = at; break;                                       /* cut */
            case 3: buf[at] = (unsigned char)(rnd() % 2 ? 0xff : 0); break; /* length-ish bytes */
            case 4: { /* splice: copy a random chunk over another place */
                size_t from = rnd() % len, cnt = rnd() % 64;
                if (from + cnt > len) cnt = len - from;
                if (at + cnt > len) cnt = len - at;
                memmove(buf + at, buf + from, cnt);
                break;
            }
            default: { /* varint run: many continuation bytes */
                for (size_t k = at; k < len && k < at + 12; k++)
                    buf[k] = 0x80 | (unsigned char)rnd();
                break;
            }
            }
            if (len <= 1)
                len = 1;
        }
        FILE *f = fopen(path, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        char err[512];
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
        if (!r) {
            if (!err[0]) {
                fprintf(stderr, "iteration %ld: open failed without a message\n", it);
                return 1;
            }
            continue;
        }
        opened++;
        pas2p_event_view_t v;
        int rc;
        long k = 0;
        while ((rc = pas2p_rank_reader_next(r, &v)) == 1) {
            if (++k > (long)len) { /* every record is at least one byte: no progress = hang */
                fprintf(stderr, "iteration %ld: more events than bytes\n", it);
                return 1;
            }
            if (v.ev.payload && !v.payload) {
                fprintf(stderr, "iteration %ld: payload length without payload\n", it);
                return 1;
            }
            /* the payload accessors must stay inside the payload, whatever it says */
            pas2p_comm_view_t cv;
            uint32_t nc;
            const pas2p_completion_t *c = pas2p_event_completions(&v, &nc);
            for (uint32_t i = 0; i < nc; i++)
                sink += c[i].post + (uint64_t)c[i].source;
            if (pas2p_event_comm_def(&v, &cv)) {
                for (uint32_t i = 0; i < cv.size; i++)
                    sink += (uint64_t)cv.members[i];
                for (uint32_t i = 0; i < cv.ndims; i++)
                    sink += (uint64_t)cv.dims[i] + (uint64_t)cv.periods[i] + (uint64_t)cv.coords[i];
            }
        }
        /* the times-only decoder (analyzer pass B) accepts and refuses exactly the same */
        pas2p_rank_reader_t *t = pas2p_rank_reader_open(path, err, sizeof err);
        long kt = 0;
        int rt = 0;
        while (t && (rt = pas2p_rank_reader_next_times(t, &v)) == 1)
            kt++;
        if (!t || kt != k || rt != rc) {
            fprintf(stderr, "iteration %ld: times-only reader: %ld events, rc %d; full: %ld, %d\n",
                    it, kt, t ? rt : -9, k, rc);
            return 1;
        }
        pas2p_rank_reader_close(t);
        /* and so do the batch readers (full, times only, compact times: analyzer passes A
         * and B), with odd batch sizes */
        for (int times_only = 0; times_only < 3; times_only++) {
            pas2p_event_view_t bv[PAS2P_READ_BATCH];
            pas2p_event_times_t tv[PAS2P_READ_BATCH];
            t = pas2p_rank_reader_open(path, err, sizeof err);
            /* the compact times: field by field against the times-only reader */
            pas2p_rank_reader_t *u = times_only == 2 ? pas2p_rank_reader_open(path, err, sizeof err) : NULL;
            long kb = 0;
            int rb = 0, bad = 0, max = 1 + (int)(rnd() % PAS2P_READ_BATCH);
            while (!bad && t &&
                   (rb = times_only == 2 ? pas2p_rank_reader_next_times_batch(t, tv, max)
                                         : pas2p_rank_reader_next_batch(t, bv, max, times_only)) > 0)
                for (int i = 0; i < rb; i++, kb++)
                    if (times_only == 2) {
                        pas2p_event_view_t x;
                        bad |= !u || pas2p_rank_reader_next_times(u, &x) != 1 ||
                               tv[i].ordinal != (uint64_t)kb || x.ordinal != tv[i].ordinal ||
                               x.ev.call != tv[i].call || x.ev.compute_ns != tv[i].compute_ns ||
                               x.ev.t_start != tv[i].t_start || x.ev.t_end != tv[i].t_end ||
                               (x.counters ? x.counters[0] : 0) != tv[i].counter0;
                    } else {
                        bad |= bv[i].ordinal != (uint64_t)kb ||
                               (!times_only && bv[i].ev.payload && !bv[i].payload);
                    }
            if (!t || bad || kb != k || rb != rc) {
                fprintf(stderr, "iteration %ld: batch reader (times only %d): %ld events, rc %d; "
                        "full: %ld, %d\n", it, times_only, kb, t ? rb : -9, k, rc);
                return 1;
            }
            pas2p_rank_reader_close(t);
            pas2p_rank_reader_close(u);
        }
        events += k;
        if (rc == 0) {
            clean++;
        } else {
            errors++;
            if (!pas2p_rank_reader_error(r)[0]) {
                fprintf(stderr, "iteration %ld: error without a message\n", it);
                return 1;
            }
        }
        pas2p_rank_reader_close(r);
    }
    unlink(path);
    free(buf);
    free(orig);
    printf("fuzz_reader: %ld iterations, %ld opened, %ld read cleanly, %ld stopped with an error, "
           "%ld events decoded: OK\n", iters, opened, clean, errors, events);
    return 0;
}
