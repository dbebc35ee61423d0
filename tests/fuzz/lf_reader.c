/* libFuzzer harness of the rank-file reader (tracer/pas2p_trace.h): any bytes as a rank
 * file, read to the end by the full reader (with its payload accessors) and by the
 * times-only reader of the analyzer's pass B, which must accept and refuse exactly the
 * same, as must the batch readers the analyzer uses (full views for pass A, compact times
 * for pass B; batch sizes from the input's length).  The reader answers 1, 0 or -1 with a
 * message; a crash, a hang, a leak, an access outside a buffer or a disagreement is a
 * finding.  Built with clang's
 * -fsanitize=fuzzer,address,undefined (tests/CMakeLists.txt, the sanitizer build) and run
 * briefly by ctest from a real rank file:
 *
 *   lf_reader [libFuzzer options] CORPUS_DIR */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pas2p_trace.h"

/* the bytes as a file the reader can open by path (it reads with read(2)) */
static int as_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("rank-00000.p2t", 0);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

/* reads to the end in batches of up to max (mode 2: full views, 3: compact times) */
static long read_batches(pas2p_rank_reader_t *r, int mode, int max, int *rc)
{
    pas2p_event_view_t v[PAS2P_READ_BATCH];
    pas2p_event_times_t t[PAS2P_READ_BATCH];
    long n = 0;
    while ((*rc = mode == 3 ? pas2p_rank_reader_next_times_batch(r, t, max)
                            : pas2p_rank_reader_next_batch(r, v, max, 0)) > 0) {
        for (int i = 0; i < *rc; i++)
            if ((mode == 3 ? t[i].ordinal : v[i].ordinal) != (uint64_t)(n + i))
                abort(); /* events lost or repeated */
        n += *rc;
    }
    return n;
}

/* reads to the end: the number of events, and the last answer in *rc (mode 0: full,
 * 1: times only, 2 and 3: read_batches) */
static long read_all(const char *path, int mode, int max, int *rc)
{
    char err[512];
    pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
    *rc = -2;
    if (!r)
        return -1;
    pas2p_event_view_t v;
    long n = 0;
    volatile uint64_t sink = 0;
    if (mode >= 2)
        n = read_batches(r, mode, max, rc);
    while (mode < 2 && (*rc = mode ? pas2p_rank_reader_next_times(r, &v)
                                   : pas2p_rank_reader_next(r, &v)) == 1) {
        n++;
        if (mode)
            continue;
        uint32_t nc;
        const pas2p_completion_t *c = pas2p_event_completions(&v, &nc);
        for (uint32_t i = 0; i < nc; i++)
            sink += c[i].post + (uint64_t)c[i].source;
        pas2p_comm_view_t cv;
        if (pas2p_event_comm_def(&v, &cv))
            for (uint32_t i = 0; i < cv.size; i++)
                sink += (uint64_t)cv.members[i];
    }
    if (*rc < 0 && !pas2p_rank_reader_error(r)[0])
        abort(); /* an error without its message */
    pas2p_rank_reader_close(r);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = as_file(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    int rc_full, rc_times, rc_b, rc_bt, max = 1 + (int)(size % PAS2P_READ_BATCH);
    long n_full = read_all(path, 0, max, &rc_full), n_times = read_all(path, 1, max, &rc_times);
    long n_b = read_all(path, 2, max, &rc_b), n_bt = read_all(path, 3, max, &rc_bt);
    close(fd);
    if (n_full != n_times || rc_full != rc_times || n_b != n_full || rc_b != rc_full ||
        n_bt != n_full || rc_bt != rc_full) {
        fprintf(stderr, "lf_reader: full reader %ld events (rc %d), times-only %ld (rc %d), "
                "batches of %d %ld (rc %d), compact times %ld (rc %d)\n", n_full, rc_full,
                n_times, rc_times, max, n_b, rc_b, n_bt, rc_bt);
        abort();
    }
    return 0;
}
