/* libFuzzer harness of the rank-file reader (tracer/pas2p_trace.h): any bytes as a rank
 * file, read to the end by the full reader (with its payload accessors) and by the
 * times-only reader of the analyzer's pass B, which must accept and refuse exactly the
 * same.  The reader answers 1, 0 or -1 with a message; a crash, a hang, a leak, an access
 * outside a buffer or a disagreement is a finding.  Built with clang's
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

/* reads to the end: the number of events, and the last answer in *rc */
static long read_all(const char *path, int times_only, int *rc)
{
    char err[512];
    pas2p_rank_reader_t *r = pas2p_rank_reader_open(path, err, sizeof err);
    *rc = -2;
    if (!r)
        return -1;
    pas2p_event_view_t v;
    long n = 0;
    volatile uint64_t sink = 0;
    while ((*rc = times_only ? pas2p_rank_reader_next_times(r, &v)
                             : pas2p_rank_reader_next(r, &v)) == 1) {
        n++;
        if (times_only)
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
    int rc_full, rc_times;
    long n_full = read_all(path, 0, &rc_full), n_times = read_all(path, 1, &rc_times);
    close(fd);
    if (n_full != n_times || rc_full != rc_times) {
        fprintf(stderr, "lf_reader: full reader %ld events (rc %d), times-only %ld (rc %d)\n",
                n_full, rc_full, n_times, rc_times);
        abort();
    }
    return 0;
}
