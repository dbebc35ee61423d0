/* libpas2p runtime: internal to the tracer module (the generated wrappers, runtime.c and
 * record.c).  Other modules read traces through pas2p_trace.h, never through this file.
 *
 * Hot path of every intercepted call (see gen_wrappers.py for the exact shape):
 *   pas2p_pre()    t0 (and counters)               one rdtsc (clock_gettime without TSC)
 *   PMPI_Xxx()
 *   pas2p_post()   t1, lock if MPI_THREAD_MULTIPLE one rdtsc
 *   rec_xxx()      fills the event (peer translation, bytes, requests)
 *   pas2p_commit() converts ticks to ns, encodes the record into the rank's buffer (the
 *                  trace writer, inlined; with a loaded sink, pas2p_sink.h, one indirect
 *                  call to it instead: the test of which is the one load and branch that
 *                  signature mode always cost here)
 *   pas2p_release()
 *
 * Output: records are encoded compactly (pas2p_record_encode, 10-20 bytes typically) into
 * a small buffer (256 KiB: it stays in cache) that is written with write(2) when full, at
 * MPI_Finalize, on MPI_Abort and on SIGTERM/SIGINT (the handler writes the committed part:
 * rt.used is only advanced once a record is complete).  Measured here, this costs 3-4x
 * less per event than writing through an mmap'd window (page faults and zero-fill).
 *
 * Clock: the invariant TSC when the kernel itself uses it as clocksource, converted to
 * CLOCK_MONOTONIC nanoseconds with a rate calibrated across MPI_Init (>= 2 ms baseline)
 * and refined at every buffer flush; otherwise clock_gettime(CLOCK_MONOTONIC).
 *
 * The process-wide state (output buffer, clock, communicator and request tables) lives in
 * pas2p_rt and a few statics of runtime.c (file header, counter names, saved signal
 * handlers), and the sink chosen at MPI_Init (pas2p_rt.sink, its state and host): the
 * interposition layer is the only place with global mutable state.
 */
#ifndef PAS2P_RT_H
#define PAS2P_RT_H

#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PAS2P_HAVE_TSC 1
#endif

#include "pas2p_sink.h"
#include "pas2p_trace.h"

#define PAS2P_LANG_C 0
#define PAS2P_LANG_F 1
#define PAS2P_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define PAS2P_INLINE_REQS 16
#define PAS2P_WARMUP_DEFAULT_MS 150 /* runtime.c: warm_up_begin (PAS2P_WARMUP_MS) */
#define PAS2P_SHARE_GAP_NS 1000000ull /* compute share: one sample per ms on average, */
#define PAS2P_SHARE_BURST 64            /* and up to this many in a row */

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER must be a C int");
_Static_assert(sizeof(pas2p_event_t) == 80, "event record layout changed: bump the format");

enum { PAS2P_SLOW_LOCKED = 1, PAS2P_SLOW_SNAP = 2, PAS2P_SLOW_STATUS = 4 };

/* per-thread state */
typedef struct pas2p_thr {
    uint64_t last_end_ns;               /* t_end of this thread's previous record (ns) */
    uint32_t index;                     /* 0 = thread that initialised MPI */
    long long ctr_last[PAS2P_MAX_COUNTERS]; /* counter values when the previous call returned */
    unsigned char *pay;                 /* payload scratch */
    size_t paycap;
    /* compute share (main thread only, runtime.c): the thread's CPU time over the wall
     * time of sampled compute intervals, one sample per PAS2P_SHARE_GAP_NS on average */
    uint64_t share_next;                /* ticks: the exit that opens a sample; UINT64_MAX never */
    uint64_t share_spent;               /* ticks: the sampling budget spent up to here */
    uint64_t share_cpu0, share_wall0;   /* ns when the open sample began; wall0 0 = none open */
    uint64_t share_pcpu0;               /* the process's CPU ns then (all its threads) */
    uint64_t share_cpu, share_wall;     /* ns summed over closed samples */
    uint64_t share_pcpu;                /* the process's CPU ns over the same samples */
} pas2p_thr_t;

/* one intercepted call in flight (on the wrapper's stack) */
typedef struct {
    pas2p_thr_t *th;
    uint64_t t0, t1, ordinal;
    pas2p_event_t ev;
    uint64_t ctr[PAS2P_MAX_COUNTERS];
    size_t paylen;
    int lang;
    bool counted;
    unsigned slow;                      /* PAS2P_SLOW_*: what pas2p_release must undo */
    int nsnap;                          /* requests captured before the call */
    MPI_Request *snap;
    MPI_Request snap_inline[PAS2P_INLINE_REQS];
    void *heap_status;                  /* scratch statuses for *_STATUSES_IGNORE */
    MPI_Status st_inline[PAS2P_INLINE_REQS];
    MPI_Comm freed_handle;              /* Comm_free: the handle before the call */
    MPI_Comm m_comm;                    /* Mrecv, Imrecv: what the message's Mprobe asked */
    int m_source, m_tag;
} pas2p_cx_t;

/* process state (runtime.c) */
struct pas2p_comm;
struct pas2p_req;
/* the kinds of calls the trace counts and times but does not record (mpi_calls.tbl) */
enum { PAS2P_UNTRACED_RMA, PAS2P_UNTRACED_IO, PAS2P_UNTRACED_NBR, PAS2P_UNTRACED_KINDS };

#define PAS2P_GROUP_KEYS 1024 /* MPI_Comm_create_group communicators told apart (record.c) */
#define PAS2P_MESSAGES 256    /* matched-probe messages held at once (record.c) */

typedef struct {
    volatile int active;                /* recording events */
    int started;                        /* MPI initialised and set up (even if not recording) */
    int rank, np, thread_level, use_lock, ncounters, papi_set;
    int fd;
    /* output buffer: buf[written, used) is committed and not yet written to the file */
    unsigned char *buf;
    size_t cap;
    size_t used;                        /* atomic: read by the signal handler */
    size_t written;                     /* atomic */
    pas2p_codec_t codec;
    uint64_t nevents;
    /* clock: ns = anchor_ns + (tick - anchor_tick) * mult / 2^32 */
    int tsc;
    uint64_t anchor_tick, anchor_ns, mult;
    uint64_t cal_tsc0, cal_ns0;         /* sampled just before PMPI_Init */
    uint64_t share_gap_ticks;           /* PAS2P_SHARE_GAP_NS in ticks */
    uint64_t t_init;                    /* ns, MPI_Init returned */
    uint64_t runq0_ns;                  /* the main thread's run-queue wait then (ns) ... */
    int runq_ok;                        /* ... when /proc/thread-self/schedstat could say */
    uint64_t prunq0_ns;                 /* the process's threads' then (ns) ... */
    int prunq_ok;                       /* ... when /proc/self/task/N/schedstat could say */
    pthread_mutex_t lock;
    uint32_t nthreads;
    /* communicator table: open addressing keyed by handle */
    struct pas2p_comm *comms;
    size_t ncomms, comm_cap;
    /* request table: open addressing keyed by handle, backward-shift deletion */
    struct pas2p_req *reqs;
    size_t nreqs, req_cap;
    int write_failed;
    char dir[4096], path[4096 + 32];
    /* the sink chosen at MPI_Init (pas2p_sink.h): NULL is the trace writer; else a loaded
     * one (signature mode), which gets the events instead and writes no trace */
    const pas2p_sink_t *sink;
    void *sink_state;
    pas2p_sink_host_t sink_host;
    uint64_t msg_sent, msg_recvd;       /* point-to-point messages counted by record.c */
    uint64_t reqs_active;               /* non-blocking operations started, not completed */
    uint64_t group_keys[PAS2P_GROUP_KEYS];         /* MPI_Comm_create_group's communicators
                                                      so far (membership and tag), under the
                                                      event lock (record.c) */
    uint32_t ngroup_keys;
    struct {                                        /* matched probes' messages not received
                                                      yet: what the Mprobe asked (record.c) */
        MPI_Message h;
        MPI_Comm comm;
        int source, tag;
    } msgs[PAS2P_MESSAGES];
    uint32_t nmsgs;
    uint64_t untraced[PAS2P_UNTRACED_KINDS];       /* atomic: calls of the table's untraced
                                                      section made while recording, by kind */
    uint64_t untraced_ticks[PAS2P_UNTRACED_KINDS]; /* atomic: the time they took, in
                                                      pas2p_ticks() units */
} pas2p_rt_t;

extern pas2p_rt_t pas2p_rt;

/* ---- clock */
static inline uint64_t pas2p_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* raw timestamp: TSC ticks, or ns when the TSC is not used */
static inline uint64_t pas2p_ticks(void)
{
#ifdef PAS2P_HAVE_TSC
    if (__builtin_expect(pas2p_rt.tsc, 1))
        return __rdtsc();
#endif
    return pas2p_mono_ns();
}

static inline uint64_t pas2p_tick_ns(uint64_t t)
{
    __int128 d = (__int128)(int64_t)(t - pas2p_rt.anchor_tick) * (__int128)pas2p_rt.mult;
    return pas2p_rt.anchor_ns + (uint64_t)(int64_t)(d >> 32);
}

/* The Fortran wrappers' PMPI entry `name` (pmpi_send_ ...) in Open MPI's Fortran library,
 * found at its first call and kept in *slot (any thread: the same value stored twice at
 * worst).  libpas2p does not link that library (gen_wrappers.py, f_symbols): a C program
 * never loads it, and a Fortran one has.  A missing library or entry ends the process
 * with one line naming it. */
void *pas2p_f_sym_slow(void **slot, const char *name);
static inline void *pas2p_f_sym(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    return p ? p : pas2p_f_sym_slow(slot, name);
}

static inline int pas2p_rt_active(void)
{
    return __atomic_load_n(&pas2p_rt.active, __ATOMIC_RELAXED);
}

/* a call that is not traced, only counted and timed (mpi_calls.tbl's untraced section): any
 * thread, async-signal-safe.  begin: 0 when not recording, else the call's start */
static inline uint64_t pas2p_rt_untraced_begin(void)
{
    return pas2p_rt_active() ? pas2p_ticks() | 1 : 0;
}

static inline void pas2p_rt_untraced_end(int kind, uint64_t t0)
{
    if (!t0)
        return;
    uint64_t t1 = pas2p_ticks() | 1;
    __atomic_add_fetch(&pas2p_rt.untraced[kind], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&pas2p_rt.untraced_ticks[kind], t1 > t0 ? t1 - t0 : 0, __ATOMIC_RELAXED);
}

/* ---- runtime.c */
void pas2p_clock_start(void);
void pas2p_rt_start(int rc, unsigned call, int lang);
void pas2p_rt_finish(int lang);
void pas2p_rt_abort(void);
pas2p_thr_t *pas2p_thr_slow(void);
void pas2p_counters_read(long long *out);
void pas2p_commit_slow(pas2p_cx_t *cx);
void pas2p_flush(void);
void *pas2p_payload(pas2p_cx_t *cx, size_t bytes);   /* appends bytes to the payload */
MPI_Status *pas2p_statuses(pas2p_cx_t *cx, int n);
MPI_Fint *pas2p_fstatuses(pas2p_cx_t *cx, int n);
void pas2p_release_slow(pas2p_cx_t *cx);
void pas2p_share_open(pas2p_thr_t *th, uint64_t t1); /* a compute interval begins (call exit) */
void pas2p_share_close(pas2p_thr_t *th);            /* it ends (next call's entry) */
int pas2p_quiet(void);                              /* PAS2P_QUIET set */

extern _Thread_local pas2p_thr_t *pas2p_tls __attribute__((tls_model("initial-exec")));

static inline pas2p_thr_t *pas2p_thr(void)
{
    pas2p_thr_t *t = pas2p_tls;
    return t ? t : pas2p_thr_slow();
}

static inline void pas2p_pre(pas2p_cx_t *cx, unsigned call, int lang)
{
    cx->th = pas2p_thr();
    cx->lang = lang;
    cx->paylen = 0;
    cx->slow = 0;
    cx->ev.call = (uint16_t)call;
    cx->ev.flags = lang == PAS2P_LANG_F ? PAS2P_EV_FORTRAN : 0;
    if (__builtin_expect(cx->th->share_wall0 != 0, 0))
        pas2p_share_close(cx->th);
    cx->t0 = pas2p_ticks();
    cx->counted = false;
    if (pas2p_rt.ncounters && cx->th->index == 0) {
        long long now[PAS2P_MAX_COUNTERS];
        pas2p_counters_read(now);
        for (int i = 0; i < pas2p_rt.ncounters; i++)
            cx->ctr[i] = (uint64_t)(now[i] - cx->th->ctr_last[i]);
        cx->counted = true;
    }
}

/* After the PMPI call: returns false when nothing is to be recorded. */
static inline bool pas2p_post(pas2p_cx_t *cx, int rc)
{
    if (cx->counted)
        pas2p_counters_read(cx->th->ctr_last);
    cx->t1 = pas2p_ticks();
    if (__builtin_expect(cx->t1 >= cx->th->share_next, 0))
        pas2p_share_open(cx->th, cx->t1);
    if (pas2p_rt.use_lock) {
        pthread_mutex_lock(&pas2p_rt.lock);
        cx->slow |= PAS2P_SLOW_LOCKED;
    }
    if (!pas2p_rt.active)
        return false;
    cx->ordinal = pas2p_rt.nevents;
    pas2p_event_t *e = &cx->ev;
    if (rc != MPI_SUCCESS)
        e->flags |= PAS2P_EV_ERROR;
    e->peer = e->tag = e->peer2 = e->tag2 = -1;
    e->comm = PAS2P_COMM_NONE;
    e->aux = 0;
    e->bytes = e->rbytes = 0;
    return true;
}

/* t_start, t_end, compute_ns of the record from the call's ticks */
static inline void pas2p_times_inline(pas2p_cx_t *cx)
{
    pas2p_event_t *e = &cx->ev;
    uint64_t last = cx->th->last_end_ns;
    e->t_start = pas2p_tick_ns(cx->t0);
    e->t_end = pas2p_tick_ns(cx->t1);
    if (e->t_start < last) /* clock re-anchored between two calls: keep time monotonic */
        e->t_start = last;
    if (e->t_end < e->t_start)
        e->t_end = e->t_start;
    e->compute_ns = last ? e->t_start - last : 0;
    cx->th->last_end_ns = e->t_end;
}

static inline void pas2p_commit(pas2p_cx_t *cx)
{
    pas2p_event_t *e = &cx->ev;
    pas2p_times_inline(cx);
    e->thread = cx->th->index;
    if (__builtin_expect(pas2p_rt.sink != NULL, 0)) { /* a loaded sink: one indirect call */
        pas2p_rt.sink->event(pas2p_rt.sink_state, e, pas2p_rt.nevents++);
        return;
    }
    if (pas2p_rt.ncounters && !cx->counted)
        e->flags |= PAS2P_EV_NO_COUNTERS;
    if (cx->counted || cx->paylen) {
        pas2p_commit_slow(cx);
        return;
    }
    size_t used = pas2p_rt.used;
    if (__builtin_expect(used + pas2p_record_max(0, 0) > pas2p_rt.cap, 0)) {
        pas2p_flush();
        if (!pas2p_rt.active)
            return;
        used = pas2p_rt.used;
    }
    size_t n = pas2p_record_encode(pas2p_rt.buf + used, e, NULL, 0, NULL, 0, &pas2p_rt.codec);
    __atomic_store_n(&pas2p_rt.used, used + n, __ATOMIC_RELEASE);
    pas2p_rt.nevents++;
}

static inline void pas2p_release(pas2p_cx_t *cx)
{
    if (cx->slow)
        pas2p_release_slow(cx);
}

/* ---- record.c: the recorders named in mpi_calls.tbl */
/* count * size of the datatype; the common predefined types without a call into MPI
 * (their handles are constants) */
static inline uint64_t pas2p_type_bytes(int count, MPI_Datatype t)
{
    int sz = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL)
        return 0;
    if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_LONG || t == MPI_INT64_T)
        sz = 8;
    else if (t == MPI_INT || t == MPI_FLOAT || t == MPI_INTEGER || t == MPI_REAL)
        sz = 4;
    else if (t == MPI_CHAR || t == MPI_BYTE)
        sz = 1;
    else
        PMPI_Type_size(t, &sz);
    return (uint64_t)count * (uint64_t)(sz > 0 ? sz : 0);
}

/* bytes a completed receive delivered */
static inline uint64_t pas2p_status_bytes(const MPI_Status *st)
{
#ifdef OPEN_MPI
    return st->_ucount; /* what PMPI_Get_count(st, MPI_BYTE) reads, without the call */
#else
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    return n > 0 ? (uint64_t)n : 0;
#endif
}

void rec_simple(pas2p_cx_t *cx, MPI_Comm comm);
void rec_send_any(pas2p_cx_t *cx, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype dt);
/* sends on MPI_COMM_WORLD (most of them) need no communicator lookup */
static inline void rec_send(pas2p_cx_t *cx, MPI_Comm comm, int dest, int tag, int count,
                            MPI_Datatype dt)
{
    if (comm == MPI_COMM_WORLD && dest >= 0) {
        cx->ev.comm = PAS2P_COMM_WORLD;
        cx->ev.peer = dest;
        cx->ev.tag = tag;
        cx->ev.bytes = pas2p_type_bytes(count, dt);
        return;
    }
    rec_send_any(cx, comm, dest, tag, count, dt);
}
/* PAS2P_EV_ANY_SOURCE / PAS2P_EV_ANY_TAG of a receive posted with (source, tag): two
 * compares of arguments the recorder already has, no branch.  source and tag are the C
 * values; the Fortran wrappers pass the INTEGER value, and Open MPI's Fortran
 * MPI_ANY_SOURCE and MPI_ANY_TAG are the C ones (-1, -1: mpif-constants.h). */
static inline uint16_t pas2p_wild_flags(int source, int tag)
{
    return (uint16_t)((source == MPI_ANY_SOURCE) * PAS2P_EV_ANY_SOURCE |
                      (tag == MPI_ANY_TAG) * PAS2P_EV_ANY_TAG);
}

void rec_recv_any(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag, const MPI_Status *st);
/* receives on MPI_COMM_WORLD need no communicator lookup: world ranks are the ranks */
static inline void rec_recv(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag,
                            const MPI_Status *st)
{
    cx->ev.flags |= pas2p_wild_flags(source, tag);
    if (comm == MPI_COMM_WORLD && source != MPI_PROC_NULL && st->MPI_SOURCE >= 0) {
        cx->ev.comm = PAS2P_COMM_WORLD;
        cx->ev.peer = st->MPI_SOURCE;
        cx->ev.tag = st->MPI_TAG;
        cx->ev.rbytes = pas2p_status_bytes(st);
        return;
    }
    rec_recv_any(cx, comm, source, tag, st);
}
void rec_iprobe(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag, int flag, const MPI_Status *st);
void rec_sendrecv(pas2p_cx_t *cx, MPI_Comm comm, int dest, int stag, int scount, MPI_Datatype stype,
                  int source, int rtag, const MPI_Status *st);
void rec_isend(pas2p_cx_t *cx, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype dt,
               MPI_Request req);
void rec_irecv(pas2p_cx_t *cx, MPI_Comm comm, int source, int tag, int count, MPI_Datatype dt,
               MPI_Request req);
void rec_start(pas2p_cx_t *cx, int n, void *reqs, int lang);
void pre_requests(pas2p_cx_t *cx, int n, void *reqs, int lang);
void rec_complete(pas2p_cx_t *cx, int n, void *reqs, int lang, int flag, void *index,
                  void *outcount, void *statuses);
void rec_request_free(pas2p_cx_t *cx);
void rec_icoll(pas2p_cx_t *cx, MPI_Request req);
void rec_coll(pas2p_cx_t *cx, MPI_Comm comm, int root, int scount, MPI_Datatype stype, int rcount,
              MPI_Datatype rtype);
void rec_vcoll(pas2p_cx_t *cx, MPI_Comm comm, int root, const int *scounts, int scount,
               MPI_Datatype stype, const int *rcounts, int rcount, MPI_Datatype rtype);
void rec_wcoll(pas2p_cx_t *cx, MPI_Comm comm, const int *scounts, void *stypes,
               const int *rcounts, void *rtypes, int lang);
void rec_reduce_scatter(pas2p_cx_t *cx, MPI_Comm comm, const int *rcounts, MPI_Datatype dt);
void rec_comm_new(pas2p_cx_t *cx, MPI_Comm parent, MPI_Comm newcomm);
void rec_comm_new_group(pas2p_cx_t *cx, MPI_Comm parent, int tag, MPI_Comm newcomm);
void rec_intercomm_new(pas2p_cx_t *cx, MPI_Comm local, int tag, MPI_Comm newcomm);
void rec_ncoll(pas2p_cx_t *cx, MPI_Comm comm, int scount, MPI_Datatype stype, const int *scounts,
               void *stypes, int rcount, MPI_Datatype rtype, const int *rcounts, void *rtypes,
               int lang);
void rec_message(pas2p_cx_t *cx, MPI_Message message, MPI_Comm comm, int source, int tag, int flag);
void pre_mrecv(pas2p_cx_t *cx, void *message, int lang);
void rec_mrecv(pas2p_cx_t *cx, const MPI_Status *st);
void rec_imrecv(pas2p_cx_t *cx, int count, MPI_Datatype dt, MPI_Request req);
void pre_comm_free(pas2p_cx_t *cx, void *comm, int lang);
void rec_comm_free(pas2p_cx_t *cx, void *comm, int lang);

/* record.c: communicator bookkeeping used by runtime.c */
void pas2p_comms_init(void);
void pas2p_comms_destroy(void);
void pas2p_reqs_destroy(void);

#endif
