/* Unit tests of the trace format: encode -> file -> reader, truncation recovery,
 * corrupt and foreign files, the manifest parser, the call table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pas2p_trace.h"

typedef struct {
    char dir[256];
    char path[300];
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/pas2p-unit-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    pas2p_rank_path(f->dir, 0, f->path, sizeof f->path);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

/* writes a rank file with n events; event i: call Send, peer i%3, bytes 8*i; every third
 * event a completion with i entries of payload; ncounters counters = i*10+k */
static size_t write_file(const char *path, int n, uint32_t ncounters, uint32_t version)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    pas2p_file_header_t h;
    pas2p_header_init(&h, 0, 2, ncounters);
    h.version = version;
    snprintf(h.host, sizeof h.host, "unit-host");
    for (uint32_t k = 0; k < ncounters; k++)
        snprintf(h.counters[k], sizeof h.counters[k], "CTR_%u", k);
    fwrite(&h, sizeof h, 1, fp);
    size_t total = sizeof h;
    unsigned char rec[4096];
    pas2p_codec_t codec = {0, PAS2P_COMM_WORLD};
    for (int i = 0; i < n; i++) {
        pas2p_event_t e = {0};
        pas2p_completion_t done[8];
        uint64_t ctr[PAS2P_MAX_COUNTERS];
        size_t plen = 0;
        for (uint32_t k = 0; k < ncounters; k++)
            ctr[k] = (uint64_t)i * 10 + k;
        e.peer = i % 3;
        e.tag = i;
        e.peer2 = e.tag2 = -1;
        e.comm = i % 5 ? PAS2P_COMM_WORLD : 0xabcdef12u;
        e.bytes = 8u * (uint64_t)i;
        e.t_start = 1000u * (uint64_t)i + 5;
        e.t_end = e.t_start + 10;
        e.compute_ns = i ? 990 : e.t_start;
        e.thread = i % 7 == 6 ? 3 : 0;
        if (i % 11 == 10) { /* an event of another thread: starts before the previous ended */
            e.t_start -= 500;
            e.t_end = e.t_start + 100000;
            e.compute_ns = 123;
        }
        if (i % 3 == 2) {
            e.call = PAS2P_CALL_Waitall;
            e.aux = (uint32_t)(i % 8);
            for (uint32_t j = 0; j < e.aux; j++)
                done[j] = (pas2p_completion_t){.post = j, .index = 0, .call = PAS2P_CALL_Irecv,
                                               .source = 1, .tag = (int32_t)j, .bytes = 4};
            plen = e.aux * sizeof *done;
        } else {
            e.call = PAS2P_CALL_Send;
        }
        assert_true(pas2p_record_max(ncounters, plen) <= sizeof rec);
        size_t sz = pas2p_record_encode(rec, &e, ncounters ? ctr : NULL, ncounters, done, plen, &codec);
        assert_int_equal(sz, e.size);
        fwrite(rec, sz, 1, fp);
        total += sz;
    }
    fclose(fp);
    return total;
}

static void test_round_trip(void **state)
{
    fixture_t *f = *state;
    for (uint32_t nc = 0; nc <= 2; nc += 2) {
        write_file(f->path, 1000, nc, PAS2P_TRACE_VERSION);
        char err[512];
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(f->path, err, sizeof err);
        assert_non_null(r);
        pas2p_rank_reader_raw_times(r, 1); /* the records' own times (test_serial_times) */
        const pas2p_file_header_t *h = pas2p_rank_reader_header(r);
        assert_int_equal(h->np, 2);
        assert_int_equal(h->ncounters, nc);
        assert_string_equal(h->host, "unit-host");
        pas2p_event_view_t v;
        int i = 0, rc;
        while ((rc = pas2p_rank_reader_next(r, &v)) == 1) {
            assert_int_equal(v.ordinal, (uint64_t)i);
            assert_int_equal(v.ev.peer, i % 3);
            assert_int_equal(v.ev.tag, i);
            assert_int_equal(v.ev.bytes, 8u * (uint64_t)i);
            assert_int_equal(v.ev.comm, i % 5 ? PAS2P_COMM_WORLD : 0xabcdef12u);
            assert_int_equal(v.ev.thread, i % 7 == 6 ? 3 : 0);
            assert_int_equal(v.ev.peer2, -1);
            if (i % 11 == 10) {
                assert_int_equal(v.ev.t_start, 1000u * (uint64_t)i + 5 - 500);
                assert_int_equal(v.ev.t_end - v.ev.t_start, 100000);
                assert_int_equal(v.ev.compute_ns, 123);
            } else {
                assert_int_equal(v.ev.t_start, 1000u * (uint64_t)i + 5);
                assert_int_equal(v.ev.t_end - v.ev.t_start, 10);
                assert_int_equal(v.ev.compute_ns, i ? 990 : v.ev.t_start);
            }
            if (nc)
                assert_non_null(v.counters);
            for (uint32_t k = 0; k < nc; k++)
                assert_int_equal(v.counters[k], (uint64_t)i * 10 + k);
            if (i % 3 == 2 && v.ev.aux)
                assert_int_equal((uintptr_t)v.payload % 8, 0);
            if (i % 3 == 2) {
                assert_int_equal(v.ev.call, PAS2P_CALL_Waitall);
                assert_int_equal(v.ev.payload, v.ev.aux * sizeof(pas2p_completion_t));
                if (!v.ev.aux)
                    assert_null(v.payload);
                const pas2p_completion_t *c = v.payload;
                for (uint32_t j = 0; j < v.ev.aux; j++) {
                    assert_int_equal(c[j].post, j);
                    assert_int_equal(c[j].tag, (int32_t)j);
                }
            } else {
                assert_int_equal(v.ev.call, PAS2P_CALL_Send);
                assert_null(v.payload);
            }
            i++;
        }
        assert_int_equal(rc, 0);
        assert_int_equal(i, 1000);
        assert_int_equal(pas2p_rank_reader_count(r), 1000);
        pas2p_rank_reader_close(r);
    }
}

/* Cutting the file anywhere leaves every complete record readable and says so. */
/* the times-only decoder (analyzer pass B) agrees with the full one on what it decodes */
/* Two threads' calls as read: one timeline.  Thread 0 calls at 100-110, thread 1 (its
 * first call) blocks 150-400 while thread 0 computes, thread 0 calls at 300-310 and
 * 500-520 (190 ns of its own computation before each).  Its call at 300 lies inside thread
 * 1's: nothing added; its computation before 500 is what elapsed since 400. */
static void test_serial_times(void **state)
{
    fixture_t *f = *state;
    FILE *fp = fopen(f->path, "wb");
    assert_non_null(fp);
    pas2p_file_header_t h;
    pas2p_header_init(&h, 0, 2, 0);
    fwrite(&h, sizeof h, 1, fp);
    const uint64_t in[4][4] = {/* thread, t_start, t_end, compute_ns */
                               {0, 100, 110, 0}, {1, 150, 400, 0}, {0, 300, 310, 190},
                               {0, 500, 520, 190}};
    const uint64_t want[4][3] = {{100, 110, 0}, {150, 400, 40}, {400, 400, 0}, {500, 520, 100}};
    pas2p_codec_t codec = {0};
    codec.prev_comm = PAS2P_COMM_WORLD;
    unsigned char rec[4096];
    for (int i = 0; i < 4; i++) {
        pas2p_event_t e = {0};
        e.call = PAS2P_CALL_Send;
        e.peer = 1;
        e.tag = e.peer2 = e.tag2 = -1;
        e.comm = PAS2P_COMM_WORLD;
        e.thread = (uint32_t)in[i][0];
        e.t_start = in[i][1];
        e.t_end = in[i][2];
        e.compute_ns = in[i][3];
        size_t sz = pas2p_record_encode(rec, &e, NULL, 0, NULL, 0, &codec);
        fwrite(rec, sz, 1, fp);
    }
    fclose(fp);
    char err[512];
    for (int raw = 0; raw <= 1; raw++) {
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(f->path, err, sizeof err);
        assert_non_null(r);
        pas2p_rank_reader_raw_times(r, raw);
        pas2p_event_view_t v;
        uint64_t sum = 0;
        for (int i = 0; i < 4; i++) {
            assert_int_equal(pas2p_rank_reader_next(r, &v), 1);
            assert_int_equal(v.ev.thread, in[i][0]);
            assert_int_equal(v.ev.t_start, raw ? in[i][1] : want[i][0]);
            assert_int_equal(v.ev.t_end, raw ? in[i][2] : want[i][1]);
            assert_int_equal(v.ev.compute_ns, raw ? in[i][3] : want[i][2]);
            sum += v.ev.compute_ns + v.ev.t_end - v.ev.t_start;
        }
        assert_int_equal(pas2p_rank_reader_next(r, &v), 0);
        assert_int_equal(sum, raw ? 10 + 250 + 200 + 210 : 520 - 100); /* raw: twice over */
        pas2p_rank_reader_close(r);
    }
}

static void test_times_only(void **state)
{
    fixture_t *f = *state;
    write_file(f->path, 1000, 2, PAS2P_TRACE_VERSION);
    char err[512];
    pas2p_rank_reader_t *a = pas2p_rank_reader_open(f->path, err, sizeof err);
    pas2p_rank_reader_t *b = pas2p_rank_reader_open(f->path, err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    pas2p_event_view_t va, vb;
    int ra, rb, n = 0;
    while ((ra = pas2p_rank_reader_next(a, &va)) == 1) {
        rb = pas2p_rank_reader_next_times(b, &vb);
        assert_int_equal(rb, 1);
        assert_int_equal(vb.ordinal, va.ordinal);
        assert_int_equal(vb.ev.call, va.ev.call);
        assert_int_equal(vb.ev.size, va.ev.size);
        assert_int_equal(vb.ev.t_start, va.ev.t_start);
        assert_int_equal(vb.ev.t_end, va.ev.t_end);
        assert_int_equal(vb.ev.compute_ns, va.ev.compute_ns);
        assert_int_equal(vb.ev.thread, va.ev.thread);
        assert_int_equal(vb.ev.comm, va.ev.comm);
        assert_int_equal(vb.ev.aux, va.ev.aux);
        assert_int_equal(vb.counters[0], va.counters[0]);
        assert_int_equal(vb.counters[1], va.counters[1]);
        assert_int_equal(vb.ev.peer, -1); /* skipped */
        assert_int_equal(vb.ev.bytes, 0);
        assert_null(vb.payload);
        assert_int_equal(vb.ev.payload, 0);
        n++;
    }
    assert_int_equal(ra, 0);
    assert_int_equal(pas2p_rank_reader_next_times(b, &vb), 0);
    assert_int_equal(n, 1000);
    pas2p_rank_reader_close(a);
    pas2p_rank_reader_close(b);
}

static void test_truncated_recovery(void **state)
{
    fixture_t *f = *state;
    size_t total = write_file(f->path, 50, 1, PAS2P_TRACE_VERSION);
    for (size_t cut = sizeof(pas2p_file_header_t); cut < total; cut += 7) {
        write_file(f->path, 50, 1, PAS2P_TRACE_VERSION);
        assert_int_equal(truncate(f->path, (off_t)cut), 0);
        char err[512];
        pas2p_rank_reader_t *r = pas2p_rank_reader_open(f->path, err, sizeof err);
        assert_non_null(r);
        pas2p_event_view_t v;
        size_t consumed = sizeof(pas2p_file_header_t);
        int rc;
        while ((rc = pas2p_rank_reader_next(r, &v)) == 1)
            consumed += v.ev.size;
        assert_true(consumed <= cut);
        if (consumed == cut) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(pas2p_rank_reader_error(r), "truncated"));
            assert_non_null(strstr(pas2p_rank_reader_error(r), "complete events"));
            /* asking again gives the same answer, never a partial event */
            assert_int_equal(pas2p_rank_reader_next(r, &v), -1);
        }
        pas2p_rank_reader_close(r);
    }
}

static void test_truncated_header(void **state)
{
    fixture_t *f = *state;
    write_file(f->path, 3, 0, PAS2P_TRACE_VERSION);
    assert_int_equal(truncate(f->path, 40), 0);
    char err[512];
    assert_null(pas2p_rank_reader_open(f->path, err, sizeof err));
    assert_non_null(strstr(err, "truncated header"));
    assert_non_null(strstr(err, f->path));
}

static void test_other_version_refused(void **state)
{
    fixture_t *f = *state;
    write_file(f->path, 3, 0, PAS2P_TRACE_VERSION + 1);
    char err[512];
    assert_null(pas2p_rank_reader_open(f->path, err, sizeof err));
    assert_non_null(strstr(err, "version"));
}

/* A version-1 file predates the wildcard flags: refused in one line naming the file, with
 * why and what to do (its wildcard receives would otherwise look like fixed-peer ones). */
static void test_old_version_refused(void **state)
{
    fixture_t *f = *state;
    write_file(f->path, 3, 0, 1);
    char err[512], want[700];
    assert_null(pas2p_rank_reader_open(f->path, err, sizeof err));
    snprintf(want, sizeof want,
             "%s: trace format version 1 is older than this reader's 2: it does not record "
             "wildcard receives (MPI_ANY_SOURCE); trace the application again",
             f->path);
    assert_string_equal(err, want);
    assert_null(strchr(err, '\n'));

    char path[400];
    snprintf(path, sizeof path, "%s/manifest", f->dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("format = pas2p-trace\nversion = 1\nnp = 1\n", fp);
    fclose(fp);
    pas2p_manifest_t m;
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s: trace format version 1 is older than this reader's 2: it does not record "
             "wildcard receives (MPI_ANY_SOURCE); trace the application again",
             path);
    assert_string_equal(err, want);
}

/* The wildcard flags (events and completion entries) survive encode -> file -> reader, in
 * both decoders, next to the actual source and tag. */
static void test_wild_flags(void **state)
{
    fixture_t *f = *state;
    enum { AS = PAS2P_EV_ANY_SOURCE, AT = PAS2P_EV_ANY_TAG };
    assert_int_equal(AS, 16);
    assert_int_equal(AT, 32);
    struct {
        uint16_t call, flags;
        int32_t peer, tag, peer2, tag2;
        uint16_t cflags; /* completion entry's flags (completions only) */
    } ev[] = {
        {PAS2P_CALL_Recv, AS, 3, 11, -1, -1, 0},                  /* actual source kept */
        {PAS2P_CALL_Recv, 0, 3, 11, -1, -1, 0},                   /* fixed: no flag */
        {PAS2P_CALL_Recv, AT | PAS2P_EV_FORTRAN, 2, 7, -1, -1, 0},
        {PAS2P_CALL_Irecv, AS | AT, PAS2P_PEER_ANY, PAS2P_TAG_ANY, -1, -1, 0},
        {PAS2P_CALL_Waitany, 0, -1, -1, -1, -1, AS | AT},
        {PAS2P_CALL_Irecv, 0, 1, 5, -1, -1, 0},
        {PAS2P_CALL_Wait, 0, -1, -1, -1, -1, 0},
        {PAS2P_CALL_Sendrecv, AS, 1, 40, 2, 40, 0},
        {PAS2P_CALL_Iprobe, AS | AT | PAS2P_EV_FLAG_TRUE, 2, 9, -1, -1, 0},
        {PAS2P_CALL_Iprobe, AS, PAS2P_PEER_ANY, 9, -1, -1, 0},
        {PAS2P_CALL_Probe, AS | AT | PAS2P_EV_ERROR, 1, 3, -1, -1, 0},
    };
    int n = (int)(sizeof ev / sizeof ev[0]);
    FILE *fp = fopen(f->path, "wb");
    assert_non_null(fp);
    pas2p_file_header_t h;
    pas2p_header_init(&h, 0, 4, 0);
    fwrite(&h, sizeof h, 1, fp);
    pas2p_codec_t codec = {0, PAS2P_COMM_WORLD};
    unsigned char rec[512];
    for (int i = 0; i < n; i++) {
        pas2p_event_t e = {.call = ev[i].call, .flags = ev[i].flags, .peer = ev[i].peer,
                           .tag = ev[i].tag, .peer2 = ev[i].peer2, .tag2 = ev[i].tag2,
                           .comm = PAS2P_COMM_WORLD, .t_start = 100u * (uint64_t)i + 50,
                           .compute_ns = 50};
        e.t_end = e.t_start + 20;
        pas2p_completion_t c = {.post = (uint64_t)i - 1, .call = ev[i - (i > 0)].call,
                                .flags = ev[i].cflags, .source = 3, .tag = 11, .bytes = 4};
        int done = pas2p_call_class(e.call) == PAS2P_CLASS_COMPLETION;
        e.aux = done ? 1 : 0;
        size_t sz = pas2p_record_encode(rec, &e, NULL, 0, &c, done ? sizeof c : 0, &codec);
        fwrite(rec, sz, 1, fp);
    }
    fclose(fp);
    char err[512];
    pas2p_rank_reader_t *r = pas2p_rank_reader_open(f->path, err, sizeof err);
    pas2p_rank_reader_t *t = pas2p_rank_reader_open(f->path, err, sizeof err);
    assert_non_null(r);
    assert_non_null(t);
    pas2p_event_view_t v, vt;
    for (int i = 0; i < n; i++) {
        assert_int_equal(pas2p_rank_reader_next(r, &v), 1);
        assert_int_equal(pas2p_rank_reader_next_times(t, &vt), 1);
        assert_int_equal(v.ev.call, ev[i].call);
        assert_int_equal(v.ev.flags, ev[i].flags);
        assert_int_equal(vt.ev.flags, ev[i].flags);
        assert_int_equal(v.ev.peer, ev[i].peer);
        assert_int_equal(v.ev.tag, ev[i].tag);
        assert_int_equal(v.ev.peer2, ev[i].peer2);
        assert_int_equal(v.ev.tag2, ev[i].tag2);
        uint32_t nc;
        const pas2p_completion_t *c = pas2p_event_completions(&v, &nc);
        if (pas2p_call_class(ev[i].call) == PAS2P_CLASS_COMPLETION) {
            assert_int_equal(nc, 1);
            assert_int_equal(c[0].flags, ev[i].cflags);
            assert_int_equal(c[0].call, ev[i - 1].call);
            assert_int_equal(c[0].source, 3);
            assert_int_equal(c[0].tag, 11);
            assert_int_equal(c[0].post, (uint64_t)i - 1);
        } else {
            assert_null(c);
        }
    }
    assert_int_equal(pas2p_rank_reader_next(r, &v), 0);
    pas2p_rank_reader_close(r);
    pas2p_rank_reader_close(t);
}

static void test_bad_magic_and_missing(void **state)
{
    fixture_t *f = *state;
    FILE *fp = fopen(f->path, "wb");
    fputs("this is not a trace file at all, but long enough to hold a header ..............", fp);
    fclose(fp);
    char err[512];
    assert_null(pas2p_rank_reader_open(f->path, err, sizeof err));
    assert_non_null(strstr(err, "not a pas2p trace file"));
    unlink(f->path);
    assert_null(pas2p_rank_reader_open(f->path, err, sizeof err));
    assert_non_null(strstr(err, "cannot open"));
}

static void test_corrupt_record(void **state)
{
    fixture_t *f = *state;
    write_file(f->path, 10, 0, PAS2P_TRACE_VERSION);
    /* find the 4th record, then give it an unknown call id */
    char err[512];
    pas2p_rank_reader_t *r = pas2p_rank_reader_open(f->path, err, sizeof err);
    pas2p_event_view_t v;
    long off = (long)sizeof(pas2p_file_header_t);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pas2p_rank_reader_next(r, &v), 1);
        off += (long)v.ev.size;
    }
    pas2p_rank_reader_close(r);
    FILE *fp = fopen(f->path, "r+b");
    unsigned char bad = 0xee;
    fseek(fp, off + 1, SEEK_SET);
    fwrite(&bad, 1, 1, fp);
    fclose(fp);
    r = pas2p_rank_reader_open(f->path, err, sizeof err);
    assert_non_null(r);
    int n = 0, rc;
    while ((rc = pas2p_rank_reader_next(r, &v)) == 1)
        n++;
    assert_int_equal(rc, -1);
    assert_int_equal(n, 3);
    assert_non_null(strstr(pas2p_rank_reader_error(r), "corrupt record"));
    pas2p_rank_reader_close(r);
}

/* Typical events must be small: the tracer's cost is mostly bytes written. */
static void test_compact(void **state)
{
    (void)state;
    unsigned char rec[1024]; /* the encoder may use pas2p_record_max() bytes */
    pas2p_codec_t codec = {1000000000000ull, PAS2P_COMM_WORLD};
    pas2p_event_t e = {.call = PAS2P_CALL_Isend, .peer = 3, .tag = 100, .peer2 = -1, .tag2 = -1,
                       .comm = PAS2P_COMM_WORLD, .bytes = 8192,
                       .t_start = 1000000000000ull + 25000, .compute_ns = 25000};
    e.t_end = e.t_start + 800;
    size_t n = pas2p_record_encode(rec, &e, NULL, 0, NULL, 0, &codec);
    assert_int_equal(n, 13); /* len, call, mask, dt 3, duration 2, peer, tag 2, bytes 2 */
    /* a payload longer than 254 bytes takes the long length form */
    unsigned char pay[400];
    memset(pay, 1, sizeof pay);
    unsigned char big[600];
    pas2p_event_t w = e;
    w.call = PAS2P_CALL_Waitall;
    w.aux = 12;
    w.t_start = e.t_end + 10;
    w.t_end = w.t_start + 1;
    w.compute_ns = 10;
    n = pas2p_record_encode(big, &w, NULL, 0, pay, sizeof pay, &codec);
    assert_int_equal(big[0], 0xff);
    uint32_t len;
    memcpy(&len, big + 1, 4);
    assert_int_equal(len, n);
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* a manifest of this format version: "format" and "version" lines, then rest */
static void write_manifest(const char *path, const char *rest)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp, "format = pas2p-trace\nversion = %u\n%s", PAS2P_TRACE_VERSION, rest);
    fclose(fp);
}

static void test_manifest(void **state)
{
    fixture_t *f = *state;
    char path[400], err[512];
    pas2p_manifest_t m;
    snprintf(path, sizeof path, "%s/manifest", f->dir);
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "manifest"));

    write_manifest(path, "np = 3\ncommand = mpirun -np 3 ./a b\n"
                         "hosts = a,b,c\naet_s = 1.5\nevents = 42\ncounters = none\nfuture_key = 7\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
    assert_int_equal(m.np, 3);
    assert_string_equal(m.command, "mpirun -np 3 ./a b");
    assert_string_equal(m.hosts[2], "c");
    assert_true(m.aet_s == 1.5);
    assert_int_equal(m.events, 42);
    pas2p_manifest_free(&m);

    /* a rank file cut exactly between two records reads cleanly: the manifest's count of
     * what the rank wrote is what tells it is truncated */
    write_manifest(path, "np = 2\nevents_per_rank = 5,7\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
    assert_int_equal(pas2p_manifest_check_count(&m, 0, 5, err, sizeof err), 0);
    assert_int_equal(pas2p_manifest_check_count(&m, 1, 6, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank-00001.p2t: truncated: 6 complete events"));
    assert_non_null(strstr(err, "wrote 7"));
    pas2p_manifest_free(&m);

    /* calls counted and timed, not traced: the note names both kinds and the rank that spent
     * the most time in them, with its share of the run; none, no note */
    char note[1024];
    write_manifest(path, "np = 2\naet_s = 2.0\nuntraced = 100,300\nuntraced_s = 0.1,0.05\n"
                         "untraced_io = 4,4\nuntraced_io_s = 0.02,0.5\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
    assert_true(m.untraced[1] == 300 && m.untraced_io[0] == 4 && m.untraced_io_s[1] == 0.5);
    assert_int_equal(pas2p_manifest_untraced_note(&m, note, sizeof note), 1);
    assert_non_null(strstr(note, "400 one-sided (RMA) call(s)"));
    assert_non_null(strstr(note, ") and 8 MPI-IO call(s)"));
    assert_non_null(strstr(note, "rank 1 spent 0.550000 s in them, 27.5 % of the run"));
    pas2p_manifest_free(&m);
    write_manifest(path, "np = 2\naet_s = 1.0\nuntraced = 1,1\nuntraced_io = 2,2\n"
                         "untraced_nbr = 5,5\nuntraced_nbr_s = 0.1,0.2\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
    assert_int_equal(pas2p_manifest_untraced_note(&m, note, sizeof note), 1);
    assert_non_null(strstr(note, "2 one-sided (RMA) call(s) (MPI_Put, MPI_Get, MPI_Accumulate, "
                                 "window synchronisation), 4 MPI-IO call(s) (MPI_File_*) and 10 "
                                 "neighbourhood collective call(s)"));
    assert_non_null(strstr(note, "rank 1 spent 0.200000 s in them, 20.0 % of the run"));
    pas2p_manifest_free(&m);
    write_manifest(path, "np = 2\nuntraced_io = 0,3\n"); /* (no times: an older tracer's) */
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
    assert_int_equal(pas2p_manifest_untraced_note(&m, note, sizeof note), 1);
    assert_true(!strncmp(note, "3 MPI-IO call(s)", 16) && !strstr(note, "spent"));
    pas2p_manifest_free(&m);
    write_manifest(path, "np = 2\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
    assert_int_equal(pas2p_manifest_untraced_note(&m, note, sizeof note), 0);
    assert_string_equal(note, "");
    pas2p_manifest_free(&m);

    /* a large run's per-rank list is a line longer than any fixed buffer (20000 ranks: 160 kB) */
    {
        const int big = 20000;
        size_t cap = (size_t)big * 8 + 64, len = 0;
        char *rest = malloc(cap * 2);
        assert_non_null(rest);
        len += (size_t)snprintf(rest, cap * 2, "np = %d\nevents_per_rank = ", big);
        for (int r = 0; r < big; r++)
            len += (size_t)snprintf(rest + len, cap * 2 - len, "%s%d", r ? "," : "", 1000000 + r);
        snprintf(rest + len, cap * 2 - len, "\ncompute_share = 0.5\n");
        write_manifest(path, rest);
        free(rest);
        assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), 0);
        assert_int_equal(m.np, big);
        assert_true(m.events_per_rank[big - 1] == 1000000 + (uint64_t)big - 1);
        assert_true(m.compute_share[0] == 0.5 && m.compute_share[1] == 1); /* missing: 1 */
        pas2p_manifest_free(&m);
    }

    write_text(path, "format = pas2p-trace\nversion = 99\nnp = 3\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "version 99"));

    write_text(path, "format = something-else\nversion = 1\nnp = 3\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a pas2p trace manifest"));

    write_manifest(path, "np = 0\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "np"));

    write_text(path, "format = pas2p-trace\nthis line has no equals sign\n");
    assert_int_equal(pas2p_manifest_read(f->dir, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, ":2:"));
}

static void test_call_table(void **state)
{
    (void)state;
    assert_string_equal(pas2p_call_name(PAS2P_CALL_Send), "MPI_Send");
    assert_string_equal(pas2p_call_name(PAS2P_CALL_Ialltoallw), "MPI_Ialltoallw");
    assert_null(pas2p_call_name(PAS2P_CALL_LIMIT));
    assert_null(pas2p_call_name(0));
    assert_int_equal(pas2p_call_by_name("MPI_Waitsome"), PAS2P_CALL_Waitsome);
    assert_int_equal(pas2p_call_by_name("cart_sub"), PAS2P_CALL_Cart_sub);
    assert_int_equal(pas2p_call_by_name("MPI_Nonsense"), 0);
    assert_int_equal(pas2p_call_class(PAS2P_CALL_Irecv), PAS2P_CLASS_RECV);
    assert_int_equal(pas2p_call_class(PAS2P_CALL_Testsome), PAS2P_CLASS_COMPLETION);
    assert_int_equal(pas2p_call_class(PAS2P_CALL_Reduce_scatter_block), PAS2P_CLASS_COLLECTIVE);
    assert_int_equal(pas2p_call_class(PAS2P_CALL_Comm_split), PAS2P_CLASS_COMM);
    int n = 0;
    for (unsigned c = 1; c < PAS2P_CALL_LIMIT; c++)
        n += pas2p_call_name(c) != NULL;
    assert_true(n >= 75); /* the issue asks for ~80 calls; the table has them all */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_serial_times, setup, teardown),
        cmocka_unit_test_setup_teardown(test_times_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_recovery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_old_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wild_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_magic_and_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_record, setup, teardown),
        cmocka_unit_test(test_compact),
        cmocka_unit_test_setup_teardown(test_manifest, setup, teardown),
        cmocka_unit_test(test_call_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
