/* `pas2p simulate`: the signature (or, as the reference, the whole trace) replayed on a
 * SimGrid platform.  Translates to actions (actions.c), maps ranks to the platform's hosts,
 * runs the replayer under smpirun, and predicts with the PET module. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pas2p_launch.h"
#include "pas2p_pet.h"
#include "pas2p_platform.h"
#include "pas2p_sim.h"
#include "pas2p_trace.h"

static const char usage[] =
    "usage: pas2p simulate SIGNATURE.xml --platform P.xml [options]\n"
    "       pas2p simulate --full-trace TRACE_DIR --platform P.xml [options]\n"
    "\n"
    "Predicts the run on a simulated target: each relevant phase of the signature becomes\n"
    "MPI actions per rank (simbackend/ACTIONS.md), replayed inside SimGrid SMPI on the\n"
    "platform P.xml (one simulation for all phases; each phase replayed --reps times after\n"
    "a barrier, the first warming up).  Computation keeps its base time on a host as fast\n"
    "as --base-speed; the target's hosts run it at their own speed.  PET comes from the same\n"
    "equation as `pas2p predict`.  --full-trace replays every event of a trace instead: the\n"
    "reference a signature simulation must agree with.\n"
    "\n"
    "  --platform P.xml     SimGrid 4.1 platform (platforms/*.xml, or `pas2p calibrate`)\n"
    "  --hostfile H         host of each rank, one per line (default: --map over the platform)\n"
    "  --map block|round-robin   ranks over the platform's host cores (default block)\n"
    "  --base-speed F       flop/s of the base machine's cores (e.g. 2.5Gf; default: the speed\n"
    "                       of rank 0's host, i.e. the target CPU is the base CPU).  `kernel`:\n"
    "                       each rank's own speed on the base, measured by the trace's kernel\n"
    "                       calibration (tracer/pas2p_kernel.h), for platforms whose host\n"
    "                       speeds are kernel flop/s (validation/vcluster platform)\n"
    "  --reps N             replays of each phase (default 2), the first a warm-up of its\n"
    "                       messages without its computation; a phase of weight 1 once\n"
    "  --aet T              the measured time on the target (s): prints PETE\n"
    "  --relative BASE_DIR  BASE_DIR holds a simulation of the same signature on the base\n"
    "                       machine's platform (`pas2p calibrate`; same --base-speed): each\n"
    "                       phase's target time is its base PhaseET x (simulated time here /\n"
    "                       simulated time there), so what the model gets wrong on both\n"
    "                       platforms (computation as flops, the network model) cancels out\n"
    "  --what-if LIST       a hypothetical change of the platform, e.g. speed=2,bw=0.5,lat=2:\n"
    "                       host speeds, link bandwidths and latencies multiplied (the scaled\n"
    "                       platform is written to DIR/platform.xml)\n"
    "  --sweep GRID         the procurement study: one simulation per point of a grid of\n"
    "                       what-if factors, e.g. speed=0.5:1:2,bw=1:10,lat=1 (values\n"
    "                       separated by ':'; a factor not named stays 1; at most 256\n"
    "                       points).  Writes DIR/sweep.csv, DIR/sweep.png (gnuplot; the\n"
    "                       script DIR/sweep.gp is kept) and each point's results in\n"
    "                       DIR/point-NNN/, and prints the table\n"
    "  --sg-cfg OPT         passed to SimGrid as --cfg=OPT (repeatable), e.g.\n"
    "                       network/model:CM02\n"
    "  -o DIR               results (default pas2p-simulate-YYYYmmdd-HHMMSS): actions/,\n"
    "                       hostfile, simgrid.log, rank-*.times, prediction.xml\n"
    "  --verbose            show SimGrid's own output\n"
    "\n"
    "Prints `PET = T s`, `SET = T s` (simulated time of the whole replay), `wall = T s` (the\n"
    "simulation's real time) and the per-phase table.\n";

/* the replayer, next to this pas2p binary (or $PAS2P_SIMREPLAY) */
static int find_replayer(char *out, size_t len)
{
    if (pas2p_find_beside("PAS2P_SIMREPLAY", "pas2p-simreplay", out, len) || access(out, X_OK)) {
        fprintf(stderr, "pas2p simulate: the replayer %s is missing (build with SimGrid "
                "installed: scripts/setup.sh; or set PAS2P_SIMREPLAY)\n", out);
        return -1;
    }
    return 0;
}

/* runs argv with stdout+stderr into `log` (and to the terminal with verbose); exit code,
 * 127 if it could not start */
static int run_logged(char **argv, const char *log, int verbose)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "pas2p simulate: cannot write %s: %s\n", log, strerror(errno));
        return 127;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        fprintf(stderr, "pas2p simulate: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        if (!verbose) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "pas2p simulate: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* --sweep GRID: up to 16 values for each of speed, bw, lat */
typedef struct {
    double v[3][16];
    int n[3];
} grid_t;

static const char *const factor_names[3] = {"speed", "bw", "lat"};

/* "speed=0.5:1:2,bw=1:10": 0, or -1 after a one-line message */
static int parse_grid(const char *spec, grid_t *g)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    for (int k = 0; k < 3; k++) {
        g->n[k] = 1;
        g->v[k][0] = 1;
    }
    int seen[3] = {0, 0, 0};
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        int k = -1;
        for (int j = 0; eq && j < 3; j++)
            if ((size_t)(eq - tok) == strlen(factor_names[j]) && !strncmp(tok, factor_names[j], (size_t)(eq - tok)))
                k = j;
        if (k < 0 || seen[k]) {
            fprintf(stderr, "pas2p simulate: --sweep takes speed=A:B...,bw=...,lat=... (each once), not '%s'\n", tok);
            return -1;
        }
        seen[k] = 1;
        g->n[k] = 0;
        char *vs = NULL;
        for (char *v = strtok_r(eq + 1, ":", &vs); v; v = strtok_r(NULL, ":", &vs)) {
            char *end;
            double x = strtod(v, &end);
            if (*end || !(x > 0) || g->n[k] == 16) {
                fprintf(stderr, "pas2p simulate: --sweep %s: factors > 0, at most 16, not '%s'\n", factor_names[k], v);
                return -1;
            }
            g->v[k][g->n[k]++] = x;
        }
        if (!g->n[k]) {
            fprintf(stderr, "pas2p simulate: --sweep %s= has no value\n", factor_names[k]);
            return -1;
        }
    }
    if (g->n[0] * g->n[1] * g->n[2] > 256) {
        fprintf(stderr, "pas2p simulate: --sweep asks for %d points, at most 256\n", g->n[0] * g->n[1] * g->n[2]);
        return -1;
    }
    return 0;
}

/* the first line of SimGrid's log that explains a failure */
static void first_error(const char *log, char *out, size_t len)
{
    out[0] = 0;
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strstr(line, "pas2p-simreplay:") || strstr(line, "/CRITICAL]") || strstr(line, "/ERROR]") ||
            strstr(line, "Error") || strstr(line, "error") || strstr(line, "Abort")) {
            const char *p = strstr(line, "pas2p-simreplay:");
            snprintf(out, len, "%.1500s", p ? p : line);
            break;
        }
    }
    fclose(f);
}

/* a times file is missing although SimGrid exited 0 (it does on a deadlock): say why */
static void unfinished(const char *log, const char *err)
{
    char why[1600];
    first_error(log, why, sizeof why);
    if (why[0])
        fprintf(stderr, "pas2p simulate: the replay did not finish: %s (log: %s)\n", why, log);
    else
        fprintf(stderr, "pas2p simulate: %s\n", err);
}

/* the last "pas2p simulate: ..." line of a point's log: why it failed */
static void point_error(const char *log, char *out, size_t len)
{
    snprintf(out, len, "no reason given (log: %.1000s)", log);
    FILE *f = fopen(log, "r");
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "pas2p simulate: ", 16) && !strstr(line, " replaying ")) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, len, "%.1500s", line + 16);
        }
    fclose(f);
}

/* --sweep: this command again for every point of the grid, with --what-if and its own -o;
 * argv without --sweep, -o and --verbose goes to every point.  The table, sweep.csv, and a
 * plot of PET against the speed factor, one line per (bw, lat). */
static int sweep(int argc, char **argv, const grid_t *g, const char *dir)
{
    char self[PATH_MAX], defdir[64], absdir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "pas2p simulate: cannot find this program (/proc/self/exe)\n");
        return 1;
    }
    self[n] = 0;
    if (!dir) {
        pas2p_default_dir("pas2p-sweep", defdir, sizeof defdir);
        dir = defdir;
    }
    if (pas2p_prepare_dir("pas2p simulate", dir) || !realpath(dir, absdir))
        return 2;
    char **cargv = calloc((size_t)argc + 8, sizeof *cargv);
    int total = g->n[0] * g->n[1] * g->n[2];
    double *pet = calloc((size_t)total, sizeof *pet), *set = calloc((size_t)total, sizeof *set);
    if (!cargv || !pet || !set) {
        fprintf(stderr, "pas2p simulate: out of memory\n");
        free(cargv);
        free(pet);
        free(set);
        return 1;
    }
    int c = 0;
    cargv[c++] = self;
    cargv[c++] = "simulate";
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--sweep") || !strcmp(argv[i], "-o")) && i + 1 < argc) {
            i++;
            continue;
        }
        if (strcmp(argv[i], "--verbose"))
            cargv[c++] = argv[i];
    }
    char wi[128], sub[PATH_MAX + 32], log[PATH_MAX + 32], why[1600];
    cargv[c++] = "--what-if";
    cargv[c++] = wi;
    cargv[c++] = "-o";
    cargv[c++] = sub;
    cargv[c] = NULL;
    int quiet = getenv("PAS2P_QUIET") && *getenv("PAS2P_QUIET"), failed = 0, p = 0;
    for (int a = 0; a < g->n[0]; a++)
        for (int b = 0; b < g->n[1]; b++)
            for (int l = 0; l < g->n[2]; l++, p++) {
                snprintf(wi, sizeof wi, "speed=%g,bw=%g,lat=%g", g->v[0][a], g->v[1][b], g->v[2][l]);
                snprintf(sub, sizeof sub, "%s/point-%03d", absdir, p + 1);
                snprintf(log, sizeof log, "%s/point-%03d.log", absdir, p + 1);
                if (!quiet)
                    fprintf(stderr, "pas2p simulate: sweep point %d/%d: %s\n", p + 1, total, wi);
                int code = run_logged(cargv, log, 0);
                pas2p_prediction_t r;
                memset(&r, 0, sizeof r);
                char xml[PATH_MAX + 64], err[4400];
                snprintf(xml, sizeof xml, "%s/prediction.xml", sub);
                pet[p] = set[p] = NAN;
                if (!code && !pas2p_prediction_read(xml, &r, err, sizeof err)) {
                    pet[p] = r.pet.pet_s;
                    set[p] = r.pet.set_s;
                }
                pas2p_prediction_free(&r);
                if (isnan(pet[p])) {
                    point_error(log, why, sizeof why);
                    fprintf(stderr, "pas2p simulate: sweep point %d (%s) failed: %s\n", p + 1, wi, why);
                    failed = 1;
                    if (p == 0) /* the first point's error is every point's */
                        goto out;
                }
            }
out:;
    /* the reference for the ratios: the point with every factor 1, else the first */
    int ref = 0;
    for (int a = 0, q = 0; a < g->n[0]; a++)
        for (int b = 0; b < g->n[1]; b++)
            for (int l = 0; l < g->n[2]; l++, q++)
                if (g->v[0][a] == 1 && g->v[1][b] == 1 && g->v[2][l] == 1)
                    ref = q;
    char csv[PATH_MAX + 32], dat[PATH_MAX + 32], gp[PATH_MAX + 32], png[PATH_MAX + 32];
    snprintf(csv, sizeof csv, "%s/sweep.csv", absdir);
    snprintf(dat, sizeof dat, "%s/sweep.dat", absdir);
    snprintf(gp, sizeof gp, "%s/sweep.gp", absdir);
    snprintf(png, sizeof png, "%s/sweep.png", absdir);
    FILE *fc = fopen(csv, "w"), *fd = fopen(dat, "w");
    if (!fc || !fd) {
        fprintf(stderr, "pas2p simulate: cannot write %s\n", fc ? dat : csv);
        if (fc)
            fclose(fc);
        if (fd)
            fclose(fd);
        free(cargv);
        free(pet);
        free(set);
        return 1;
    }
    fprintf(fc, "point,speed,bw,lat,pet_s,set_s,pet_ratio\n");
    printf("sweep = %s\npoints = %d\n  point    speed       bw      lat        PET_s  PET/ref\n", dir, p);
    for (int a = 0, q = 0; a < g->n[0]; a++)
        for (int b = 0; b < g->n[1]; b++)
            for (int l = 0; l < g->n[2]; l++, q++) {
                if (q >= p)
                    break;
                double ratio = pet[q] / pet[ref];
                if (isnan(pet[q])) { /* failed: said above, with its reason */
                    fprintf(fc, "%d,%g,%g,%g,fail,fail,fail\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l]);
                    printf("  %5d %8g %8g %8g %12s\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l], "failed");
                    continue;
                }
                fprintf(fc, "%d,%g,%g,%g,%.9g,%.9g,%.6g\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l],
                        pet[q], set[q], ratio);
                printf("  %5d %8g %8g %8g %12.6f %8.4f\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l],
                       pet[q], ratio);
            }
    fclose(fc);
    /* the plot: PET along the first factor that varies (speed by default), one line per
     * combination of the other two; one gnuplot data block per line */
    int xk = g->n[0] > 1 ? 0 : g->n[1] > 1 ? 1 : g->n[2] > 1 ? 2 : 0;
    int o1 = xk == 0 ? 1 : 0, o2 = xk == 2 ? 1 : 2;
    for (int i1 = 0; i1 < g->n[o1]; i1++)
        for (int i2 = 0; i2 < g->n[o2]; i2++) {
            for (int x = 0; x < g->n[xk]; x++) {
                int idx[3];
                idx[xk] = x;
                idx[o1] = i1;
                idx[o2] = i2;
                int q = (idx[0] * g->n[1] + idx[1]) * g->n[2] + idx[2];
                if (q < p && !isnan(pet[q]))
                    fprintf(fd, "%g %.9g\n", g->v[xk][x], pet[q]);
            }
            fprintf(fd, "\n\n");
        }
    fclose(fd);
    FILE *fg = fopen(gp, "w");
    if (fg) {
        fprintf(fg, "set terminal pngcairo size 800,600\nset output \"%s\"\n"
                    "set title \"pas2p simulate --sweep: PET by %s factor\"\n"
                    "set xlabel \"%s factor\"; set ylabel \"PET (s)\"; set grid; set key top right\n"
                    "set logscale x\nplot ", png, factor_names[xk], factor_names[xk]);
        for (int i1 = 0, k = 0; i1 < g->n[o1]; i1++)
            for (int i2 = 0; i2 < g->n[o2]; i2++, k++)
                fprintf(fg, "%s\"%s\" index %d using 1:2 with linespoints title \"%s x%g, %s x%g\"",
                        k ? ", " : "", dat, k, factor_names[o1], g->v[o1][i1], factor_names[o2],
                        g->v[o2][i2]);
        fprintf(fg, "\n");
        fclose(fg);
    }
    char *gpv[] = {"gnuplot", gp, NULL}, gplog[PATH_MAX + 32];
    snprintf(gplog, sizeof gplog, "%s/gnuplot.log", absdir);
    int gcode = fg && p > 0 ? run_logged(gpv, gplog, 0) : 127;
    printf("csv = %s/sweep.csv\n", dir);
    if (!p)
        printf("plot: not drawn (no point was simulated)\n");
    else if (!gcode)
        printf("plot = %s/sweep.png\n", dir);
    else
        printf("plot: not drawn (%s; the gnuplot script is %s/sweep.gp)\n",
               gcode == 127 ? "no gnuplot: scripts/setup.sh installs gnuplot-nox" : "gnuplot failed, see gnuplot.log", dir);
    free(cargv);
    free(pet);
    free(set);
    return failed ? 1 : 0;
}

int pas2p_cmd_simulate(int argc, char **argv)
{
    const char *sig_path = NULL, *trace = NULL, *platform = NULL, *hostfile = NULL, *dir = NULL,
               *rel = NULL;
    int block = 1, verbose = 0;
    long reps = 2;
    double base_speed = 0, aet = 0, wf[3] = {1, 1, 1}; /* what-if: speed, bw, lat */
    int kernel_speed = 0; /* --base-speed kernel: each rank's calibrated base speed */
    char mode[96] = "base speed: rank 0's host"; /* what a --relative base must share */
    char *cfgs[32];
    int ncfg = 0, sweeping = 0, whatif = 0;
    grid_t grid;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--platform") && more) {
            platform = argv[++i];
        } else if (!strcmp(a, "--full-trace") && more) {
            trace = argv[++i];
        } else if (!strcmp(a, "--hostfile") && more) {
            hostfile = argv[++i];
        } else if (!strcmp(a, "--map") && more) {
            const char *m = argv[++i];
            if (strcmp(m, "block") && strcmp(m, "round-robin")) {
                fprintf(stderr, "pas2p simulate: --map is block or round-robin, not '%s'\n", m);
                return 2;
            }
            block = !strcmp(m, "block");
        } else if (!strcmp(a, "--base-speed") && more) {
            kernel_speed = !strcmp(argv[++i], "kernel");
            base_speed = kernel_speed ? 0 : pas2p_parse_speed(argv[i]);
            if (!kernel_speed && !(base_speed > 0)) {
                fprintf(stderr, "pas2p simulate: --base-speed needs a speed such as 2.5Gf or 'kernel', not '%s'\n", argv[i]);
                return 2;
            }
            if (kernel_speed)
                snprintf(mode, sizeof mode, "base speed: kernel calibration");
            else
                snprintf(mode, sizeof mode, "base speed: %.6g flop/s", base_speed);
        } else if (!strcmp(a, "--relative") && more) {
            rel = argv[++i];
        } else if (!strcmp(a, "--reps") && more) {
            char *end;
            reps = strtol(argv[++i], &end, 10);
            if (*end || reps < 1 || reps > 16) {
                fprintf(stderr, "pas2p simulate: --reps needs a number from 1 to 16\n");
                return 2;
            }
        } else if (!strcmp(a, "--aet") && more) {
            char *end;
            aet = strtod(argv[++i], &end);
            if (*end || !(aet > 0)) {
                fprintf(stderr, "pas2p simulate: --aet needs a time in seconds > 0\n");
                return 2;
            }
        } else if (!strcmp(a, "--sg-cfg") && more) {
            if (ncfg == 32) {
                fprintf(stderr, "pas2p simulate: at most 32 --sg-cfg\n");
                return 2;
            }
            cfgs[ncfg++] = argv[++i];
        } else if (!strcmp(a, "--sweep") && more) {
            if (parse_grid(argv[++i], &grid))
                return 2;
            sweeping = 1;
        } else if (!strcmp(a, "--what-if") && more) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                char *eq = strchr(tok, '='), *end = NULL;
                int k = !eq ? -1 : !strncmp(tok, "speed=", 6) ? 0 : !strncmp(tok, "bw=", 3) ? 1
                                 : !strncmp(tok, "lat=", 4) ? 2 : -1;
                double v = k >= 0 ? strtod(eq + 1, &end) : 0;
                if (k < 0 || *end || !(v > 0)) {
                    fprintf(stderr, "pas2p simulate: --what-if takes speed=F,bw=F,lat=F with "
                            "factors > 0, not '%s'\n", tok);
                    return 2;
                }
                wf[k] = v;
            }
            whatif = 1;
        } else if (!strcmp(a, "-o") && more) {
            dir = argv[++i];
        } else if (!strcmp(a, "--verbose")) {
            verbose = 1;
        } else if (a[0] == '-' || sig_path) {
            fprintf(stderr, "pas2p simulate: unexpected '%s' (see --help)\n", a);
            return 2;
        } else {
            sig_path = a;
        }
    }
    if (!!sig_path == !!trace) {
        fprintf(stderr, "pas2p simulate: give a signature or --full-trace TRACE_DIR (see --help)\n");
        return 2;
    }
    if (!platform) {
        fprintf(stderr, "pas2p simulate: no --platform (e.g. platforms/gbe-cluster.xml)\n");
        return 2;
    }
    if (sweeping && whatif) {
        fprintf(stderr, "pas2p simulate: --sweep is a grid of --what-if factors: give one of them\n");
        return 2;
    }
    if (sweeping)
        return sweep(argc, argv, &grid, dir);
    if (rel && trace) {
        fprintf(stderr, "pas2p simulate: --relative compares signature simulations, not --full-trace\n");
        return 2;
    }
    char err[4400], replayer[PATH_MAX];
    if (rel && pas2p_prediction_check_base(rel, "simulate", sig_path, mode, err, sizeof err)) {
        fprintf(stderr, "pas2p simulate: %s\n", err);
        return 2;
    }
    pas2p_signature_t sig;
    memset(&sig, 0, sizeof sig);
    pas2p_platform_t plat;
    memset(&plat, 0, sizeof plat);
    uint32_t np = 0;
    int rc = 2, *map = NULL;
    if (sig_path) {
        if (pas2p_signature_read(sig_path, &sig, err, sizeof err)) {
            fprintf(stderr, "pas2p simulate: %s\n", err);
            return 2;
        }
        np = sig.np;
        const pas2p_sig_rank_t *uncal = kernel_speed ? pas2p_signature_uncalibrated(&sig) : NULL;
        if (uncal) {
            fprintf(stderr, "pas2p simulate: %s: rank %u has no kernel calibration: give "
                    "--base-speed a speed\n", sig_path, uncal->rank);
            pas2p_signature_free(&sig);
            return 2;
        }
    } else {
        pas2p_manifest_t m;
        if (pas2p_manifest_read(trace, &m, err, sizeof err)) {
            fprintf(stderr, "pas2p simulate: %s\n", err);
            return 2;
        }
        np = (uint32_t)m.np;
        int uncal = -1;
        for (uint32_t r = 0; kernel_speed && uncal < 0 && r < np; r++)
            if (!(m.kernel_rate && m.kernel_rate[r] > 0))
                uncal = (int)r;
        pas2p_manifest_free(&m);
        if (uncal >= 0) {
            fprintf(stderr, "pas2p simulate: %s: rank %d has no kernel calibration: give "
                    "--base-speed a speed\n", trace, uncal);
            return 2;
        }
    }
    if (pas2p_platform_read(platform, &plat, err, sizeof err)) {
        fprintf(stderr, "pas2p simulate: %s\n", err);
        goto out;
    }
    if (find_replayer(replayer, sizeof replayer))
        goto out;
    map = calloc(np ? np : 1, sizeof *map);
    if (!map)
        goto out;
    char defdir[64], absdir[PATH_MAX], path[PATH_MAX + 64], actdir[PATH_MAX + 64];
    if (!dir) {
        pas2p_default_dir("pas2p-simulate", defdir, sizeof defdir);
        dir = defdir;
    }
    if (pas2p_prepare_dir("pas2p simulate", dir) || !realpath(dir, absdir))
        goto out;

    /* rank -> host */
    snprintf(path, sizeof path, "%s/hostfile", absdir);
    if (hostfile) {
        FILE *h = fopen(hostfile, "r");
        if (!h) {
            fprintf(stderr, "pas2p simulate: %s: cannot open: %s\n", hostfile, strerror(errno));
            goto out;
        }
        char line[512];
        uint32_t n = 0;
        long ln = 0;
        while (n < np && fgets(line, sizeof line, h)) {
            ln++;
            line[strcspn(line, " \t\r\n")] = 0;
            if (!line[0] || line[0] == '#')
                continue;
            int k = pas2p_platform_find(&plat, line);
            if (k < 0) {
                fprintf(stderr, "pas2p simulate: %s:%ld: unknown host '%s' (not in %s)\n", hostfile,
                        ln, line, platform);
                fclose(h);
                goto out;
            }
            map[n++] = k;
        }
        fclose(h);
        if (n < np) {
            fprintf(stderr, "pas2p simulate: %s names %u hosts for %u ranks\n", hostfile, n, np);
            goto out;
        }
    } else if (pas2p_platform_map(&plat, np, block, map, err, sizeof err)) {
        fprintf(stderr, "pas2p simulate: %s: %s\n", platform, err);
        goto out;
    }
    FILE *h = fopen(path, "w");
    for (uint32_t r = 0; h && r < np; r++)
        fprintf(h, "%s\n", plat.hosts[map[r]].name);
    if (!h || fclose(h)) {
        fprintf(stderr, "pas2p simulate: %s: cannot write\n", path);
        goto out;
    }
    if (!(base_speed > 0))
        base_speed = plat.hosts[map[0]].speed;
    const char *simplat = platform;
    char scaled[PATH_MAX + 64];
    if (wf[0] != 1 || wf[1] != 1 || wf[2] != 1) {
        snprintf(scaled, sizeof scaled, "%s/platform.xml", absdir);
        if (pas2p_platform_scale(platform, scaled, wf[0], wf[1], wf[2], err, sizeof err)) {
            fprintf(stderr, "pas2p simulate: %s\n", err);
            goto out;
        }
        simplat = scaled;
    }

    /* the actions */
    snprintf(actdir, sizeof actdir, "%s/actions", absdir);
    if (mkdir(actdir, 0755) && errno != EEXIST) {
        fprintf(stderr, "pas2p simulate: %s: %s\n", actdir, strerror(errno));
        goto out;
    }
    uint64_t events = 0;
    int trc = sig_path ? pas2p_actions_from_signature(&sig, actdir, err, sizeof err)
                       : pas2p_actions_from_trace(trace, actdir, &events, err, sizeof err);
    if (trc) {
        fprintf(stderr, "pas2p simulate: %s\n", err);
        goto out;
    }
    if (err[0]) /* the phases were aligned to the representative's */
        fprintf(stderr, "pas2p simulate: note: %s\n", err);

    /* the simulation */
    char nps[16], repss[16], speeds[32], logp[PATH_MAX + 64];
    snprintf(nps, sizeof nps, "%u", np);
    snprintf(repss, sizeof repss, "%ld", sig_path ? reps : 1);
    if (kernel_speed)
        snprintf(speeds, sizeof speeds, "kernel");
    else
        snprintf(speeds, sizeof speeds, "%.17g", base_speed);
    snprintf(logp, sizeof logp, "%s/simgrid.log", absdir);
    char *cmd[64 + 32 * 2];
    int c = 0;
    char cfgbuf[32][512];
    cmd[c++] = "smpirun";
    cmd[c++] = "-np";
    cmd[c++] = nps;
    cmd[c++] = "-platform";
    cmd[c++] = (char *)simplat;
    cmd[c++] = "-hostfile";
    cmd[c++] = path;
    cmd[c++] = "--cfg=smpi/simulate-computation:no"; /* only the actions' flops count */
    cmd[c++] = "--cfg=smpi/wtime:0";                 /* reading the clock costs nothing */
    cmd[c++] = "--log=xbt_cfg.thres:warning";
    cmd[c++] = "--log=smpi_config.thres:warning";
    for (int k = 0; k < ncfg; k++) {
        snprintf(cfgbuf[k], sizeof cfgbuf[k], "--cfg=%.500s", cfgs[k]);
        cmd[c++] = cfgbuf[k];
    }
    cmd[c++] = replayer;
    cmd[c++] = actdir;
    cmd[c++] = absdir;
    cmd[c++] = repss;
    cmd[c++] = speeds;
    cmd[c] = NULL;
    if (!getenv("PAS2P_QUIET") || !*getenv("PAS2P_QUIET"))
        fprintf(stderr, "pas2p simulate: %u ranks on %s, SimGrid replaying %s\n", np, platform,
                sig_path ? "the signature's relevant phases" : "the whole trace");
    double w0 = pas2p_mono_s();
    int code = run_logged(cmd, logp, verbose);
    double wall = pas2p_mono_s() - w0;
    if (code) {
        char why[1600];
        first_error(logp, why, sizeof why);
        if (code > 128 && !why[0]) /* SimGrid 3.x dies on some malformed <config> values */
            snprintf(why, sizeof why, "it crashed (signal %d) on %.1000s: check its <config> "
                     "props (smpi/bw-factor and smpi/lat-factor take \"size:factor;...\")",
                     code - 128, platform);
        fprintf(stderr, "pas2p simulate: SimGrid failed (exit %d)%s%s (log: %s)\n", code,
                why[0] ? ": " : "", why, logp);
        rc = 1;
        goto out;
    }

    if (trace) { /* the reference: the replay's simulated time is the prediction */
        double set = 0;
        for (uint32_t r = 0; r < np; r++) {
            pas2p_sig_rank_t R = {.rank = r};
            pas2p_times_t st = {0};
            if (pas2p_times_read(absdir, &R, NULL, &st, err, sizeof err)) {
                unfinished(logp, err);
                rc = 1;
                goto out;
            }
            if (st.set_s > set)
                set = st.set_s;
        }
        printf("results = %s\nevents = %llu\nPET = %.6f s\n", dir, (unsigned long long)events, set);
        if (aet > 0)
            printf("AET = %.6f s\nPETE = %+.2f %%\n", aet, (set - aet) / aet * 100);
        printf("wall = %.6f s\n", wall);
        rc = 0;
        goto out;
    }
    pas2p_prediction_t res;
    memset(&res, 0, sizeof res);
    rc = 1;
    if (pas2p_pet_from_times(&sig, absdir, rel, aet, &res.pet, err, sizeof err)) {
        unfinished(logp, err);
        goto out;
    }
    pas2p_prediction_begin(&res, "simulate", sig_path, &sig, wall);
    snprintf(res.target, sizeof res.target, "%s", platform);
    snprintf(res.stop, sizeof res.stop, "simulated: %ld replay(s) of each relevant phase (one of a phase of weight 1), %s%s%.300s",
             reps, mode, rel ? ", relative to the base simulation in " : "", rel ? rel : "");
    snprintf(path, sizeof path, "%s/prediction.xml", absdir);
    if (pas2p_prediction_write(&res, path, err, sizeof err)) {
        fprintf(stderr, "pas2p simulate: %s\n", err);
    } else {
        printf("results = %s\nprediction = %s/prediction.xml\n", dir, dir);
        if (kernel_speed)
            printf("platform = %s\nbase speed = kernel calibration of each rank\n", platform);
        else
            printf("platform = %s\nbase speed = %.6g flop/s\n", platform, base_speed);
        if (simplat != platform)
            printf("what-if = speed x%g, bandwidth x%g, latency x%g\n", wf[0], wf[1], wf[2]);
        pas2p_prediction_print(&res, stdout);
        rc = 0;
    }
    pas2p_prediction_free(&res);
out:
    free(map);
    pas2p_platform_free(&plat);
    pas2p_signature_free(&sig);
    return rc;
}
