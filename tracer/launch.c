/* Running an MPI launch command with libpas2p in every rank (pas2p_launch.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "pas2p_launch.h"
#include "pas2p_trace.h"

/* the launcher's pid, for forwarding signals (the only mutable static of the commands) */
static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static int dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            empty = 0;
            break;
        }
    closedir(d);
    return empty;
}

int pas2p_prepare_dir_err(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s exists and is not a directory", dir);
            return -1;
        }
        if (dir_is_empty(dir) != 1) {
            snprintf(err, errlen, "%s is not empty; choose another directory or remove it",
                     dir);
            return -1;
        }
    } else if (pas2p_mkdir_p(dir)) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/.pas2p-write-test", dir);
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || close(fd) || unlink(probe)) {
        snprintf(err, errlen, "cannot write to %s: %s", dir, strerror(errno));
        if (fd >= 0)
            unlink(probe);
        return -1;
    }
    return 0;
}

int pas2p_prepare_dir(const char *who, const char *dir)
{
    char err[PATH_MAX + 256];
    if (pas2p_prepare_dir_err(dir, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", who, err);
        return -1;
    }
    return 0;
}

double pas2p_mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pas2p_default_dir(const char *prefix, char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32];
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(out, len, "%s-%s", prefix, stamp);
    /* two runs in the same second (a script's loop) get -2, -3, ...: a default never
     * collides with an earlier result */
    struct stat st;
    for (int k = 2; k < 1000 && lstat(out, &st) == 0; k++)
        snprintf(out, len, "%s-%s-%d", prefix, stamp, k);
}

int pas2p_find_beside(const char *env, const char *rel, char *out, size_t len)
{
    const char *e = getenv(env);
    if (e && *e) {
        snprintf(out, len, "%s", e);
    } else {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n < 0)
            return -1;
        exe[n] = 0;
        snprintf(out, len, "%s/%s", dirname(exe), rel);
    }
    char real[PATH_MAX];
    if (!realpath(out, real) || access(real, R_OK))
        return -1;
    snprintf(out, len, "%s", real);
    return 0;
}

int pas2p_find_library(const char *who, char *out, size_t len)
{
    if (pas2p_find_beside("PAS2P_LIB", "../lib/libpas2p.so", out, len)) {
        fprintf(stderr, "%s: library %s not found (set PAS2P_LIB)\n", who, out);
        return -1;
    }
    return 0;
}

static int is_ompi_launcher(const char *arg0)
{
    const char *b = strrchr(arg0, '/');
    b = b ? b + 1 : arg0;
    return !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun") ||
           !strncmp(b, "mpirun.", 7) || !strncmp(b, "mpiexec.", 8);
}

/* name as the shell finds it: itself when it has a '/', else the first executable of
 * that name on PATH (an empty entry: the current directory); 0, or -1 when none */
static int on_path(const char *name, char *path, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(path, len, "%s", name);
        return 0;
    }
    for (const char *p = getenv("PATH"); p && *p;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        snprintf(path, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
        if (!access(path, X_OK))
            return 0;
        p = c ? c + 1 : NULL;
    }
    return -1;
}

/* MPICH's launcher (Hydra), by what the name resolves to: Debian's mpirun is an
 * alternative that points to mpirun.openmpi or to mpirun.mpich -> mpiexec.hydra.  pas2p
 * is built on Open MPI (libpas2p intercepts its MPI), so a job that launcher starts cannot
 * be followed: said before anything runs (it was handed Open MPI's -x options, and
 * answered "match_arg: unrecognized argument x").  real: what it resolved to. */
static int is_mpich_launcher(const char *arg0, char *real, size_t len)
{
    char path[PATH_MAX], r[PATH_MAX];
    if (on_path(arg0, path, sizeof path) || !realpath(path, r))
        return 0;
    const char *b = strrchr(r, '/');
    b = b ? b + 1 : r;
    if (!strstr(b, "hydra") && !strstr(b, "mpich"))
        return 0;
    snprintf(real, len, "%s", r);
    return 1;
}

/* an executable the launch names (one of its arguments, a path or found on PATH) that is
 * linked to MPICH's library (ldd says libmpich): its ranks abort in their first MPI call
 * under libpas2p, built on Open MPI, before any trace file exists ("internal_Comm_rank:
 * Invalid communicator"); only asked after such a failure.  1 and its name in prog. */
int pas2p_launch_mpich_program(char *const *launch, int nlaunch, char *prog, size_t len)
{
    int tried = 0;
    for (int k = 0; k < nlaunch && tried < 4; k++) {
        const char *a = launch[k];
        char path[PATH_MAX];
        struct stat st;
        if (!*a || a[0] == '-' || on_path(a, path, sizeof path) || stat(path, &st) ||
            !S_ISREG(st.st_mode) || access(path, X_OK))
            continue;
        tried++;
        char cmd[PATH_MAX * 4 + 32], *o = cmd;
        o += sprintf(o, "ldd -- '");
        for (const char *q = path; *q; q++)
            o += *q == '\'' ? sprintf(o, "'\\''") : sprintf(o, "%c", *q);
        sprintf(o, "' 2>/dev/null");
        FILE *f = popen(cmd, "r");
        if (!f)
            continue;
        char line[1024];
        int mpich = 0;
        while (fgets(line, sizeof line, f))
            mpich |= strstr(line, "libmpich") != NULL;
        pclose(f);
        if (mpich) {
            snprintf(prog, len, "%s", a);
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ stderr relay
 * `pas2p predict` ends a job whose loop offers no safe stop with MPI_Abort(code) once the
 * results are safe; Open MPI's launcher then prints its abort banner, which is not an
 * error to the user.  The launcher's stderr goes through this relay, line by line, which
 * drops that banner (the dashed block naming MPI_ABORT and that errorcode), the help
 * aggregation lines about it and the teardown's event-library warnings, and passes
 * everything else through unchanged. */
typedef struct {
    const int *codes;
    int ncodes;
    char line[4096];
    size_t n;
    char *held;          /* a dashed block being read: lines held until it closes */
    size_t nheld, capheld;
    int inblock, hid, lines;
    int no_sync;         /* the launcher's report of a rank "with PID 0" (pas2p_launch.h) */
} relay_t;

static int dashes(const char *l)
{
    size_t k = 0;
    while (l[k] == '-')
        k++;
    return k >= 20 && (l[k] == '\n' || !l[k]);
}

static void relay_flush_held(relay_t *r)
{
    if (r->nheld && fwrite(r->held, 1, r->nheld, stderr) != r->nheld)
        r->nheld = 0;
    r->nheld = 0;
}

static void relay_hold(relay_t *r, const char *l, size_t n)
{
    if (r->nheld + n + 1 > r->capheld) {
        size_t cap = (r->nheld + n + 1) * 2;
        char *p = cap <= (1u << 20) ? realloc(r->held, cap) : NULL;
        if (!p) { /* too long for a banner, or no memory: give it back as it came */
            relay_flush_held(r);
            fwrite(l, 1, n, stderr);
            r->inblock = 0;
            return;
        }
        r->held = p;
        r->capheld = cap;
    }
    memcpy(r->held + r->nheld, l, n);
    r->nheld += n;
    r->held[r->nheld] = 0;
}

/* where a run of >= 20 dashes that ends line l (n bytes, maybe with its newline) starts, or
 * n: the program's last line, unfinished when the job was aborted, and the banner's first
 * (NetPIPE's "34:  196608 bytes   2000 times --> " then the dashes) */
static size_t trailing_dashes(const char *l, size_t n)
{
    size_t e = n && l[n - 1] == '\n' ? n - 1 : n, b = e;
    while (b > 0 && l[b - 1] == '-')
        b--;
    return e - b >= 20 ? b : n;
}

static void relay_line(relay_t *r, const char *l, size_t n)
{
    size_t cut;
    if (!r->inblock && !dashes(l) && (cut = trailing_dashes(l, n)) < n) {
        fwrite(l, 1, cut, stderr); /* the program's text, its line ended here */
        fputc('\n', stderr);
        relay_line(r, l + cut, n - cut);
        return;
    }
    if (!r->inblock) {
        if (dashes(l)) {
            r->inblock = 1;
            r->lines = 0;
            relay_hold(r, l, n);
            return;
        }
        if (r->hid && (strstr(l, "help-mpi-api.txt / mpi-abort") ||
                       strstr(l, "orte_base_help_aggregate")))
            return;
        /* Open MPI 4.1's launcher may fail to unpack a rank's copy of that banner while the
         * job is torn down, and says so from its help machinery */
        if (strstr(l, "ORTE_ERROR_LOG") && strstr(l, "show_help.c"))
            return;
        /* and its event library may find a rank's socket already closed by then ("[warn]
         * Epoll MOD(1) on fd 26 failed. ... Bad file descriptor": a divergence's one-line
         * report came with it in a second line, test dynsched_predict) */
        if (r->ncodes > 0 && !strncmp(l, "[warn] Epoll ", 13) && strstr(l, "Bad file descriptor"))
            return;
        fwrite(l, 1, n, stderr);
        return;
    }
    relay_hold(r, l, n);
    if (r->inblock && ++r->lines > 32) { /* a banner is a few lines: this is the program's */
        relay_flush_held(r);
        r->inblock = 0;
        return;
    }
    if (!r->inblock || !dashes(l))
        return;
    r->inblock = 0; /* the block closed: a banner of ours is dropped, anything else shown */
    if (strstr(r->held, " with PID 0 on") && strstr(r->held, "exiting improperly"))
        r->no_sync = 1;
    int ours = 0;
    for (int k = 0; k < r->ncodes && !ours; k++) {
        char want[64];
        snprintf(want, sizeof want, "errorcode %d.", r->codes[k]);
        ours = strstr(r->held, want) != NULL;
    }
    if (ours && strstr(r->held, "MPI_ABORT was invoked")) {
        r->nheld = 0;
        r->hid = 1;
    } else {
        relay_flush_held(r);
    }
}

static void relay_bytes(relay_t *r, const char *b, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        r->line[r->n++] = b[k];
        if (b[k] == '\n' || r->n == sizeof r->line - 1) {
            r->line[r->n] = 0;
            relay_line(r, r->line, r->n);
            r->n = 0;
        }
    }
}

/* relays fd to stderr until it closes (or, once the launcher `pid` has ended, until it has
 * been quiet for a second: a straggler holding the pipe cannot hang pas2p); the launcher's
 * wait status in *status */
static void relay_run(relay_t *r, int fd, pid_t pid, int *status, double timeout_s,
                      int *timed_out)
{
    int ended = 0, quiet_ms = 0;
    char buf[4096];
    double t0 = pas2p_mono_s(), killed_at = 0;
    for (;;) {
        if (timeout_s > 0 && !ended) { /* the watchdog: TERM, then KILL */
            double t = pas2p_mono_s();
            if (!killed_at && t - t0 > timeout_s) {
                *timed_out = 1;
                killed_at = t;
                kill(pid, SIGTERM);
            } else if (killed_at && t - killed_at > 10) {
                kill(pid, SIGKILL);
                killed_at = t;
            }
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int k = poll(&p, 1, 100);
        if (k < 0 && errno != EINTR)
            break;
        if (k > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            relay_bytes(r, buf, (size_t)n);
            quiet_ms = 0;
            continue;
        }
        if (!ended) {
            pid_t w = waitpid(pid, status, WNOHANG);
            ended = w == pid || (w < 0 && errno == ECHILD);
        } else if ((quiet_ms += 100) >= 1000) {
            break;
        }
    }
    if (r->n) {
        r->line[r->n] = 0;
        relay_line(r, r->line, r->n);
    }
    relay_flush_held(r);
    fflush(stderr);
    free(r->held);
    if (!ended)
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
}

/* The job's processes that outlive its launcher.  An MPI_Abort (predict ends the job with
 * one once rank 0 has every rank's times) leaves the ranks to be reaped by whoever adopts
 * them: the nearest subreaper, or PID 1, which in a container is often a program that
 * reaps nothing (this machine's: every predict run left its ranks as zombies for good).
 * pas2p is the subreaper of a job it may end itself (set before the fork): once the
 * launcher has ended, it reaps what comes back to it for up to `grace` seconds, then, with
 * `kill`, ends any process of the job still running (the job is over: its launcher is
 * gone) and says how many.  Without PR_SET_CHILD_SUBREAPER (not Linux), nothing is adopted: no-op. */
static void reap_orphans(const char *who, double grace, int kill_left)
{
    double t0 = pas2p_mono_s();
    for (;;) {
        pid_t w = waitpid(-1, NULL, WNOHANG);
        if (w > 0)
            continue;
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) /* ECHILD: none left */
            return;
        if (pas2p_mono_s() - t0 > grace)
            break;
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    if (!kill_left)
        return;
    /* still running: this process's children (adopted) from /proc */
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t me = getpid();
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%.200s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t k = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (k <= 0)
            continue;
        buf[k] = 0;
        const char *rp = strrchr(buf, ')'); /* pid (comm) state ppid ... */
        char st;
        int ppid;
        if (rp && sscanf(rp + 1, " %c %d", &st, &ppid) == 2 && ppid == me && st != 'Z') {
            kill((pid_t)atoi(e->d_name), SIGKILL);
            n++;
        }
    }
    if (d)
        closedir(d);
    while (n && (waitpid(-1, NULL, 0) > 0 || errno == EINTR))
        ;
    if (n)
        fprintf(stderr, "%s: %d process(es) of the job still ran %.0f s after its launcher "
                "ended: killed\n", who, n, grace);
}

/* log: the launch's stdout and stderr go to that file (then no relay) */
static int launch_impl(const char *who, const char *lib, char **launch, int nlaunch,
                       const char *const *vars, size_t nvars, const int *codes, int ncodes,
                       const char *log, double timeout_s, pas2p_launch_info_t *info)
{
    memset(info, 0, sizeof *info);
    char real[PATH_MAX];
    if (nlaunch > 0 && is_mpich_launcher(launch[0], real, sizeof real)) {
        fprintf(stderr, "%s: %s is MPICH's launcher (%s): pas2p works with Open MPI; launch "
                "with Open MPI's mpirun (mpirun.openmpi), an application built with it\n", who,
                launch[0], real);
        return 127;
    }
    int logfd = -1;
    if (log && (logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        fprintf(stderr, "%s: cannot write %s: %s\n", who, log, strerror(errno));
        return 127;
    }
    if (logfd >= 0)
        ncodes = 0;
    char preload[PATH_MAX * 2];
    const char *old = getenv("LD_PRELOAD");
    /* an existing preload (a sanitizer runtime, another tool) stays first */
    snprintf(preload, sizeof preload, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "",
             lib ? lib : "");

    int ncolon = 0; /* MPMD app contexts after the first (mpirun A : B) */
    for (int k = 1; k < nlaunch; k++)
        ncolon += !strcmp(launch[k], ":");
    char **args = calloc((size_t)nlaunch + 2 * nvars + 2 * (size_t)ncolon + 4, sizeof *args);
    if (!args) {
        fprintf(stderr, "%s: out of memory\n", who);
        if (logfd >= 0)
            close(logfd);
        return 2;
    }
    int n = 0;
    char xpre[PATH_MAX * 2 + 16];
    args[n++] = launch[0];
    if (is_ompi_launcher(launch[0])) {
        if (lib) {
            snprintf(xpre, sizeof xpre, "LD_PRELOAD=%s", preload);
            args[n++] = "-x";
            args[n++] = xpre;
        }
        for (size_t k = 0; k < nvars; k++)
            if (getenv(vars[k])) {
                args[n++] = "-x";
                args[n++] = (char *)vars[k];
            }
    } else if (lib) {
        setenv("LD_PRELOAD", preload, 1);
    }
    /* Open MPI applies `-x NAME=VALUE` to the first app context only: an MPMD launch
     * (mpirun -np 1 manager : -np 2 worker) ran its later contexts untraced, and the
     * traced ranks waited for them in MPI_Finalize for ever.  Each context gets it. */
    int ompi_pre = lib && is_ompi_launcher(launch[0]);
    for (int k = 1; k < nlaunch; k++) {
        args[n++] = launch[k];
        if (ompi_pre && !strcmp(launch[k], ":")) {
            args[n++] = "-x";
            args[n++] = xpre;
        }
    }
    args[n] = NULL;

    fflush(NULL); /* nothing buffered here is written twice, or after the child's output */
#ifdef PR_SET_CHILD_SUBREAPER
    if (ncodes > 0) /* a job pas2p may end itself (predict): reap_orphans */
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    /* the relay: a job pas2p may end itself (its banners hidden), and every Open MPI
     * launch that is not logged (its no_sync report recognised) */
    int relay = logfd < 0 && (ncodes > 0 || is_ompi_launcher(launch[0]));
    int pfd[2] = {-1, -1};
    if (relay && pipe(pfd)) {
        fprintf(stderr, "%s: pipe: %s\n", who, strerror(errno));
        free(args);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", who, strerror(errno));
        free(args);
        if (pfd[0] >= 0)
            close(pfd[0]), close(pfd[1]);
        if (logfd >= 0)
            close(logfd);
        return 2;
    }
    if (pid == 0) {
        if (logfd >= 0) {
            dup2(logfd, 1);
            dup2(logfd, 2);
        }
        if (pfd[1] >= 0) {
            dup2(pfd[1], 2);
            close(pfd[0]);
            close(pfd[1]);
        }
        execvp(args[0], args);
        fprintf(stderr, "%s: cannot run %s: %s\n", who, args[0], strerror(errno));
        _exit(127);
    }
    free(args);
    if (logfd >= 0)
        close(logfd);
    /* TERM/HUP/INT sent to us go to the launcher, which stops the ranks; then we wait for
     * it like for a normal end */
    child_pid = pid;
    struct sigaction sa, old_term, old_hup, old_int;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    sigaction(SIGINT, &sa, &old_int);
    int status = 0;
    if (pfd[0] >= 0) {
        close(pfd[1]);
        relay_t r = {.codes = codes, .ncodes = ncodes};
        relay_run(&r, pfd[0], pid, &status, timeout_s, &info->timed_out);
        close(pfd[0]);
        info->no_sync = r.no_sync;
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    child_pid = 0;
    /* a job pas2p may end itself (predict, MPI_Abort): the ranks the launcher left are
     * reaped, and any still running after 5 s are ended too.  Other launches are left as
     * they were (no subreaper: a job that ends by itself leaves nothing to reap) */
    if (ncodes > 0)
        reap_orphans(who, 5, 1);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    sigaction(SIGINT, &old_int, NULL);
    info->signaled = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int pas2p_launch(const char *who, const char *lib, char **launch, int nlaunch,
                 const char *const *vars, size_t nvars)
{
    pas2p_launch_info_t info;
    return launch_impl(who, lib, launch, nlaunch, vars, nvars, NULL, 0, NULL, 0, &info);
}

int pas2p_launch_info(const char *who, const char *lib, char **launch, int nlaunch,
                      const char *const *vars, size_t nvars, pas2p_launch_info_t *info)
{
    return launch_impl(who, lib, launch, nlaunch, vars, nvars, NULL, 0, NULL, 0, info);
}

int pas2p_launch_logged(const char *who, const char *lib, char **launch, int nlaunch,
                        const char *const *vars, size_t nvars, const char *log)
{
    pas2p_launch_info_t info;
    return launch_impl(who, lib, launch, nlaunch, vars, nvars, NULL, 0, log, 0, &info);
}

int pas2p_launch_hiding_abort(const char *who, const char *lib, char **launch, int nlaunch,
                              const char *const *vars, size_t nvars, const int *codes,
                              int ncodes, double timeout_s, pas2p_launch_info_t *info)
{
    /* (the watchdog lives in the relay: ncodes > 0) */
    return launch_impl(who, lib, launch, nlaunch, vars, nvars, codes, ncodes, NULL, timeout_s,
                       info);
}

void pas2p_launch_no_sync_note(char *out, size_t len, int status, const char *what)
{
    snprintf(out, len, "the launcher exited with status %d, saying a rank \"with PID 0\" exited "
             "improperly, but every rank wrote %s whole: Open MPI 4 now and then reports a rank "
             "that ended normally so (a race in its run-time, open-mpi/ompi#7833): kept", status,
             what);
}

void pas2p_launch_signal_note(char *out, size_t len, int sig, const char *what)
{
    snprintf(out, len, "the launcher was ended by signal %d (%s) after every rank had written "
             "%s whole: a crash of the launcher's own teardown (Open MPI 4.1's mpirun, now and "
             "then, in PMIx_server_finalize), not of the run: kept", sig, strsignal(sig), what);
}

char **pas2p_mpi_argv(char *const *launcher, int nl, long np, char *const *prog, int nprog,
                      int *n)
{
    static char *const defl[] = {"mpirun"};
    if (nl <= 0) {
        launcher = defl;
        nl = 1;
    }
    size_t slots = (size_t)nl + 3 + (size_t)(nprog > 0 ? nprog : 0);
    /* the array, then the number's text in the same allocation */
    char **v = malloc(slots * sizeof *v + 24);
    if (!v)
        return NULL;
    char *num = (char *)(v + slots);
    snprintf(num, 24, "%ld", np);
    int k = 0;
    for (int i = 0; i < nl; i++)
        v[k++] = launcher[i];
    v[k++] = "-np";
    v[k++] = num;
    for (int i = 0; i < nprog; i++)
        v[k++] = prog[i];
    v[k] = NULL;
    *n = k;
    return v;
}

void pas2p_join_argv(char *out, size_t len, char *const *argv, int n)
{
    size_t at = 0;
    if (len)
        out[0] = 0;
    for (int k = 0; k < n && at + 1 < len; k++) {
        int w = snprintf(out + at, len - at, "%s%s", k ? " " : "", argv[k]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}
