/* `pas2p trace [-o DIR] [--counters LIST] [--buffer SIZE] -- LAUNCH...`
 *
 * Runs LAUNCH with libpas2p preloaded in every rank: for Open MPI's launchers the library
 * and settings are passed with `-x` (so remote nodes get them too); any other launcher
 * (or a singleton ./app) gets them through the environment.  The application's exit
 * status is passed through. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pas2p_trace.h"

static const char usage[] =
    "usage: pas2p trace [-o DIR] [--counters LIST] [--buffer SIZE] -- LAUNCH...\n"
    "\n"
    "Runs an MPI application with libpas2p interposed on every rank and writes its trace\n"
    "to DIR: one binary file per rank and a manifest (see tracer/FORMAT.md).\n"
    "\n"
    "  -o DIR           trace directory; must not exist or be empty\n"
    "                   (default: pas2p-trace-YYYYmmdd-HHMMSS)\n"
    "  --counters LIST  comma-separated PAPI events recorded per event (default PAPI_TOT_INS;\n"
    "                   'none' for time only). Machines without counters trace time only.\n"
    "  --buffer SIZE    per-rank buffer written when full, e.g. 1M (default 256K)\n"
    "  LAUNCH           e.g. mpirun -np 4 ./app args  (or a singleton ./app)\n"
    "\n"
    "Prints `trace = DIR`, `np`, `events` and `AET` when the run ends; exits with the\n"
    "application's status.\n";

/* the launcher's pid, for forwarding signals (the command's only mutable static) */
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

static int make_dirs(const char *dir)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/* The trace directory must be new or empty, and writable: checked before anything runs. */
static int prepare_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            fprintf(stderr, "pas2p trace: %s exists and is not a directory\n", dir);
            return -1;
        }
        if (dir_is_empty(dir) != 1) {
            fprintf(stderr, "pas2p trace: %s is not empty; choose another -o or remove it\n", dir);
            return -1;
        }
    } else if (make_dirs(dir)) {
        fprintf(stderr, "pas2p trace: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/.pas2p-write-test", dir);
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || close(fd) || unlink(probe)) {
        fprintf(stderr, "pas2p trace: cannot write to %s: %s\n", dir, strerror(errno));
        if (fd >= 0)
            unlink(probe);
        return -1;
    }
    return 0;
}

/* Every named counter must be known to PAPI (countable or not on this machine). */
static int check_counters(const char *list)
{
    if (!strcmp(list, "none"))
        return 0;
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        fprintf(stderr, "pas2p trace: PAPI unavailable (%s); use --counters none\n",
                rc < 0 ? PAPI_strerror(rc) : "version mismatch");
        return -1;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int code;
        if (++n > PAS2P_MAX_COUNTERS) {
            fprintf(stderr, "pas2p trace: at most %d counters\n", PAS2P_MAX_COUNTERS);
            return -1;
        }
        if (strlen(t) >= PAS2P_COUNTER_NAME_LEN || PAPI_event_name_to_code(t, &code) != PAPI_OK) {
            fprintf(stderr, "pas2p trace: unknown counter '%s' (see papi_avail)\n", t);
            return -1;
        }
    }
    return 0;
}

static int find_library(char *out, size_t len)
{
    const char *env = getenv("PAS2P_LIB");
    if (env && *env) {
        snprintf(out, len, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n < 0)
            return -1;
        exe[n] = 0;
        snprintf(out, len, "%s/../lib/libpas2p.so", dirname(exe));
    }
    char real[PATH_MAX];
    if (!realpath(out, real) || access(real, R_OK)) {
        fprintf(stderr, "pas2p trace: tracing library %s not found (set PAS2P_LIB)\n", out);
        return -1;
    }
    snprintf(out, len, "%s", real);
    return 0;
}

static int is_ompi_launcher(const char *arg0)
{
    const char *b = strrchr(arg0, '/');
    b = b ? b + 1 : arg0;
    return !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun") ||
           !strncmp(b, "mpirun.", 7) || !strncmp(b, "mpiexec.", 8);
}

int pas2p_cmd_trace(int argc, char **argv)
{
    const char *dir = NULL, *counters = getenv("PAS2P_COUNTERS"), *buffer = NULL;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            dir = argv[++i];
        } else if (!strcmp(argv[i], "--counters") && i + 1 < argc) {
            counters = argv[++i];
        } else if (!strcmp(argv[i], "--buffer") && i + 1 < argc) {
            buffer = argv[++i];
        } else {
            fprintf(stderr, "pas2p trace: unexpected '%s' (the command goes after --; see --help)\n",
                    argv[i]);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "pas2p trace: no command to run (usage: pas2p trace [-o DIR] -- mpirun -np N ./app)\n");
        return 2;
    }
    char **launch = argv + i;
    int nlaunch = argc - i;

    char defdir[64], absdir[PATH_MAX];
    if (!dir) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(defdir, sizeof defdir, "pas2p-trace-%Y%m%d-%H%M%S", &tm);
        dir = defdir;
    }
    if (counters && *counters && check_counters(counters))
        return 2;
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib))
        return 2;
    if (prepare_dir(dir))
        return 2;
    if (!realpath(dir, absdir)) {
        fprintf(stderr, "pas2p trace: %s: %s\n", dir, strerror(errno));
        return 2;
    }

    /* the command line recorded in the manifest */
    size_t cl = 0;
    char cmd[4096] = "";
    for (int k = 0; k < nlaunch && cl < sizeof cmd; k++)
        cl += (size_t)snprintf(cmd + cl, sizeof cmd - cl, "%s%s", k ? " " : "", launch[k]);
    setenv("PAS2P_TRACE_DIR", absdir, 1);
    setenv("PAS2P_COMMAND", cmd, 1);
    if (counters && *counters)
        setenv("PAS2P_COUNTERS", counters, 1);
    if (buffer)
        setenv("PAS2P_BUFFER_SIZE", buffer, 1);

    char preload[PATH_MAX * 2];
    const char *old = getenv("LD_PRELOAD");
    /* an existing preload (a sanitizer runtime, another tool) stays first */
    snprintf(preload, sizeof preload, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", lib);

    char **args = calloc((size_t)nlaunch + 16, sizeof *args);
    if (!args) {
        fprintf(stderr, "pas2p trace: out of memory\n");
        return 2;
    }
    int n = 0;
    char xpre[PATH_MAX * 2 + 16];
    args[n++] = launch[0];
    if (is_ompi_launcher(launch[0])) {
        snprintf(xpre, sizeof xpre, "LD_PRELOAD=%s", preload);
        const char *xs[] = {"PAS2P_TRACE_DIR", "PAS2P_COMMAND", "PAS2P_COUNTERS",
                            "PAS2P_BUFFER_SIZE", "PAS2P_QUIET"};
        args[n++] = "-x";
        args[n++] = xpre;
        for (size_t k = 0; k < sizeof xs / sizeof *xs; k++)
            if (getenv(xs[k])) {
                args[n++] = "-x";
                args[n++] = (char *)xs[k];
            }
    } else {
        setenv("LD_PRELOAD", preload, 1);
    }
    for (int k = 1; k < nlaunch; k++)
        args[n++] = launch[k];
    args[n] = NULL;

    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "pas2p trace: fork: %s\n", strerror(errno));
        free(args);
        return 2;
    }
    if (pid == 0) {
        execvp(args[0], args);
        fprintf(stderr, "pas2p trace: cannot run %s: %s\n", args[0], strerror(errno));
        _exit(127);
    }
    free(args);
    /* TERM/HUP/INT sent to us go to the launcher, which stops the ranks (they save their
     * buffered events); then we wait for it like for a normal end */
    child_pid = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code == 127 && WIFEXITED(status))
        return 127;

    pas2p_manifest_t m;
    char err[1024], rank0[PATH_MAX];
    if (pas2p_manifest_read(absdir, &m, err, sizeof err)) {
        pas2p_rank_path(absdir, 0, rank0, sizeof rank0);
        if (access(rank0, F_OK))
            fprintf(stderr, "pas2p trace: no trace in %s: no rank called MPI_Init with libpas2p "
                            "(not an MPI program, or the launcher dropped LD_PRELOAD)\n", dir);
        else
            fprintf(stderr, "pas2p trace: incomplete trace in %s: no manifest (the run %s; see "
                            "the errors above); rank files are kept\n", dir,
                    code ? "failed" : "did not reach MPI_Finalize, or could not write");
        return code ? code : 1;
    }
    if (!m.complete) {
        fprintf(stderr, "pas2p trace: incomplete trace in %s: some ranks could not write their "
                        "files (see the errors above)\n", dir);
        pas2p_manifest_free(&m);
        return code ? code : 1;
    }
    printf("trace = %s\n", dir);
    printf("np = %d\n", m.np);
    printf("events = %llu\n", (unsigned long long)m.events);
    printf("AET = %.6f s\n", m.aet_s);
    if (code)
        fprintf(stderr, "pas2p trace: the application exited with status %d\n", code);
    pas2p_manifest_free(&m);
    return code;
}
