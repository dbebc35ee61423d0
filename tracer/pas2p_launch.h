/* Launching an MPI application with libpas2p interposed (tracer module): used by
 * `pas2p trace` (tracing) and `pas2p predict` (signature mode); `pas2p replay`, `pas2p
 * simulate` (smpirun, gnuplot) and `pas2p calibrate` run their programs through it with
 * nothing interposed.  For Open MPI's launchers
 * (mpirun, mpiexec, orterun) the library and the settings are passed with `-x`, so remote
 * nodes get them too; any other launcher, or a singleton ./app, gets them through the
 * environment. */
#ifndef PAS2P_LAUNCH_H
#define PAS2P_LAUNCH_H

#include <stddef.h>

/* An output directory: created if missing; refused (one line, prefixed with `who`) if it
 * is not a directory, not empty or not writable.  0 or -1. */
int pas2p_prepare_dir(const char *who, const char *dir);
/* The same check, its reason (without `who`) in err instead of on stderr. */
int pas2p_prepare_dir_err(const char *dir, char *err, size_t errlen);

/* CLOCK_MONOTONIC in seconds: the wall time of a launch */
double pas2p_mono_s(void);

/* PREFIX-YYYYmmdd-HHMMSS (local time), with -2, -3, ... if that exists: the default output
 * directory name */
void pas2p_default_dir(const char *prefix, char *out, size_t len);

/* A file installed with pas2p: $ENV if set, else REL relative to the running binary's
 * directory; resolved into out.  0, or -1 if it is not there (out: the path tried). */
int pas2p_find_beside(const char *env, const char *rel, char *out, size_t len);
/* libpas2p.so: $PAS2P_LIB, else ../lib/libpas2p.so next to this executable.  0, or -1
 * after a one-line message prefixed with `who`. */
int pas2p_find_library(const char *who, char *out, size_t len);

/* An MPI launch as one argv: launcher[0..nl) (nl == 0: plain `mpirun`), then `-np NP`,
 * then prog[0..nprog).  A fresh array, NULL-terminated (free() it; the strings are not
 * copied), its length in *n; NULL if out of memory.  `pas2p calibrate` and
 * `pas2p analyze --mpi` start their MPI helpers this way. */
char **pas2p_mpi_argv(char *const *launcher, int nl, long np, char *const *prog, int nprog,
                      int *n);

/* argv[0..n) joined by spaces into out (truncated to fit): a launch as one line */
void pas2p_join_argv(char *out, size_t len, char *const *argv, int n);

/* What a launch went through beyond its exit status. */
typedef struct {
    int timed_out;  /* the watchdog stopped it (pas2p_launch_hiding_abort's timeout_s) */
    /* Open MPI's launcher said a rank "exit[ed] improperly" and named it "with PID 0": Open
     * MPI 4's run-time now and then reports so a rank that ended normally (a race between
     * the rank's exit and its registration: open-mpi/ompi#7833, #9389, #12607; about one
     * launch in a thousand on this project's CI) and exits 1.  The caller trusts its own
     * evidence then: every rank's results written whole (a traced MPI_Finalize, a times or
     * replay file) mean the work is done, and it says why it kept it. */
    int no_sync;
    /* the launcher itself was killed by this signal (0: it exited): Open MPI 4.1's mpirun
     * now and then crashes in its own finalize (PMIx_server_finalize, signal 11) after every
     * rank has ended; the caller's own evidence decides, as for no_sync */
    int signaled;
} pas2p_launch_info_t;

/* The note a caller gives when it keeps a launch that no_sync failed (status: the
 * launcher's exit status; what: what every rank wrote, e.g. "its trace"). */
void pas2p_launch_no_sync_note(char *out, size_t len, int status, const char *what);
/* The note a caller gives when it keeps a launch whose launcher was killed by signal sig
 * (pas2p_launch_info_t.signaled) after every rank wrote `what` whole. */
void pas2p_launch_signal_note(char *out, size_t len, int sig, const char *what);
/* after a launch that left no trace: an executable it names that is linked to MPICH's
 * library (ldd), whose ranks cannot run under libpas2p (Open MPI's): 1, its name in prog */
int pas2p_launch_mpich_program(char *const *launch, int nlaunch, char *prog, size_t len);

/* Runs launch[0..nlaunch) with `lib` preloaded (NULL: nothing preloaded); the environment variables named in vars
 * (those set) are forwarded.  SIGTERM/SIGHUP/SIGINT are passed to the launcher while it
 * runs.  Returns its exit status (128 + signal if killed; 127: could not be run; 2: fork
 * failed, after a message). */
int pas2p_launch(const char *who, const char *lib, char **launch, int nlaunch,
                 const char *const *vars, size_t nvars);
/* The same, with what the launch went through in *info.  An Open MPI launcher's stderr then
 * goes through pas2p's relay (see pas2p_launch_hiding_abort), which passes it through and
 * recognises the launcher's no_sync report. */
int pas2p_launch_info(const char *who, const char *lib, char **launch, int nlaunch,
                      const char *const *vars, size_t nvars, pas2p_launch_info_t *info);
/* The same, with the launch's stdout and stderr written to the file `log` (truncated;
 * NULL: inherited): `pas2p simulate` runs smpirun and gnuplot this way.  The one fork and
 * exec of the commands. */
int pas2p_launch_logged(const char *who, const char *lib, char **launch, int nlaunch,
                        const char *const *vars, size_t nvars, const char *log);

/* pas2p_launch, with the launcher's stderr relayed through pas2p: Open MPI's banner about
 * an MPI_Abort with one of the errorcodes codes[0..ncodes) (the signature runtime's own:
 * its guaranteed stop, a divergence it reports itself) is dropped, every other line passed
 * through as it comes.  timeout_s > 0: a launch still running after that long is stopped
 * (SIGTERM to the launcher, which ends its ranks; SIGKILL 10 s later) and info->timed_out
 * set.  info: as pas2p_launch_info's. */
int pas2p_launch_hiding_abort(const char *who, const char *lib, char **launch, int nlaunch,
                              const char *const *vars, size_t nvars, const int *codes,
                              int ncodes, double timeout_s, pas2p_launch_info_t *info);

#endif
