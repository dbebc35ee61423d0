/* libpas2p runtime: start/stop of tracing, the clock, the output buffer, hardware
 * counters and the manifest.  Recorders are in record.c, wrappers are generated
 * (gen_wrappers.py).
 *
 * Environment (set by `pas2p trace`, or by hand with LD_PRELOAD / link-time use):
 *   PAS2P_TRACE_DIR     output directory (default: ./pas2p-trace-YYYYmmdd-HHMMSS)
 *   PAS2P_BUFFER_SIZE   per-rank output buffer, bytes, K/M suffix (default 256K, min 64K)
 *   PAS2P_CLOCK         "tsc" or "monotonic" to override the automatic choice
 *   PAS2P_COUNTERS      comma-separated PAPI events (default PAPI_TOT_INS; "none": time only)
 *   PAS2P_COMMAND       command line recorded in the manifest (default: rank 0's argv)
 *   PAS2P_CALIBRATE_MS  wall time of the replay kernel's calibration at MPI_Finalize
 *                       (default 50; 0: none, the trace cannot be replayed with a kernel)
 *   PAS2P_QUIET         1: no notes on stderr
 *   PAS2P_SIGNATURE     set (by `pas2p predict`): signature mode, a loaded sink instead of
 *                       the trace writer (pas2p_sink.h)
 *   PAS2P_SIGRUN_LIB    that sink's library (default: libpas2p-sigrun.so beside libpas2p.so)
 *   PAS2P_PREDICT_DIR   where a rank that cannot load it says so (its times file)
 */
#include "rt.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <libgen.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pas2p_kernel.h"
#include "pas2p_version.h"

pas2p_rt_t pas2p_rt = {.fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .mult = 1ull << 32};
_Thread_local pas2p_thr_t *pas2p_tls __attribute__((tls_model("initial-exec")));

static pas2p_thr_t main_thread;
static pas2p_file_header_t header;
static char counter_names[PAS2P_MAX_COUNTERS][PAS2P_COUNTER_NAME_LEN];
static char counters_note[256];
static struct sigaction old_term, old_int;
static int signals_installed;

int pas2p_quiet(void)
{
    const char *q = getenv("PAS2P_QUIET");
    return q && *q && *q != '0';
}

/* ------------------------------------------------------------------ threads */
pas2p_thr_t *pas2p_thr_slow(void)
{
    /* the first thread to get here is the one that called MPI_Init (wrappers do nothing
     * before it); others get their own record, kept until exit */
    uint32_t idx = __atomic_fetch_add(&pas2p_rt.nthreads, 1, __ATOMIC_RELAXED);
    pas2p_thr_t *t = idx == 0 ? &main_thread : calloc(1, sizeof *t);
    if (t) {
        t->index = idx;
        t->share_next = idx == 0 ? 0 : UINT64_MAX;
    } else {
        t = &main_thread; /* out of memory: share index 0; times stay valid */
    }
    pas2p_tls = t;
    return t;
}

/* ------------------------------------------------------------------ clock */
static int tsc_usable(void)
{
#ifdef PAS2P_HAVE_TSC
    const char *force = getenv("PAS2P_CLOCK");
    if (force && !strcmp(force, "monotonic"))
        return 0;
    if (force && !strcmp(force, "tsc"))
        return 1;
    /* the kernel checked TSC stability across cores and time: trust its choice */
    char cs[32] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f) {
        if (!fgets(cs, sizeof cs, f))
            cs[0] = 0;
        fclose(f);
    }
    return !strncmp(cs, "tsc", 3);
#else
    return 0;
#endif
}

static void warm_up_begin(void);

/* the run's clock starts before the warm-up does, which counts from that start: the
 * warm-up thread's creation is inside it (made first, a creation delayed 21 ms on a loaded
 * node made MPI_Init's recorded time shorter than the warm-up: test warmup, ASan) */
void pas2p_clock_start(void)
{
#ifdef PAS2P_HAVE_TSC
    pas2p_rt.cal_tsc0 = __rdtsc();
#endif
    pas2p_rt.cal_ns0 = pas2p_mono_ns();
    warm_up_begin();
}

/* (tick, ns) now, both read as close together as possible */
static void clock_sample(uint64_t *tick, uint64_t *ns)
{
#ifdef PAS2P_HAVE_TSC
    uint64_t a = __rdtsc();
    *ns = pas2p_mono_ns();
    *tick = a + (__rdtsc() - a) / 2;
#else
    *ns = pas2p_mono_ns();
    *tick = *ns;
#endif
}

/* Rate over the whole run so far (baseline from before MPI_Init), at every buffer flush;
 * the new anchor keeps the conversion continuous at `now`. */
static void clock_recalibrate(void)
{
    if (!pas2p_rt.tsc)
        return;
    uint64_t tick, ns;
    clock_sample(&tick, &ns);
    if (tick <= pas2p_rt.cal_tsc0 || ns <= pas2p_rt.cal_ns0)
        return;
    uint64_t cont = pas2p_tick_ns(tick);
    unsigned __int128 m = ((unsigned __int128)(ns - pas2p_rt.cal_ns0) << 32) / (tick - pas2p_rt.cal_tsc0);
    pas2p_rt.anchor_tick = tick;
    pas2p_rt.anchor_ns = cont;
    pas2p_rt.mult = (uint64_t)m;
}

static void clock_init(void)
{
    pas2p_rt.tsc = tsc_usable();
    pas2p_rt.share_gap_ticks = PAS2P_SHARE_GAP_NS;
    if (!pas2p_rt.tsc) {
        pas2p_rt.anchor_tick = pas2p_rt.anchor_ns = 0;
        pas2p_rt.mult = 1ull << 32;
        return;
    }
    uint64_t tick, ns;
    do /* MPI_Init usually takes far longer than the 2 ms baseline this needs */
        clock_sample(&tick, &ns);
    while (ns - pas2p_rt.cal_ns0 < 2000000);
    unsigned __int128 m = ((unsigned __int128)(ns - pas2p_rt.cal_ns0) << 32) / (tick - pas2p_rt.cal_tsc0);
    pas2p_rt.mult = (uint64_t)m;
    pas2p_rt.anchor_tick = tick;
    pas2p_rt.anchor_ns = ns;
    pas2p_rt.share_gap_ticks = (uint64_t)(((unsigned __int128)PAS2P_SHARE_GAP_NS << 32) / m);
}

/* ------------------------------------------------------------------ compute share
 * How much of a core the application's computation had: the main thread's CPU time (or the
 * process's, compute_share) over the wall time of compute intervals (a call's exit to the
 * next call's entry).  Reading
 * the thread's CPU clock is a system call (~0.3 us here), so intervals are sampled from a
 * budget of one per PAS2P_SHARE_GAP_NS, saved up to PAS2P_SHARE_BURST: a code with a few
 * calls per millisecond has every interval sampled, a code with a million calls a second
 * one in a thousand, and the reads cost well under 0.1 % of the run either way.  (A gap
 * counted from the last sample instead skipped, in a loop of one long computation and a
 * few quick calls, the long interval every time: ftn_ring measured a share of 1.00 on a
 * rank that had half a core.)  With one rank per core the share is ~1; with more ranks
 * than cores, or a co-tenant, it says what the compute got, which a replay of the same work
 * must get too (pas2p_kernel.h). */
static uint64_t cpu_ns(clockid_t c)
{
    struct timespec ts;
    if (clock_gettime(c, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
    return cpu_ns(CLOCK_THREAD_CPUTIME_ID);
}

void pas2p_share_open(pas2p_thr_t *th, uint64_t t1)
{
    uint64_t gap = pas2p_rt.share_gap_ticks, full = PAS2P_SHARE_BURST * gap;
    if (t1 > full && th->share_spent < t1 - full) /* the budget saves at most a burst */
        th->share_spent = t1 - full;
    th->share_spent += gap;
    th->share_next = UINT64_MAX;
    th->share_cpu0 = thread_cpu_ns();
    th->share_pcpu0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
    th->share_wall0 = pas2p_mono_ns();
}

void pas2p_share_close(pas2p_thr_t *th)
{
    uint64_t cpu = thread_cpu_ns(), pcpu = cpu_ns(CLOCK_PROCESS_CPUTIME_ID), wall = pas2p_mono_ns();
    if (cpu >= th->share_cpu0 && pcpu >= th->share_pcpu0 && wall > th->share_wall0) {
        th->share_cpu += cpu - th->share_cpu0;
        th->share_pcpu += pcpu - th->share_pcpu0;
        th->share_wall += wall - th->share_wall0;
    }
    th->share_wall0 = 0;
    th->share_next = th->share_spent + pas2p_rt.share_gap_ticks;
}

/* The main thread's share over the run: 1 when less than 20 ms of compute was sampled.  Or
 * the process's, when its other threads computed more meanwhile: a task runtime's thread
 * that calls MPI sleeps between its calls while the workers compute (StarPU: the main
 * thread had 3 % of a core, the process all of one; the replay's kernel ran at 3 % of its
 * speed, PET -93 %). */
static double compute_share(int *by_process)
{
    *by_process = 0;
    if (main_thread.share_wall < 20000000ull)
        return 1.0;
    double s = (double)main_thread.share_cpu / (double)main_thread.share_wall,
           p = (double)main_thread.share_pcpu / (double)main_thread.share_wall;
    *by_process = p > s + 0.1; /* other threads computed (not MPI's own, which use little) */
    if (p > s)
        s = p;
    return s > 1 ? 1 : s < 0.01 ? 0.01 : s;
}

/* A thread's time waiting on a run queue (runnable, not running), ns: the second field of
 * its schedstat file (path).  0, or -1 where the kernel does not say. */
static int schedstat_wait_ns(const char *path, uint64_t *out)
{
    char b[128];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    unsigned long long cpu, wait;
    if (n <= 0)
        return -1;
    b[n] = 0;
    if (sscanf(b, "%llu %llu", &cpu, &wait) != 2)
        return -1;
    *out = wait;
    return 0;
}

/* the calling thread's */
static int runq_wait_ns(uint64_t *out)
{
    return schedstat_wait_ns("/proc/thread-self/schedstat", out);
}

/* The process's threads' now (those alive), summed */
static int proc_runq_wait_ns(uint64_t *out)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    uint64_t sum = 0, w;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[300];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.200s/schedstat", e->d_name);
        if (!schedstat_wait_ns(path, &w))
            sum += w, n++;
    }
    closedir(d);
    if (!n)
        return -1;
    *out = sum;
    return 0;
}

/* Of the computation's wall time, the share the rank spent blocked, off the CPU by its own
 * doing (I/O, a child process it waits for, sleep): what is neither its share of a core
 * (compute_share) nor waiting for a core (the main thread's run-queue wait over the run:
 * ranks sharing cores, co-tenants).  ffindex_apply_mpi runs a program per entry and waits
 * for it: 2 % of a core, the rest blocked, and a replay that ran its kernel for that 2 %
 * predicted 6 % of the run.  0 below 10 % (the two shares are measured over different
 * spans), or when the kernel does not give the run-queue wait.  When the share is the
 * process's (other threads computed while the main thread waited for them), the wait for
 * a core is its threads' (those alive at the end: a thread that ended before took its own
 * with it), and what is left is blocked too: RELION's worker computes in a thread 29 % of
 * the time and sleeps the rest, and its replay, with nothing blocked, ran that 29 % alone
 * (-21 %); StarPU's workers compute all the time (share 1: nothing blocked).  Only while
 * the node's load (1 minute) was within its cores: the waits of threads that ended are
 * not in the sum, and a worker per iteration on a loaded node (the test suite's) waited
 * for its core unseen. */
static double compute_blocked(double share, int by_process, uint64_t t_fin_ns)
{
    uint64_t q1;
    if (t_fin_ns <= pas2p_rt.t_init)
        return 0;
    if (by_process) {
        double load;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (!pas2p_rt.prunq_ok || cores < 1 || getloadavg(&load, 1) != 1 ||
            load > (double)cores + 0.5 || proc_runq_wait_ns(&q1) || q1 < pas2p_rt.prunq0_ns)
            return 0;
        double q = (double)(q1 - pas2p_rt.prunq0_ns) / (double)(t_fin_ns - pas2p_rt.t_init);
        double b = 1 - share - q;
        return b >= 0.1 ? (b > 0.99 ? 0.99 : b) : 0;
    }
    if (!pas2p_rt.runq_ok || runq_wait_ns(&q1) || q1 < pas2p_rt.runq0_ns)
        return 0;
    double q = (double)(q1 - pas2p_rt.runq0_ns) / (double)(t_fin_ns - pas2p_rt.t_init);
    double b = 1 - share - q;
    return b >= 0.1 ? (b > 0.99 ? 0.99 : b) : 0;
}

/* ------------------------------------------------------------------ output */
static void write_failed(const char *what, int err)
{
    if (!pas2p_rt.write_failed) {
        pas2p_rt.write_failed = 1;
        fprintf(stderr, "pas2p: rank %d: cannot write trace file %s: %s; tracing stopped (%s)\n",
                pas2p_rt.rank, pas2p_rt.path, strerror(err), what);
    }
    __atomic_store_n(&pas2p_rt.active, 0, __ATOMIC_RELAXED);
}

/* write(2) all of [p, p+n); async-signal-safe.  Returns 0 or errno. */
static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes the committed part of the buffer.  SIGTERM/SIGINT are blocked meanwhile, so the
 * handler never writes the same bytes again. */
void pas2p_flush(void)
{
    if (pas2p_rt.fd < 0)
        return;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    size_t used = __atomic_load_n(&pas2p_rt.used, __ATOMIC_ACQUIRE);
    size_t done = __atomic_load_n(&pas2p_rt.written, __ATOMIC_ACQUIRE);
    int err = write_all(pas2p_rt.fd, pas2p_rt.buf + done, used - done);
    __atomic_store_n(&pas2p_rt.written, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&pas2p_rt.used, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err)
        write_failed("write", err);
    clock_recalibrate();
}

/* SIGTERM/SIGINT (mpirun forwards them on abort or Ctrl-C): save what is committed, then
 * let the previous disposition run. */
static void on_signal(int sig)
{
    int fd = pas2p_rt.fd;
    if (fd >= 0) {
        size_t used = __atomic_load_n(&pas2p_rt.used, __ATOMIC_ACQUIRE);
        size_t done = __atomic_load_n(&pas2p_rt.written, __ATOMIC_ACQUIRE);
        if (used > done && !write_all(fd, pas2p_rt.buf + done, used - done))
            __atomic_store_n(&pas2p_rt.written, used, __ATOMIC_RELEASE);
    }
    sigaction(sig, sig == SIGTERM ? &old_term : &old_int, NULL);
    raise(sig);
}

/* Records with counters or a payload, and records larger than the buffer. */
void pas2p_commit_slow(pas2p_cx_t *cx)
{
    uint32_t nc = cx->counted ? (uint32_t)pas2p_rt.ncounters : 0;
    size_t max = pas2p_record_max(nc, cx->paylen);
    if (pas2p_rt.used + max > pas2p_rt.cap) {
        pas2p_flush();
        if (!pas2p_rt.active)
            return;
    }
    if (max <= pas2p_rt.cap) {
        size_t used = pas2p_rt.used;
        size_t n = pas2p_record_encode(pas2p_rt.buf + used, &cx->ev, nc ? cx->ctr : NULL, nc,
                                       cx->th->pay, cx->paylen, &pas2p_rt.codec);
        __atomic_store_n(&pas2p_rt.used, used + n, __ATOMIC_RELEASE);
        pas2p_rt.nevents++;
        return;
    }
    unsigned char *rec = malloc(max); /* the buffer is empty now: write it directly */
    if (!rec) {
        write_failed("out of memory for a record", ENOMEM);
        return;
    }
    size_t n = pas2p_record_encode(rec, &cx->ev, nc ? cx->ctr : NULL, nc, cx->th->pay, cx->paylen,
                                   &pas2p_rt.codec);
    int err = write_all(pas2p_rt.fd, rec, n);
    free(rec);
    if (err) {
        write_failed("write", err);
        return;
    }
    pas2p_rt.nevents++;
}

/* MPI_Abort: save what is committed; the process is about to end. */
void pas2p_rt_abort(void)
{
    if (pas2p_rt.use_lock)
        pthread_mutex_lock(&pas2p_rt.lock);
    if (pas2p_rt_active() && !pas2p_rt.sink) /* a loaded sink writes no trace */
        pas2p_flush();
    __atomic_store_n(&pas2p_rt.active, 0, __ATOMIC_RELEASE);
    if (pas2p_rt.use_lock)
        pthread_mutex_unlock(&pas2p_rt.lock);
}

void *pas2p_payload(pas2p_cx_t *cx, size_t bytes)
{
    pas2p_thr_t *t = cx->th;
    if (cx->paylen + bytes > t->paycap) {
        size_t cap = t->paycap ? t->paycap : 1024;
        while (cap < cx->paylen + bytes)
            cap *= 2;
        unsigned char *p = realloc(t->pay, cap);
        if (!p) {
            fprintf(stderr, "pas2p: rank %d: out of memory for an event payload; tracing stopped\n",
                    pas2p_rt.rank);
            __atomic_store_n(&pas2p_rt.active, 0, __ATOMIC_RELAXED);
            return NULL;
        }
        t->pay = p;
        t->paycap = cap;
    }
    void *r = t->pay + cx->paylen;
    cx->paylen += bytes;
    return r;
}

MPI_Status *pas2p_statuses(pas2p_cx_t *cx, int n)
{
    if (n <= PAS2P_INLINE_REQS)
        return cx->st_inline;
    cx->heap_status = malloc((size_t)n * sizeof(MPI_Status));
    if (!cx->heap_status)
        return MPI_STATUSES_IGNORE;
    cx->slow |= PAS2P_SLOW_STATUS;
    return cx->heap_status;
}

MPI_Fint *pas2p_fstatuses(pas2p_cx_t *cx, int n)
{
    if ((size_t)n * PAS2P_F_STATUS_SIZE * sizeof(MPI_Fint) <= sizeof cx->st_inline)
        return (MPI_Fint *)(void *)cx->st_inline;
    cx->heap_status = malloc((size_t)n * PAS2P_F_STATUS_SIZE * sizeof(MPI_Fint));
    if (!cx->heap_status)
        return MPI_F_STATUSES_IGNORE;
    cx->slow |= PAS2P_SLOW_STATUS;
    return cx->heap_status;
}

void pas2p_release_slow(pas2p_cx_t *cx)
{
    if (cx->slow & PAS2P_SLOW_SNAP)
        free(cx->snap);
    if (cx->slow & PAS2P_SLOW_STATUS)
        free(cx->heap_status);
    if (cx->slow & PAS2P_SLOW_LOCKED)
        pthread_mutex_unlock(&pas2p_rt.lock);
    cx->slow = 0;
}

/* ------------------------------------------------------------------ counters */
void pas2p_counters_read(long long *out)
{
    if (PAPI_read(pas2p_rt.papi_set, out) != PAPI_OK)
        memset(out, 0, sizeof(long long) * (size_t)pas2p_rt.ncounters);
}

static void counters_start(void)
{
    const char *env = getenv("PAS2P_COUNTERS");
    int explicit_list = env && *env;
    const char *list = explicit_list ? env : "PAPI_TOT_INS";
    if (!strcmp(list, "none")) {
        snprintf(counters_note, sizeof counters_note, "counters disabled (PAS2P_COUNTERS=none)");
        return;
    }
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        snprintf(counters_note, sizeof counters_note, "PAPI unavailable (%s)",
                 rc < 0 ? PAPI_strerror(rc) : "version mismatch");
        return;
    }
    int set = PAPI_NULL;
    if (PAPI_create_eventset(&set) != PAPI_OK) {
        snprintf(counters_note, sizeof counters_note, "PAPI cannot create an event set");
        return;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int code;
        if (n == PAS2P_MAX_COUNTERS) {
            snprintf(counters_note, sizeof counters_note, "more than %d counters requested",
                     PAS2P_MAX_COUNTERS);
            goto fail;
        }
        rc = PAPI_event_name_to_code(tok, &code);
        if (rc == PAPI_OK)
            rc = PAPI_add_event(set, code);
        if (rc != PAPI_OK) {
            snprintf(counters_note, sizeof counters_note, "%s: %s", tok, PAPI_strerror(rc));
            goto fail;
        }
        snprintf(counter_names[n++], PAS2P_COUNTER_NAME_LEN, "%s", tok);
    }
    if ((rc = PAPI_start(set)) != PAPI_OK) {
        snprintf(counters_note, sizeof counters_note, "PAPI_start: %s", PAPI_strerror(rc));
        goto fail;
    }
    pas2p_rt.papi_set = set;
    pas2p_rt.ncounters = n;
    return;
fail:
    memset(counter_names, 0, sizeof counter_names);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    (void)explicit_list;
}

/* ------------------------------------------------------------------ start / stop */
static size_t buffer_size(void)
{
    const char *s = getenv("PAS2P_BUFFER_SIZE");
    size_t v = 256u << 10;
    if (s && *s) {
        char *end;
        unsigned long long x = strtoull(s, &end, 10);
        if (*end == 'K' || *end == 'k')
            x <<= 10, end++;
        else if (*end == 'M' || *end == 'm')
            x <<= 20, end++;
        if (*end == 0 && x > 0)
            v = (size_t)x;
        else if (pas2p_rt.rank == 0)
            fprintf(stderr, "pas2p: PAS2P_BUFFER_SIZE='%s' is not a size; using 256K\n", s);
    }
    return v < (64u << 10) ? (64u << 10) : v;
}

static void choose_dir(void)
{
    const char *d = getenv("PAS2P_TRACE_DIR");
    if (d && *d) {
        snprintf(pas2p_rt.dir, sizeof pas2p_rt.dir, "%s", d);
        return;
    }
    /* not launched by `pas2p trace`: rank 0 names the directory for everybody */
    char name[64] = {0};
    if (pas2p_rt.rank == 0) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(name, sizeof name, "pas2p-trace-%Y%m%d-%H%M%S", &tm);
    }
    PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(pas2p_rt.dir, sizeof pas2p_rt.dir, "%s", name);
}

/* recording starts: the MPI_Init event, from before PMPI_Init (cx->t0) to t1 */
static void record_init(pas2p_cx_t *cx, int rc, uint64_t t1)
{
    __atomic_store_n(&pas2p_rt.active, 1, __ATOMIC_RELEASE);
    cx->th->last_end_ns = 0;
    if (pas2p_post(cx, rc)) {
        cx->t1 = t1;
        rec_simple(cx, MPI_COMM_WORLD);
        pas2p_commit(cx);
    }
    pas2p_release(cx);
}

/* ------------------------------------------------------------------ loaded sink
 * Signature mode (`pas2p predict`): the events go to a sink loaded from a shared library
 * (pas2p_sink.h), which checks and times them; nothing is written here. */
static uint64_t host_now_ns(void)
{
    return pas2p_tick_ns(pas2p_ticks());
}

static uint64_t host_init_ns(void)
{
    return pas2p_rt.t_init;
}

static void host_requests(uint64_t *sent, uint64_t *recvd, uint64_t *active)
{
    *sent = pas2p_rt.msg_sent;
    *recvd = pas2p_rt.msg_recvd;
    *active = pas2p_rt.reqs_active;
}

/* The library cannot be loaded: one line, and the run ends as a diverged one does, with
 * this rank's times file saying why (`pas2p predict` prints it; tracer/FORMAT.md). */
static _Noreturn void sink_fail(const char *lib, const char *why)
{
    char reason[1000];
    if (strncmp(why, lib, strlen(lib))) /* dlerror() names the file, ours does not */
        snprintf(reason, sizeof reason, "cannot load the signature runtime %.400s: %.500s", lib, why);
    else
        snprintf(reason, sizeof reason, "cannot load the signature runtime %.900s", why);
    for (char *c = reason; *c; c++) /* one line in the file */
        if (*c == '\n')
            *c = ' ';
    const char *dir = getenv("PAS2P_PREDICT_DIR");
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/rank-%05d.times", dir && *dir ? dir : ".", pas2p_rt.rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int saved = 0;
    if (f) {
        fprintf(f, "pas2p-times 1\nrank %d\nnp %d\npid %d\nstatus diverged\nevents 0\nset_s 0\n"
                "checks 0\nreason %s\n", pas2p_rt.rank, pas2p_rt.np, (int)getpid(), reason);
        saved = !fclose(f) && !rename(tmp, path);
        if (!saved)
            unlink(tmp);
    }
    if (!saved || !pas2p_quiet()) /* as a divergence: quiet when `pas2p predict` will say it */
        fprintf(stderr, "pas2p: rank %d: %s\n", pas2p_rt.rank, reason);
    PMPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

/* PAS2P_SIGRUN_LIB, else libpas2p-sigrun.so in the directory this library was loaded from */
static void sink_library(char *out, size_t len)
{
    const char *e = getenv("PAS2P_SIGRUN_LIB");
    if (e && *e) {
        snprintf(out, len, "%s", e);
        return;
    }
    Dl_info di;
    char self[4096];
    if (dladdr((void *)pas2p_rt_start, &di) && di.dli_fname && strchr(di.dli_fname, '/')) {
        snprintf(self, sizeof self, "%s", di.dli_fname);
        snprintf(out, len, "%s/libpas2p-sigrun.so", dirname(self));
    } else {
        snprintf(out, len, "libpas2p-sigrun.so"); /* the dynamic linker's search path */
    }
}

/* Open MPI's Fortran library, for the Fortran wrappers (rt.h, pas2p_f_sym): the one a
 * Fortran program loaded (RTLD_NOLOAD), else loaded now, its names kept out of the global
 * scope (RTLD_LOCAL).  Its soname and path come from the build (tracer/CMakeLists.txt). */
static void *fortran_lib;

void *pas2p_f_sym_slow(void **slot, const char *name)
{
    void *h = __atomic_load_n(&fortran_lib, __ATOMIC_ACQUIRE);
    if (!h) {
        h = dlopen(PAS2P_MPIFH_SONAME, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            h = dlopen(PAS2P_MPIFH_SONAME, RTLD_LAZY | RTLD_LOCAL);
        if (!h)
            h = dlopen(PAS2P_MPIFH_PATH, RTLD_LAZY | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "pas2p: cannot load Open MPI's Fortran library %s for %s: %s\n",
                    PAS2P_MPIFH_SONAME, name, dlerror());
            _exit(3);
        }
        __atomic_store_n(&fortran_lib, h, __ATOMIC_RELEASE);
    }
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "pas2p: Open MPI's Fortran library %s has no %s\n", PAS2P_MPIFH_SONAME,
                name);
        _exit(3);
    }
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    return p;
}

/* Loads the sink (never unloaded: it may end the process from inside a callback). */
static const pas2p_sink_t *sink_load(void)
{
    char lib[4200];
    sink_library(lib, sizeof lib);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        sink_fail(lib, dlerror());
    dlerror();
    const pas2p_sink_t *sk = dlsym(h, PAS2P_SINK_SYMBOL);
    const char *err = dlerror();
    if (err || !sk)
        sink_fail(lib, err ? err : "no " PAS2P_SINK_SYMBOL);
    if (sk->abi != PAS2P_SINK_ABI || !sk->start || !sk->event || !sk->finish) {
        char why[128];
        snprintf(why, sizeof why, "sink interface version %u, this libpas2p's is %u",
                 (unsigned)sk->abi, (unsigned)PAS2P_SINK_ABI);
        sink_fail(lib, why);
    }
    pas2p_rt.sink_host = (pas2p_sink_host_t){.rank = pas2p_rt.rank,
                                             .np = pas2p_rt.np,
                                             .quiet = pas2p_quiet(),
                                             .now_ns = host_now_ns,
                                             .init_ns = host_init_ns,
                                             .requests = host_requests};
    void *state = sk->start(&pas2p_rt.sink_host);
    if (!state)
        sink_fail(lib, "its start failed");
    pas2p_rt.sink_state = state;
    return sk;
}

/* Every rank keeps its core busy for PAS2P_WARMUP_MS (default PAS2P_WARMUP_DEFAULT_MS) from
 * before PMPI_Init to the start of the run's clock: a thread spins while PMPI_Init runs
 * (mostly waiting on the launcher), then the rank itself until the time is up, so the
 * warm-up adds to the job's wall time only what MPI_Init does not already take.  On this
 * project's VM the first ~100-200 ms a rank ran after its cores had been idle were up to
 * 40-60 % slower (the vCPUs', not the code's): `predict` times a window of a few tens of
 * ms there, and the trace's first occurrences, which predict pairs with, are the same
 * stretch of the base run.  md 64 1000, predictions after 1 s of idle or back to back,
 * interleaved: 7 of 50 came out +36 to +59 % without a warm-up, 1 of 50 with 150 ms
 * (validation/bench/results/predict.md). */
static pthread_t warm_thread;
static int warm_thread_on;
static int warm_stop;                 /* (atomic) */
static uint64_t warm_end_ns;          /* 0: no warm-up under way */

static void warm_spin(uint64_t end_ns, const int *stop)
{
    volatile uint64_t x = 1;
    while (!(stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) && pas2p_mono_ns() < end_ns)
        for (int i = 0; i < 4096; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
}

static void *warm_main(void *arg)
{
    (void)arg;
    warm_spin(warm_end_ns, &warm_stop);
    return NULL;
}

/* the ranks the launcher put on this node (Open MPI's, MPICH's), 0 if it does not say */
static long local_ranks(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!v || !*v)
        v = getenv("MPI_LOCALNRANKS");
    return v && *v ? atol(v) : 0;
}

/* before PMPI_Init.  Not when the node has more ranks than cores: there the spin would
 * take the core from a rank whose run has begun (a 150 ms spin at every job's start made
 * the test suite's concurrent jobs noisy enough to fail a timing test) */
static void warm_up_begin(void)
{
    const char *w = getenv("PAS2P_WARMUP_MS");
    double ms = w && *w ? atof(w) : PAS2P_WARMUP_DEFAULT_MS;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (!(ms > 0) || warm_end_ns || (cores > 0 && local_ranks() > cores))
        return;
    warm_end_ns = pas2p_rt.cal_ns0 + (uint64_t)((ms > 10000 ? 10000 : ms) * 1e6);
    __atomic_store_n(&warm_stop, 0, __ATOMIC_RELAXED);
    warm_thread_on = pthread_create(&warm_thread, NULL, warm_main, NULL) == 0;
}

/* right before the run's clock starts (and on every way out of pas2p_rt_start) */
static void warm_up_end(void)
{
    if (!warm_end_ns)
        return;
    if (warm_thread_on) {
        __atomic_store_n(&warm_stop, 1, __ATOMIC_RELAXED);
        pthread_join(warm_thread, NULL);
        warm_thread_on = 0;
    }
    if (pas2p_rt.started && !pas2p_rt.write_failed)
        warm_spin(warm_end_ns, NULL);
    warm_end_ns = 0;
}

static void sink_start(unsigned call, int lang)
{
    pas2p_comms_init();
    clock_init();
    pas2p_cx_t cx_, *cx = &cx_;
    pas2p_pre(cx, call, lang);
    cx->t0 = pas2p_rt.tsc ? pas2p_rt.cal_tsc0 : pas2p_rt.cal_ns0;
    pas2p_rt.sink = sink_load(); /* before t_init: loading and reading the signature is
                                    MPI_Init's time, not the measured run's */
    warm_up_end();
    uint64_t t1 = pas2p_ticks();
    pas2p_rt.t_init = pas2p_tick_ns(t1);
    record_init(cx, MPI_SUCCESS, t1);
}

/* A process that MPI_Comm_spawn started is a second MPI_COMM_WORLD whose ranks are
 * numbered from 0 again: traced, its files overwrote the first world's (Rmpi's
 * mpi.spawn.Rslaves, gyoto's workers).  It is not traced; it says so in the trace
 * directory (PAS2P_SPAWNED), which every reader then refuses, and on stderr once. */
static void own_cmdline(char *out, size_t len);
static void spawned_note(void)
{
    const char *d = getenv("PAS2P_TRACE_DIR");
    char line[4200], path[4200];
    own_cmdline(line, sizeof line - 32);
    if (d && *d && !getenv("PAS2P_SIGNATURE")) {
        snprintf(path, sizeof path, "%s/" PAS2P_SPAWNED, d);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            char out[4300];
            int n = snprintf(out, sizeof out, "%ld %s\n", (long)getpid(), line);
            if (write(fd, out, (size_t)(n < (int)sizeof out ? n : (int)sizeof out - 1)) < 0)
                n = 0;
            close(fd);
        }
    }
    int r = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 0 && !pas2p_quiet())
        fprintf(stderr, "pas2p: %.200s was started by MPI_Comm_spawn: not traced (pas2p "
                "follows the MPI_COMM_WORLD that mpirun starts)\n", line);
}

static void rt_start(int rc, unsigned call, int lang)
{
    if (rc != MPI_SUCCESS || pas2p_rt.started)
        return;
    int provided = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&provided);
    PMPI_Comm_rank(MPI_COMM_WORLD, &pas2p_rt.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &pas2p_rt.np);
    pas2p_rt.thread_level = provided == MPI_THREAD_MULTIPLE     ? 3
                            : provided == MPI_THREAD_SERIALIZED ? 2
                            : provided == MPI_THREAD_FUNNELED   ? 1
                                                                : 0;
    pas2p_rt.use_lock = provided == MPI_THREAD_MULTIPLE;
    MPI_Comm parent = MPI_COMM_NULL;
    PMPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) { /* started by MPI_Comm_spawn: another MPI_COMM_WORLD */
        spawned_note();
        return; /* (not started: every call passes through, nothing is written) */
    }
    pas2p_rt.started = 1;
    const char *sig = getenv("PAS2P_SIGNATURE");
    if (sig && *sig) {
        sink_start(call, lang);
        return;
    }
    choose_dir();
    snprintf(pas2p_rt.path, sizeof pas2p_rt.path, "%s/" PAS2P_RANK_FILE_FMT, pas2p_rt.dir,
             pas2p_rt.rank);
    if (pas2p_mkdir_p(pas2p_rt.dir)) {
        fprintf(stderr, "pas2p: rank %d: cannot create trace directory %s: %s; not tracing\n",
                pas2p_rt.rank, pas2p_rt.dir, strerror(errno));
        pas2p_rt.write_failed = 1;
        return;
    }
    pas2p_rt.fd = open(pas2p_rt.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (pas2p_rt.fd < 0) {
        fprintf(stderr, "pas2p: rank %d: cannot create trace file %s: %s; not tracing\n",
                pas2p_rt.rank, pas2p_rt.path, strerror(errno));
        pas2p_rt.write_failed = 1;
        return;
    }
    pas2p_rt.cap = buffer_size();
    pas2p_rt.buf = malloc(pas2p_rt.cap);
    if (!pas2p_rt.buf) {
        fprintf(stderr, "pas2p: rank %d: cannot allocate a %zu-byte trace buffer; not tracing\n",
                pas2p_rt.rank, pas2p_rt.cap);
        close(pas2p_rt.fd);
        pas2p_rt.fd = -1;
        pas2p_rt.write_failed = 1;
        return;
    }
    if (pas2p_rt.thread_level < 3)
        counters_start();
    else
        snprintf(counters_note, sizeof counters_note, "not read under MPI_THREAD_MULTIPLE");
    if (!pas2p_rt.ncounters && pas2p_rt.rank == 0 && !pas2p_quiet())
        fprintf(stderr, "pas2p: no hardware counters (%s); tracing with time only\n", counters_note);
    pas2p_comms_init();
    clock_init();

    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    pas2p_header_init(&header, (uint32_t)pas2p_rt.rank, (uint32_t)pas2p_rt.np,
                      (uint32_t)pas2p_rt.ncounters);
    header.thread_level = (uint32_t)pas2p_rt.thread_level;
    header.clock_res_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
    header.pid = (uint32_t)getpid();
    gethostname(header.host, sizeof header.host - 1);
    memcpy(header.counters, counter_names, sizeof header.counters);

    /* the MPI_Init record: from before PMPI_Init to now */
    pas2p_cx_t cx_, *cx = &cx_;
    pas2p_pre(cx, call, lang);
    cx->t0 = pas2p_rt.tsc ? pas2p_rt.cal_tsc0 : pas2p_rt.cal_ns0;
    warm_up_end();
    uint64_t t1 = pas2p_ticks();
    pas2p_rt.t_init = pas2p_tick_ns(t1);
    header.t_init = pas2p_rt.t_init;
    pas2p_rt.runq_ok = !runq_wait_ns(&pas2p_rt.runq0_ns);
    pas2p_rt.prunq_ok = !proc_runq_wait_ns(&pas2p_rt.prunq0_ns);
    int err = write_all(pas2p_rt.fd, (const unsigned char *)&header, sizeof header);
    if (err) {
        write_failed("header", err);
        return;
    }
    pas2p_rt.codec.prev_end = 0;
    pas2p_rt.codec.prev_comm = PAS2P_COMM_WORLD;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGINT, &sa, &old_int);
    signals_installed = 1;

    record_init(cx, rc, t1);
}

/* The floating-point environment is the application's: MPQC enables traps
 * (feenableexcept: invalid, division by zero, overflow) before MPI_Init, and the
 * signature runtime's libxml2 computes a NaN as it starts (SIGFPE in every predict run).
 * What runs here at MPI_Init and MPI_Finalize (the sink's start and finish, the manifest,
 * the kernel's calibration) runs with no traps and the flags cleared, and the
 * application's environment, flags included, is given back as it was. */
void pas2p_rt_start(int rc, unsigned call, int lang)
{
    fenv_t fe;
    feholdexcept(&fe);
    rt_start(rc, call, lang);
    warm_up_end(); /* (a failed or untraced start: the thread stopped, no spin) */
    fesetenv(&fe);
}

static const char *level_name(int l)
{
    static const char *const names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                        "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    return names[l & 3];
}

/* this process's own command line, its arguments joined by spaces */
static void own_cmdline(char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (!out[i])
            out[i] = ' ';
}

/* the launch command: `pas2p trace` says it (PAS2P_COMMAND), else this process's */
static void command_line(char *out, size_t len)
{
    const char *c = getenv("PAS2P_COMMAND");
    if (c && *c)
        snprintf(out, len, "%s", c);
    else
        own_cmdline(out, len);
}

/* rank 0 writes DIR/manifest (atomically: temp file + rename) */
/* untraced: per rank, the counts and seconds of each kind (PAS2P_UNTRACED_KINDS x 2 values) */
static void write_manifest(const char *hosts, const uint64_t *events, const double *krate,
                           const double *share, const double *blocked, const double *untraced,
                           const uint64_t *threads,
                           double aet, int ok_ranks)
{
    char final[4200], tmp[4300], cmd[4096], prog[4096];
    snprintf(final, sizeof final, "%s/" PAS2P_MANIFEST, pas2p_rt.dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", final);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "pas2p: cannot write %s: %s\n", tmp, strerror(errno));
        return;
    }
    command_line(cmd, sizeof cmd);
    own_cmdline(prog, sizeof prog);
    uint64_t total = 0;
    for (int r = 0; r < pas2p_rt.np; r++)
        total += events[r];
    fprintf(f, "# pas2p trace manifest: see tracer/FORMAT.md\n");
    fprintf(f, "format = pas2p-trace\nversion = %u\ntracer = %s\n", PAS2P_TRACE_VERSION,
            PAS2P_VERSION_STRING);
    fprintf(f, "np = %d\ncommand = %s\n", pas2p_rt.np, cmd);
    if (prog[0] && !strchr(prog, '\n'))
        fprintf(f, "program = %s\n", prog);
    fprintf(f, "hosts = ");
    for (int r = 0; r < pas2p_rt.np; r++)
        fprintf(f, "%s%s", r ? "," : "", hosts + (size_t)r * PAS2P_HOST_LEN);
    fprintf(f, "\nclock = CLOCK_MONOTONIC\nclock_resolution_ns = %llu\n",
            (unsigned long long)header.clock_res_ns);
    fprintf(f, "counters = ");
    if (!pas2p_rt.ncounters)
        fprintf(f, "none");
    for (int i = 0; i < pas2p_rt.ncounters; i++)
        fprintf(f, "%s%s", i ? "," : "", counter_names[i]);
    fprintf(f, "\ncounters_note = %s\n", pas2p_rt.ncounters ? "" : counters_note);
    fprintf(f, "thread_level = %s\nevents_locking = %s\n", level_name(pas2p_rt.thread_level),
            pas2p_rt.use_lock ? "mutex" : "none");
    fprintf(f, "threads = ");
    for (int r = 0; r < pas2p_rt.np; r++)
        fprintf(f, "%s%llu", r ? "," : "", (unsigned long long)threads[r]);
    fprintf(f, "\n");
    fprintf(f, "aet_s = %.9f\nevents = %llu\n", aet, (unsigned long long)total);
    fprintf(f, "waits_tested = 1\n"); /* record.c flags PAS2P_EV_TESTED */
    fprintf(f, "events_per_rank = ");
    for (int r = 0; r < pas2p_rt.np; r++)
        fprintf(f, "%s%llu", r ? "," : "", (unsigned long long)events[r]);
    if (krate[0] > 0) {
        fprintf(f, "\nkernel_rate = ");
        for (int r = 0; r < pas2p_rt.np; r++)
            fprintf(f, "%s%.6g", r ? "," : "", krate[r]);
    }
    fprintf(f, "\ncompute_share = ");
    for (int r = 0; r < pas2p_rt.np; r++)
        fprintf(f, "%s%.3f", r ? "," : "", share[r]);
    int any_blocked = 0; /* compute_blocked: only when some rank's computation was */
    for (int r = 0; r < pas2p_rt.np; r++)
        any_blocked |= blocked[r] > 0;
    if (any_blocked) {
        fprintf(f, "\ncompute_blocked = ");
        for (int r = 0; r < pas2p_rt.np; r++)
            fprintf(f, "%s%.3f", r ? "," : "", blocked[r]);
    }
    /* untraced = counts of one-sided calls, untraced_s = their seconds; untraced_io and
     * untraced_io_s the same for MPI-IO, untraced_nbr and untraced_nbr_s for neighbourhood
     * collectives (each pair only when some rank made such calls) */
    static const char *const key[PAS2P_UNTRACED_KINDS] = {"untraced", "untraced_io",
                                                          "untraced_nbr"};
    const int nk = 2 * PAS2P_UNTRACED_KINDS;
    for (int k = 0; k < PAS2P_UNTRACED_KINDS; k++) {
        int any = 0;
        for (int r = 0; r < pas2p_rt.np; r++)
            any |= untraced[(size_t)r * nk + 2 * k] > 0;
        if (!any)
            continue;
        fprintf(f, "\n%s = ", key[k]);
        for (int r = 0; r < pas2p_rt.np; r++)
            fprintf(f, "%s%.0f", r ? "," : "", untraced[(size_t)r * nk + 2 * k]);
        fprintf(f, "\n%s_s = ", key[k]);
        for (int r = 0; r < pas2p_rt.np; r++)
            fprintf(f, "%s%.6f", r ? "," : "", untraced[(size_t)r * nk + 2 * k + 1]);
    }
    fprintf(f, "\ncomplete = %s\n", ok_ranks == pas2p_rt.np ? "yes" : "no");
    int bad = ferror(f);
    if (fclose(f) || bad || rename(tmp, final)) {
        fprintf(stderr, "pas2p: cannot write %s: %s\n", final, strerror(errno ? errno : EIO));
        unlink(tmp);
    }
}

static void rt_finish(int lang);

void pas2p_rt_finish(int lang)
{
    fenv_t fe; /* (as in pas2p_rt_start) */
    feholdexcept(&fe);
    rt_finish(lang);
    fesetenv(&fe);
}

static void rt_finish(int lang)
{
    if (!pas2p_rt.started)
        return;
    if (pas2p_rt.use_lock)
        pthread_mutex_lock(&pas2p_rt.lock);
    uint64_t t_fin = pas2p_ticks(), t_fin_ns = pas2p_tick_ns(t_fin);
    if (pas2p_rt.use_lock)
        pthread_mutex_unlock(&pas2p_rt.lock);
    if (pas2p_rt_active()) {
        pas2p_cx_t cx_, *cx = &cx_;
        pas2p_pre(cx, PAS2P_CALL_Finalize, lang);
        cx->t0 = t_fin;
        if (pas2p_post(cx, MPI_SUCCESS)) {
            cx->t1 = t_fin; /* the trace is closed before PMPI_Finalize runs */
            rec_simple(cx, MPI_COMM_WORLD);
            pas2p_commit(cx);
        }
        pas2p_release(cx);
    }
    if (pas2p_rt.sink) { /* a loaded sink: it finishes, no trace */
        __atomic_store_n(&pas2p_rt.active, 0, __ATOMIC_RELEASE);
        pas2p_rt.sink->finish(pas2p_rt.sink_state);
        pas2p_rt.sink_state = NULL;
        pas2p_rt.sink = NULL;
        pas2p_comms_destroy();
        pas2p_reqs_destroy();
        pas2p_rt.started = 0;
        return;
    }
    if (pas2p_rt_active())
        pas2p_flush();
    __atomic_store_n(&pas2p_rt.active, 0, __ATOMIC_RELEASE);
    if (pas2p_rt.fd >= 0) {
        if (close(pas2p_rt.fd) && !pas2p_rt.write_failed)
            write_failed("close", errno);
        pas2p_rt.fd = -1;
    }
    if (signals_installed) { /* give the application its own handlers back */
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGINT, &old_int, NULL);
        signals_installed = 0;
    }

    /* the manifest: every rank takes part, even one whose file failed */
    double aet = pas2p_rt.t_init ? (double)(t_fin_ns - pas2p_rt.t_init) * 1e-9 : 0.0, aet_max = 0;
    uint64_t nev = pas2p_rt.nevents;
    int ok = !pas2p_rt.write_failed, ok_ranks = 0;
    char *hosts = NULL;
    uint64_t *events = NULL;
    double *krates = NULL, *shares = NULL, *blocked = NULL;
    /* the untraced calls of each kind: count, seconds (exact as doubles up to 2^53 calls) */
    double *untraced = NULL, un[2 * PAS2P_UNTRACED_KINDS];
    /* the threads that made traced calls (an application may ask for MPI_THREAD_MULTIPLE and
     * call MPI from one thread only: its events are then in one order, and the global
     * analysis takes them) */
    uint64_t *threads = NULL, nthr = __atomic_load_n(&pas2p_rt.nthreads, __ATOMIC_RELAXED);
    for (int k = 0; k < PAS2P_UNTRACED_KINDS; k++) {
        uint64_t d = __atomic_load_n(&pas2p_rt.untraced_ticks[k], __ATOMIC_RELAXED);
        un[2 * k] = (double)__atomic_load_n(&pas2p_rt.untraced[k], __ATOMIC_RELAXED);
        un[2 * k + 1] = (double)(uint64_t)(((unsigned __int128)d * pas2p_rt.mult) >> 32) * 1e-9;
    }
    if (pas2p_rt.rank == 0) {
        hosts = calloc((size_t)pas2p_rt.np, PAS2P_HOST_LEN);
        events = calloc((size_t)pas2p_rt.np, sizeof *events);
        untraced = calloc((size_t)pas2p_rt.np * 2 * PAS2P_UNTRACED_KINDS, sizeof *untraced);
        threads = calloc((size_t)pas2p_rt.np, sizeof *threads);
        krates = calloc((size_t)pas2p_rt.np, sizeof *krates);
        shares = calloc((size_t)pas2p_rt.np, sizeof *shares);
        blocked = calloc((size_t)pas2p_rt.np, sizeof *blocked);
    }
    /* the replay kernel's speed as the application's computation saw it (pas2p_kernel.h):
     * the core's speed in CPU time (the median of 5 slices, each started by a barrier, after
     * the AET) times the share of a core the computation had during the run */
    const char *cal = getenv("PAS2P_CALIBRATE_MS");
    double cal_s = cal && *cal ? atof(cal) * 1e-3 : 0.05, krate = 0, slice[5];
    int by_process;
    double share = compute_share(&by_process),
           blocked_share = compute_blocked(share, by_process, t_fin_ns);
    if (cal_s > 0) {
        for (int k = 0; k < 5; k++) {
            PMPI_Barrier(MPI_COMM_WORLD);
            slice[k] = pas2p_kernel_calibrate((cal_s > 10 ? 10 : cal_s) / 5);
            for (int j = k; j > 0 && slice[j] < slice[j - 1]; j--) {
                double t = slice[j];
                slice[j] = slice[j - 1];
                slice[j - 1] = t;
            }
        }
        krate = slice[2] * share;
    }
    char host[PAS2P_HOST_LEN] = {0};
    gethostname(host, sizeof host - 1);
    PMPI_Gather(host, PAS2P_HOST_LEN, MPI_CHAR, hosts, PAS2P_HOST_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    PMPI_Gather(&nev, 1, MPI_UINT64_T, events, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    PMPI_Gather(&krate, 1, MPI_DOUBLE, krates, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    PMPI_Gather(&share, 1, MPI_DOUBLE, shares, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    PMPI_Gather(&blocked_share, 1, MPI_DOUBLE, blocked, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    PMPI_Gather(un, 2 * PAS2P_UNTRACED_KINDS, MPI_DOUBLE, untraced, 2 * PAS2P_UNTRACED_KINDS,
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    PMPI_Gather(&nthr, 1, MPI_UINT64_T, threads, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&aet, &aet_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&ok, &ok_ranks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (pas2p_rt.rank == 0 && hosts && events && krates && shares && blocked && untraced &&
        threads)
        write_manifest(hosts, events, krates, shares, blocked, untraced, threads, aet_max,
                       ok_ranks);
    free(blocked);
    free(threads);
    free(untraced);
    free(hosts);
    free(events);
    free(krates);
    free(shares);
    free(pas2p_rt.buf);
    pas2p_rt.buf = NULL;
    if (pas2p_rt.ncounters) {
        long long v[PAS2P_MAX_COUNTERS];
        PAPI_stop(pas2p_rt.papi_set, v);
        pas2p_rt.ncounters = 0;
    }
    pas2p_comms_destroy();
    pas2p_reqs_destroy();
    pas2p_rt.started = 0;
}
