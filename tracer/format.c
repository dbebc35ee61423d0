/* Reading traces: rank files (binary, tracer/FORMAT.md) and the manifest (text).
 * No MPI here: this file is in libpas2p_format, linked by pas2p and the analyzer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pas2p_trace.h"

/* The format is little-endian and records are the C structs as laid out here. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "pas2p traces are little-endian");
_Static_assert(sizeof(pas2p_file_header_t) == 376, "header layout changed: bump the version");
_Static_assert(PAS2P_CALL_LIMIT <= 256, "call ids are stored in one byte");
_Static_assert(sizeof(pas2p_completion_t) == 32, "completion layout changed: bump the version");
_Static_assert(offsetof(pas2p_completion_t, flags) == 14, "completion layout changed: bump the version");

/* the read buffer: 128 kB, so that read()'s copy is still in L2 when it is decoded (1 MB
 * measured ~3 % slower on a halo trace's analysis, which reads each file three times;
 * mapping the file instead was no faster) */
#define CHUNK (1u << 17)
#define MAX_RECORD (1u << 30)
#define MIN_RECORD 5 /* length, call, mask, dt, duration */

struct pas2p_rank_reader {
    int fd;
    char path[PATH_MAX];
    pas2p_file_header_t h;
    unsigned char *buf;
    size_t cap, len, pos;   /* valid bytes buf[pos, len) */
    uint64_t offset;        /* file offset of buf[pos] */
    uint64_t count;
    int eof;
    pas2p_codec_t codec;
    uint64_t hi;            /* the latest t_end so far, any thread (serial_times) */
    int raw;                /* pas2p_rank_reader_raw_times */
    unsigned char known_call[256]; /* call ids of the table: checked per record, inline */
    uint64_t counters[PAS2P_MAX_COUNTERS];
    uint64_t bcounters[PAS2P_READ_BATCH][PAS2P_MAX_COUNTERS]; /* per view of a batch */
    unsigned char *pay;     /* payload copy, aligned for the payload structs */
    size_t paycap;
    char err[512];
};

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && len)
        vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* A trace of another format version is refused with one line naming the file: an older
 * one with what it lacks (so the user knows tracing again is the fix), a newer one with
 * both versions (a newer pas2p wrote it). */
static const char *const missing_in_version[PAS2P_TRACE_VERSION] = {
    [1] = "it does not record wildcard receives (MPI_ANY_SOURCE)",
};

static void version_err(char *err, size_t len, const char *path, uint32_t version)
{
    if (version >= 1 && version < PAS2P_TRACE_VERSION)
        set_err(err, len,
                "%s: trace format version %u is older than this reader's %u: %s; trace the "
                "application again",
                path, version, PAS2P_TRACE_VERSION,
                missing_in_version[version] ? missing_in_version[version] : "its layout differs");
    else
        set_err(err, len, "%s: trace format version %u, this pas2p reads version %u", path,
                version, PAS2P_TRACE_VERSION);
}

void pas2p_header_init(pas2p_file_header_t *h, uint32_t rank, uint32_t np, uint32_t ncounters)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, PAS2P_TRACE_MAGIC, 8);
    h->version = PAS2P_TRACE_VERSION;
    h->header_size = sizeof *h;
    h->rank = rank;
    h->np = np;
    h->ncounters = ncounters;
}

/* make at least `need` bytes available at buf[pos]; returns bytes available */
static size_t fill(pas2p_rank_reader_t *r, size_t need)
{
    if (r->len - r->pos >= need || r->eof)
        return r->len - r->pos;
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
    }
    if (need > r->cap) {
        size_t cap = r->cap;
        while (cap < need)
            cap *= 2;
        unsigned char *b = realloc(r->buf, cap);
        if (!b)
            return r->len - r->pos;
        r->buf = b;
        r->cap = cap;
    }
    while (r->len < need || r->len < r->cap / 2) {
        ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r->eof = 1;
            break;
        }
        r->len += (size_t)n;
        if (r->len >= need && r->len == r->cap)
            break;
    }
    return r->len - r->pos;
}

void pas2p_rank_path(const char *dir, int rank, char *out, size_t outlen)
{
    char name[32];
    snprintf(name, sizeof name, PAS2P_RANK_FILE_FMT, rank);
    snprintf(out, outlen, "%s/%s", dir, name);
}

pas2p_rank_reader_t *pas2p_rank_reader_open(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    pas2p_rank_reader_t *r = calloc(1, sizeof *r);
    if (!r || !(r->buf = malloc(CHUNK))) {
        free(r);
        close(fd);
        set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    r->fd = fd;
    r->cap = CHUNK;
    snprintf(r->path, sizeof r->path, "%s", path);
    size_t have = fill(r, sizeof r->h);
    if (have < 8 || memcmp(r->buf, PAS2P_TRACE_MAGIC, 8)) {
        set_err(err, errlen, "%s: not a pas2p trace file (bad magic)", path);
        goto fail;
    }
    if (have < 12) {
        set_err(err, errlen, "%s: truncated header", path);
        goto fail;
    }
    uint32_t version;
    memcpy(&version, r->buf + 8, 4);
    if (version != PAS2P_TRACE_VERSION) {
        version_err(err, errlen, path, version);
        goto fail;
    }
    if (have < sizeof r->h) {
        set_err(err, errlen, "%s: truncated header (%zu of %zu bytes)", path, have, sizeof r->h);
        goto fail;
    }
    memcpy(&r->h, r->buf, sizeof r->h);
    if (r->h.header_size < sizeof r->h || r->h.header_size > 65536 || r->h.header_size % 8 ||
        r->h.ncounters > PAS2P_MAX_COUNTERS || r->h.np == 0 || r->h.rank >= r->h.np) {
        set_err(err, errlen, "%s: corrupt header", path);
        goto fail;
    }
    r->h.host[PAS2P_HOST_LEN - 1] = 0;
    for (int i = 0; i < PAS2P_MAX_COUNTERS; i++)
        r->h.counters[i][PAS2P_COUNTER_NAME_LEN - 1] = 0;
    if (fill(r, r->h.header_size) < r->h.header_size) {
        set_err(err, errlen, "%s: truncated header", path);
        goto fail;
    }
    r->pos = r->h.header_size;
    r->offset = r->h.header_size;
    r->codec.prev_end = 0;
    r->codec.prev_comm = PAS2P_COMM_WORLD;
    for (unsigned c = 1; c < 256; c++)
        r->known_call[c] = pas2p_call_name(c) != NULL;
    return r;
fail:
    pas2p_rank_reader_close(r);
    return NULL;
}

const pas2p_file_header_t *pas2p_rank_reader_header(const pas2p_rank_reader_t *r)
{
    return &r->h;
}

/* varint at *p (not past end); -1 if it runs past end or is longer than 10 bytes */
static inline int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    if (*p < end && !(**p & 0x80)) { /* one byte: most fields */
        *v = *(*p)++;
        return 0;
    }
    uint64_t x = 0;
    for (int shift = 0; shift < 70 && *p < end; shift += 7) {
        unsigned char b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

static inline int32_t unzigzag32(uint64_t v)
{
    return (int32_t)(int64_t)((v >> 1) ^ (~(v & 1) + 1));
}

static int corrupt(pas2p_rank_reader_t *r)
{
    set_err(r->err, sizeof r->err, "%s: corrupt record at byte %llu (after %llu complete events)",
            base_name(r->path), (unsigned long long)r->offset, (unsigned long long)r->count);
    return -1;
}

/* Field readers of decode().  With `fast` the record has at least SLACK readable bytes
 * after it in the buffer, so the one- and two-byte cases read without a bounds test: a
 * field that runs past `end` is caught by the final q == end - payload test (longer
 * varints go through get_varint, bounded by `end`, which fails once q is past it). */
#define SLACK 64
/* one varint field into dst (any integer type); corrupt record if it runs past `end` */
#define GET(dst)                                                                               \
    do {                                                                                       \
        if ((fast || end - q >= 2) && q[0] < 0x80) { /* one byte: most fields */             \
            (dst) = *q++;                                                                      \
        } else if ((fast || end - q >= 2) && q[1] < 0x80) { /* two: most time deltas */      \
            (dst) = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;                             \
            q += 2;                                                                            \
        } else {                                                                               \
            uint64_t v_;                                                                       \
            if (get_varint(&q, end, &v_))                                                      \
                return corrupt(r);                                                             \
            (dst) = v_;                                                                        \
        }                                                                                      \
    } while (0)

/* skips one varint field */
#define SKIP()                                                                                 \
    do {                                                                                       \
        if ((fast || q < end) && *q < 0x80) {                                                  \
            q++;                                                                               \
        } else {                                                                               \
            uint64_t v_;                                                                       \
            if (get_varint(&q, end, &v_))                                                      \
                return corrupt(r);                                                             \
        }                                                                                      \
    } while (0)

/* Decodes the record at p (len bytes, all in the buffer).  The hot path of every reader:
 * fields go straight to *out (few live registers), one- and two-byte varints take no
 * call.  full = 0: times only (pas2p_rank_reader_next_times); fast: see GET.  Both are
 * constants, so each caller gets its own specialisation. */
/* A rank's events as one timeline, whatever thread made them.  Each thread's compute_ns is
 * the time since that thread's own previous call, so when several threads call MPI (under
 * MPI_THREAD_MULTIPLE; or, erroneously but in practice, under a lower level: MolDS sends
 * and receives from Boost threads while its main thread computes) their intervals overlap,
 * and the analysis, which adds computation and call times, counted the overlap twice (181 %
 * of MolDS's run).  Read in file order (the order the calls ended in), each event's
 * computation is what elapsed since the latest end of any earlier event, and its call time
 * what it adds beyond that: the sum over a rank's events is its elapsed time, as with one
 * thread.  With one thread (every event starts its compute_ns after the previous end) this
 * changes nothing: the first event keeps its own. */
static inline void serial_times(pas2p_rank_reader_t *r, pas2p_event_t *e)
{
    uint64_t hi = r->hi;
    if (r->raw)
        return;
    if (hi) { /* (a thread's first call has compute_ns 0: its gap is the same) */
        e->compute_ns = e->t_start > hi ? e->t_start - hi : 0;
        if (e->t_start < hi) {
            e->t_start = hi;
            if (e->t_end < hi)
                e->t_end = hi;
        }
    }
    if (e->t_end > hi)
        r->hi = e->t_end;
}

void pas2p_rank_reader_raw_times(pas2p_rank_reader_t *r, int raw)
{
    r->raw = raw;
}

static inline __attribute__((always_inline)) int decode(pas2p_rank_reader_t *r,
                                                        const unsigned char *p, uint32_t len,
                                                        pas2p_event_view_t *out, uint64_t *ctr,
                                                        const int full, const int fast)
{
    const unsigned char *end = p + len, *q = p + (p[0] == 0xff ? 5 : 1);
    uint64_t dt, dur, paylen = 0;
    pas2p_event_t *e = &out->ev;
    unsigned call = q[0], mask = q[1];
    q += 2;
    if (!r->known_call[call])
        return corrupt(r);
    GET(dt);
    GET(dur);
    uint64_t sdt = (dt >> 1) ^ (~(dt & 1) + 1); /* zigzag-decoded, two's complement */
    uint64_t compute = sdt;  /* unless the extension says otherwise (other threads) */
    uint32_t comm = r->codec.prev_comm;
    e->peer = e->tag = e->peer2 = e->tag2 = -1;
    e->bytes = e->rbytes = 0;
    if (!full) {
        if (mask & PAS2P_F_PEER)
            SKIP();
        if (mask & PAS2P_F_TAG)
            SKIP();
    } else {
        uint64_t z;
        if (mask & PAS2P_F_PEER) {
            GET(z);
            e->peer = unzigzag32(z);
        }
        if (mask & PAS2P_F_TAG) {
            GET(z);
            e->tag = unzigzag32(z);
        }
    }
    if (mask & PAS2P_F_COMM) {
        if (!fast && end - q < 4)
            return corrupt(r);
        memcpy(&comm, q, 4);
        q += 4;
    }
    if (!full) {
        if (mask & (PAS2P_F_BYTES | PAS2P_F_RBYTES | PAS2P_F_PEER2)) {
            if (mask & PAS2P_F_BYTES)
                SKIP();
            if (mask & PAS2P_F_RBYTES)
                SKIP();
            if (mask & PAS2P_F_PEER2) {
                SKIP();
                SKIP();
            }
        }
    } else if (mask & (PAS2P_F_BYTES | PAS2P_F_RBYTES | PAS2P_F_PEER2)) {
        if (mask & PAS2P_F_BYTES)
            GET(e->bytes);
        if (mask & PAS2P_F_RBYTES)
            GET(e->rbytes);
        if (mask & PAS2P_F_PEER2) {
            uint64_t zpeer2, ztag2;
            GET(zpeer2);
            GET(ztag2);
            e->peer2 = unzigzag32(zpeer2);
            e->tag2 = unzigzag32(ztag2);
        }
    }
    e->flags = 0;
    e->aux = e->thread = 0;
    if (mask & PAS2P_F_EXT) {
        uint64_t v;
        if (!fast && q >= end)
            return corrupt(r);
        unsigned x = *q++;
        if (x & PAS2P_X_FLAGS) {
            GET(v);
            if (v > 0xffff)
                return corrupt(r);
            e->flags = (uint16_t)v;
        }
        if (x & PAS2P_X_AUX) {
            GET(v);
            if (v > 0xffffffffu)
                return corrupt(r);
            e->aux = (uint32_t)v;
        }
        if (x & PAS2P_X_THREAD) {
            GET(v);
            if (v > 0xffffffffu)
                return corrupt(r);
            e->thread = (uint32_t)v;
        }
        if (x & PAS2P_X_PAYLOAD)
            GET(paylen);
        if (x & PAS2P_X_COMPUTE)
            GET(compute);
    }
    out->counters = NULL;
    if (mask & PAS2P_F_COUNTERS) {
        for (uint32_t i = 0; i < r->h.ncounters; i++)
            GET(ctr[i]);
        out->counters = ctr;
    }
    if ((fast && q > end) || paylen != (uint64_t)(end - q))
        return corrupt(r);
    out->payload = NULL;
    if (paylen && full) {
        if (paylen > r->paycap) {
            unsigned char *np = realloc(r->pay, paylen);
            if (!np)
                return corrupt(r);
            r->pay = np;
            r->paycap = paylen;
        }
        memcpy(r->pay, q, paylen);
        out->payload = r->pay;
    }
    uint64_t t_start = r->codec.prev_end + sdt;
    e->size = len;
    e->call = (uint16_t)call;
    e->comm = comm;
    e->t_start = t_start;
    e->t_end = t_start + dur;
    e->compute_ns = compute;
    serial_times(r, e);
    e->payload = full ? (uint32_t)paylen : 0; /* times only: no payload copied, say so */
    r->codec.prev_end = t_start + dur;
    r->codec.prev_comm = comm;
    out->ordinal = r->count++;
    r->pos += len;
    r->offset += len;
    return 1;
}
#undef GET
#undef SKIP

/* a record of up to this many bytes with a one-byte length is decoded without refilling
 * and without bounds tests on its fields (SLACK bytes after the longest one) */
#define FAST_AVAIL (255 + SLACK)

static inline __attribute__((always_inline)) int reader_next(pas2p_rank_reader_t *r,
                                                             pas2p_event_view_t *out, uint64_t *ctr,
                                                             const int full)
{
    const unsigned char *p = r->buf + r->pos;
    if (r->len - r->pos >= FAST_AVAIL && p[0] != 0xff) { /* the common case */
        if (p[0] < MIN_RECORD)
            return corrupt(r);
        return decode(r, p, p[0], out, ctr, full, 1);
    }
    size_t have = fill(r, 5);
    if (have == 0)
        return 0;
    p = r->buf + r->pos;
    uint32_t len = p[0];
    if (len == 0xff) {
        if (have < 5)
            goto truncated;
        memcpy(&len, p + 1, 4);
    }
    if (len < MIN_RECORD || len > MAX_RECORD)
        return corrupt(r);
    if (fill(r, len) < len)
        goto truncated;
    return decode(r, r->buf + r->pos, len, out, ctr, full, 0);
truncated:
    set_err(r->err, sizeof r->err, "%s: truncated: %llu complete events, then %zu bytes of an "
            "incomplete record", base_name(r->path), (unsigned long long)r->count,
            r->len - r->pos);
    return -1;
}

int pas2p_rank_reader_next(pas2p_rank_reader_t *r, pas2p_event_view_t *out)
{
    return reader_next(r, out, r->counters, 1);
}

int pas2p_rank_reader_next_times(pas2p_rank_reader_t *r, pas2p_event_view_t *out)
{
    return reader_next(r, out, r->counters, 0);
}

/* up to max events, each view with counters of its own; a batch ends after an event with a
 * payload (one payload buffer).  A failing record leaves the reader where it was, so the
 * error is returned by the next call when events came before it. */
static inline __attribute__((always_inline)) int reader_batch(pas2p_rank_reader_t *r,
                                                              pas2p_event_view_t *out, int max,
                                                              const int full)
{
    int n = 0;
    while (n < max) {
        int rc = reader_next(r, &out[n], r->bcounters[n], full);
        if (rc != 1)
            return n ? n : rc;
        if (full && out[n++].payload)
            break;
        n += !full;
    }
    return n;
}

int pas2p_rank_reader_next_times_batch(pas2p_rank_reader_t *r, pas2p_event_times_t *out, int max)
{
    if (max > PAS2P_READ_BATCH)
        max = PAS2P_READ_BATCH;
    int n = 0;
    while (n < max) {
        pas2p_event_view_t v; /* a local: the compiler drops what is not copied below */
        uint64_t ctr[PAS2P_MAX_COUNTERS];
        int rc = reader_next(r, &v, ctr, 0);
        if (rc != 1)
            return n ? n : rc;
        out[n++] = (pas2p_event_times_t){.ordinal = v.ordinal, .compute_ns = v.ev.compute_ns,
                                         .t_start = v.ev.t_start, .t_end = v.ev.t_end,
                                         .counter0 = v.counters && r->h.ncounters ? ctr[0] : 0,
                                         .call = v.ev.call, .flags = (uint16_t)v.ev.flags,
                                         .aux = v.ev.aux};
    }
    return n;
}

int pas2p_rank_reader_next_batch(pas2p_rank_reader_t *r, pas2p_event_view_t *out, int max,
                                 int times_only)
{
    if (max > PAS2P_READ_BATCH)
        max = PAS2P_READ_BATCH;
    return times_only ? reader_batch(r, out, max, 0) : reader_batch(r, out, max, 1);
}

const char *pas2p_rank_reader_error(const pas2p_rank_reader_t *r)
{
    return r->err;
}

uint64_t pas2p_rank_reader_count(const pas2p_rank_reader_t *r)
{
    return r->count;
}

void pas2p_rank_reader_close(pas2p_rank_reader_t *r)
{
    if (!r)
        return;
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
    free(r->pay);
    free(r);
}

int pas2p_mkdir_p(const char *dir)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* ------------------------------------------------------------------ manifest */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* The manifest's per-rank lists (comma-separated, rank order): each key, the array of np
 * entries it fills (uint64_t or double: both 8 bytes), and for values the range (0, max]
 * and the default of a missing or outside entry. */
typedef struct {
    const char *key;
    size_t off;
    int dbl;
    double max, dflt;
} list_key_t;
#define LIST_U64(k, f) {k, offsetof(pas2p_manifest_t, f), 0, 0, 0}
#define LIST_DBL(k, f, mx, d) {k, offsetof(pas2p_manifest_t, f), 1, mx, d}
static const list_key_t list_keys[] = {
    LIST_U64("events_per_rank", events_per_rank),
    LIST_DBL("kernel_rate", kernel_rate, 1e15, 0),
    LIST_DBL("compute_share", compute_share, 1, 1),
    LIST_DBL("compute_blocked", compute_blocked, 1, 0),
    LIST_U64("untraced", untraced),
    LIST_DBL("untraced_s", untraced_s, 1e9, 0),
    LIST_U64("untraced_io", untraced_io),
    LIST_DBL("untraced_io_s", untraced_io_s, 1e9, 0),
    LIST_U64("untraced_nbr", untraced_nbr),
    LIST_DBL("untraced_nbr_s", untraced_nbr_s, 1e9, 0),
    LIST_U64("threads", threads),
};
#define NLISTS (sizeof list_keys / sizeof *list_keys)

static void **list_slot(pas2p_manifest_t *m, size_t i)
{
    return (void **)((char *)m + list_keys[i].off);
}

uint32_t pas2p_manifest_mpi_threads(const pas2p_manifest_t *m)
{
    uint64_t most = 0;
    for (int r = 0; m->threads && !strcmp(m->thread_level, "MPI_THREAD_MULTIPLE") && r < m->np; r++)
        if (m->threads[r] > most)
            most = m->threads[r];
    return most > UINT32_MAX ? UINT32_MAX : (uint32_t)most;
}

void pas2p_manifest_free(pas2p_manifest_t *m)
{
    if (m->hosts) {
        for (int i = 0; i < m->np; i++)
            free(m->hosts[i]);
        free(m->hosts);
    }
    m->hosts = NULL;
    for (size_t i = 0; i < NLISTS; i++) {
        free(*list_slot(m, i));
        *list_slot(m, i) = NULL;
    }
}

/* a manifest's comma-separated per-rank list (rank order) into out[0..n): counts; entries
 * the list does not have stay as they are */
static void list_u64(char *s, uint64_t *out, int n)
{
    char *save = NULL, *tok = strtok_r(s, ",", &save);
    for (int i = 0; i < n && tok; i++, tok = strtok_r(NULL, ",", &save))
        out[i] = strtoull(tok, NULL, 10);
}

/* the same for values in (0, max]; an entry that is missing or outside is dflt */
static void list_double(char *s, double *out, int n, double max, double dflt)
{
    char *save = NULL, *tok = strtok_r(s, ",", &save);
    for (int i = 0; i < n; i++) {
        double v = tok ? strtod(tok, NULL) : dflt;
        out[i] = v > 0 && v <= max ? v : dflt;
        if (tok)
            tok = strtok_r(NULL, ",", &save);
    }
}

/* 1 (err set) when processes of the traced run were started by MPI_Comm_spawn
 * (PAS2P_SPAWNED in the directory) */
static int spawned(const char *dir, char *err, size_t errlen)
{
    char path[PATH_MAX], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, PAS2P_SPAWNED);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned n = 0;
    char first[512] = "";
    while (fgets(line, sizeof line, f))
        if (strchr(line, '\n') && n++ == 0)
            snprintf(first, sizeof first, "%s", line);
    fclose(f);
    first[strcspn(first, "\n")] = 0;
    const char *cmd = strchr(first, ' ');
    set_err(err, errlen, "%s: the traced run started %u more process(es) with MPI_Comm_spawn "
            "(the first: %.200s), which are another MPI_COMM_WORLD and were not traced: pas2p "
            "models the processes mpirun starts -- start them all with it (mpirun -np 1 MANAGER "
            ": -np N WORKER, if the program can run so)", dir, n ? n : 1, cmd ? cmd + 1 : "?");
    return 1;
}

int pas2p_manifest_read(const char *dir, pas2p_manifest_t *m, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, PAS2P_MANIFEST);
    memset(m, 0, sizeof *m);
    if (spawned(dir, err, errlen))
        return -1;
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, errlen, "%s: cannot open: %s%s", path, strerror(errno),
                errno == ENOENT ? " (not a trace directory, or the run did not reach MPI_Finalize)"
                                : "");
        return -1;
    }
    /* lines of any length (a per-rank list of a large run is long); the lists kept as
     * text until np is known */
    char *line = NULL, *hosts = NULL, *lists[NLISTS] = {0};
    size_t cap = 0;
    int lineno = 0, have_format = 0, have_version = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            set_err(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            goto fail;
        }
        *eq = 0;
        char *k = trim(s), *v = trim(eq + 1);
        if (!strcmp(k, "format")) {
            if (strcmp(v, "pas2p-trace")) {
                set_err(err, errlen, "%s: not a pas2p trace manifest (format = %s)", path, v);
                goto fail;
            }
            have_format = 1;
        } else if (!strcmp(k, "version")) {
            m->version = (uint32_t)strtoul(v, NULL, 10);
            have_version = 1;
        } else if (!strcmp(k, "np")) {
            m->np = atoi(v);
        } else if (!strcmp(k, "command")) {
            snprintf(m->command, sizeof m->command, "%s", v);
        } else if (!strcmp(k, "program")) {
            snprintf(m->program, sizeof m->program, "%s", v);
        } else if (!strcmp(k, "tracer")) {
            snprintf(m->tracer, sizeof m->tracer, "%s", v);
        } else if (!strcmp(k, "counters")) {
            snprintf(m->counters, sizeof m->counters, "%s", v);
        } else if (!strcmp(k, "thread_level")) {
            snprintf(m->thread_level, sizeof m->thread_level, "%s", v);
        } else if (!strcmp(k, "events_locking")) {
            snprintf(m->events_locking, sizeof m->events_locking, "%s", v);
        } else if (!strcmp(k, "hosts")) {
            free(hosts);
            if (!(hosts = strdup(v)))
                goto oom;
        } else if (!strcmp(k, "clock_resolution_ns")) {
            m->clock_res_ns = strtoull(v, NULL, 10);
        } else if (!strcmp(k, "aet_s")) {
            m->aet_s = strtod(v, NULL);
        } else if (!strcmp(k, "events")) {
            m->events = strtoull(v, NULL, 10);
        } else if (!strcmp(k, "complete")) {
            m->complete = !strcmp(v, "yes");
        } else if (!strcmp(k, "waits_tested")) {
            m->waits_tested = !strcmp(v, "1");
        } else {
            for (size_t i = 0; i < NLISTS; i++)
                if (!strcmp(k, list_keys[i].key)) {
                    free(lists[i]);
                    if (!(lists[i] = strdup(v)))
                        goto oom;
                }
        } /* unknown keys are ignored: later minor versions may add some */
    }
    fclose(f);
    f = NULL;
    if (!have_format) {
        set_err(err, errlen, "%s: not a pas2p trace manifest (no 'format' line)", path);
        goto fail;
    }
    if (!have_version || m->version != PAS2P_TRACE_VERSION) {
        version_err(err, errlen, path, m->version);
        goto fail;
    }
    if (m->np <= 0 || m->np > (1 << 24)) {
        set_err(err, errlen, "%s: bad or missing np", path);
        goto fail;
    }
    m->hosts = calloc((size_t)m->np, sizeof *m->hosts);
    if (!m->hosts)
        goto oom;
    for (size_t i = 0; i < NLISTS; i++)
        if (!(*list_slot(m, i) = calloc((size_t)m->np, 8)))
            goto oom;
    char *save = NULL, *tok = hosts ? strtok_r(hosts, ",", &save) : NULL;
    for (int i = 0; i < m->np; i++) {
        if (!(m->hosts[i] = strdup(tok ? tok : "?")))
            goto oom;
        if (tok)
            tok = strtok_r(NULL, ",", &save);
    }
    for (size_t i = 0; i < NLISTS; i++) {
        const list_key_t *L = &list_keys[i];
        if (L->dbl)
            list_double(lists[i] ? lists[i] : (char[]){""}, *list_slot(m, i), m->np, L->max,
                        L->dflt);
        else if (lists[i])
            list_u64(lists[i], *list_slot(m, i), m->np);
    }
    free(line);
    free(hosts);
    for (size_t i = 0; i < NLISTS; i++)
        free(lists[i]);
    return 0;
oom:
    set_err(err, errlen, "%s: out of memory", path);
fail:
    if (f)
        fclose(f);
    free(line);
    free(hosts);
    for (size_t i = 0; i < NLISTS; i++)
        free(lists[i]);
    pas2p_manifest_free(m);
    return -1;
}

/* (NWChem traced beside other jobs: shares 0.55-0.69, and a simulate with the kernel
 * calibration then predicted an idle machine, -32 %) */
int pas2p_manifest_shared_note(const pas2p_manifest_t *m, char *out, size_t len)
{
    if (len)
        out[0] = 0;
    int low = 0;
    for (int r = 1; m->compute_share && r < m->np; r++)
        if (m->compute_share[r] < m->compute_share[low])
            low = r;
    if (!m->compute_share || m->np < 1 || m->compute_share[low] >= 0.9)
        return 0;
    double b = m->compute_blocked ? m->compute_blocked[low] : 0;
    /* most of the time off the CPU was its own waiting, not waiting for a core (the run-queue
     * wait is the whole run's, and on a loaded machine MPI's busy polls add to it) */
    if (b > 0 && b >= 0.5 * (1 - m->compute_share[low]))
        snprintf(out, len, "rank %d computed on %.0f %% of a core (the least of the ranks) and "
                 "was blocked off the CPU for %.0f %% of its computation's time (I/O, a child "
                 "process, sleep): replay and simulate with kernel speeds keep that time as "
                 "waiting, not as work a faster CPU shortens",
                 low, 100 * m->compute_share[low], 100 * b);
    else
        snprintf(out, len, "rank %d computed on %.0f %% of a core (the least of the ranks): the "
                 "machine was shared while tracing (other jobs, more ranks than cores)%s; the "
                 "trace's times and kernel speeds carry it, so simulate and replay start from a "
                 "slower base",
                 low, 100 * m->compute_share[low],
                 b > 0 ? ", and the computation was also blocked off the CPU at times" :
                         " or its computation waited off the CPU (I/O, sleep)");
    return 1;
}

int pas2p_manifest_untraced_note(const pas2p_manifest_t *m, char *out, size_t len)
{
    /* the kinds: their counts and times per rank, and how the note names them */
    const uint64_t *cnt[3] = {m->untraced, m->untraced_io, m->untraced_nbr};
    const double *sec[3] = {m->untraced_s, m->untraced_io_s, m->untraced_nbr_s};
    static const char *const what_of[3] = {
        "one-sided (RMA) call(s) (MPI_Put, MPI_Get, MPI_Accumulate, window synchronisation)",
        "MPI-IO call(s) (MPI_File_*)",
        "neighbourhood collective call(s) (MPI_Neighbor_*, MPI_Ineighbor_*)"};
    unsigned long long n[3] = {0, 0, 0};
    int most = 0; /* the rank that spent the most time in them */
    double tmost = -1;
    for (int r = 0; r < m->np; r++) {
        double t = 0;
        for (int k = 0; k < 3; k++) {
            n[k] += cnt[k] ? cnt[k][r] : 0;
            t += sec[k] ? sec[k][r] : 0;
        }
        if (t > tmost) {
            tmost = t;
            most = r;
        }
    }
    if (len)
        out[0] = 0;
    int kinds = (n[0] > 0) + (n[1] > 0) + (n[2] > 0);
    if (!kinds)
        return 0;
    char what[600] = "", when[200] = "";
    for (int k = 0, said = 0; k < 3; k++) {
        if (!n[k])
            continue;
        size_t l = strlen(what);
        snprintf(what + l, sizeof what - l, "%s%llu %s", !said ? "" : said + 1 == kinds ? " and " : ", ",
                 n[k], what_of[k]);
        said++;
    }
    if (tmost > 0 && m->aet_s > 0)
        snprintf(when, sizeof when, "; rank %d spent %.6f s in them, %.1f %% of the run", most,
                 tmost, 100 * tmost / m->aet_s);
    else if (tmost > 0)
        snprintf(when, sizeof when, "; rank %d spent %.6f s in them", most, tmost);
    snprintf(out, len, "%s were made and are not traced: the data they move and the time they "
             "take count as computation, which replay, simulate and what-ifs replay as such%s",
             what, when);
    return 1;
}

int pas2p_manifest_check_count(const pas2p_manifest_t *m, int rank, uint64_t n, char *err,
                               size_t errlen)
{
    if (!m->events_per_rank || rank < 0 || rank >= m->np || m->events_per_rank[rank] == n)
        return 0;
    char name[32];
    snprintf(name, sizeof name, PAS2P_RANK_FILE_FMT, rank);
    set_err(err, errlen, "%s: truncated: %llu complete events, the manifest says the rank wrote %llu",
            name, (unsigned long long)n, (unsigned long long)m->events_per_rank[rank]);
    return -1;
}

/* ------------------------------------------------------------------ payload views */
int pas2p_event_comm_def(const pas2p_event_view_t *v, pas2p_comm_view_t *out)
{
    const pas2p_event_t *e = &v->ev;
    if (pas2p_call_class(e->call) != PAS2P_CLASS_COMM || e->call == PAS2P_CALL_Comm_free ||
        !v->payload || e->aux == PAS2P_COMM_NONE || e->payload < sizeof(pas2p_comm_def_t))
        return 0;
    const pas2p_comm_def_t *d = v->payload;
    if (sizeof *d + 4 * ((size_t)d->size + 3 * (size_t)d->ndims) > e->payload)
        return 0;
    const int32_t *w = (const int32_t *)(d + 1);
    *out = (pas2p_comm_view_t){.id = e->aux, .size = d->size, .ndims = d->ndims, .members = w};
    if (d->ndims) {
        out->dims = w + d->size;
        out->periods = out->dims + d->ndims;
        out->coords = out->periods + d->ndims;
    }
    return 1;
}

const pas2p_completion_t *pas2p_event_completions(const pas2p_event_view_t *v, uint32_t *n)
{
    int k = pas2p_call_class(v->ev.call);
    *n = 0;
    if (k != PAS2P_CLASS_COMPLETION || !v->payload)
        return NULL;
    size_t fit = v->ev.payload / sizeof(pas2p_completion_t);
    *n = v->ev.aux < fit ? v->ev.aux : (uint32_t)fit;
    return *n ? v->payload : NULL;
}
