/* `pas2p simulate --sweep GRID` (pas2p_sim.h): the simulate pipeline run in this process at
 * every point of a grid of what-if factors, then the table, sweep.csv and a plot of PET
 * against the first factor that varies, one line per combination of the other two. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_launch.h"
#include "pas2p_sim.h"

static const char *const factor_names[3] = {"speed", "bw", "lat"};

int pas2p_sweep_parse(const char *spec, pas2p_sweep_grid_t *g, char *err, size_t errlen)
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
            snprintf(err, errlen, "--sweep takes speed=A:B...,bw=...,lat=... (each once), not '%s'", tok);
            return -1;
        }
        seen[k] = 1;
        g->n[k] = 0;
        char *vs = NULL;
        for (char *v = strtok_r(eq + 1, ":", &vs); v; v = strtok_r(NULL, ":", &vs)) {
            char *end;
            double x = strtod(v, &end);
            if (*end || !(x > 0) || g->n[k] == 16) {
                snprintf(err, errlen, "--sweep %s: factors > 0, at most 16, not '%s'", factor_names[k], v);
                return -1;
            }
            g->v[k][g->n[k]++] = x;
        }
        if (!g->n[k]) {
            snprintf(err, errlen, "--sweep %s= has no value", factor_names[k]);
            return -1;
        }
    }
    if (g->n[0] * g->n[1] * g->n[2] > 256) {
        snprintf(err, errlen, "--sweep asks for %d points, at most 256", g->n[0] * g->n[1] * g->n[2]);
        return -1;
    }
    return 0;
}

/* a factor as the point's label shows it (%g): the point simulates what it says, the same
 * as `--what-if` with that label would */
static double as_shown(double x)
{
    char b[64];
    snprintf(b, sizeof b, "%g", x);
    return strtod(b, NULL);
}

/* sweep.csv, sweep.dat, sweep.gp, the plot and the table, for the first p points */
static int report(FILE *out, const char *cmd, const char *dir, const char *absdir,
                  const pas2p_sweep_grid_t *g, int p, const double *pet, const double *set,
                  char *err, size_t errlen)
{
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
        snprintf(err, errlen, "cannot write %s", fc ? dat : csv);
        if (fc)
            fclose(fc);
        if (fd)
            fclose(fd);
        return -1;
    }
    fprintf(fc, "point,speed,bw,lat,pet_s,set_s,pet_ratio\n");
    fprintf(out, "sweep = %s\npoints = %d\n  point    speed       bw      lat        PET_s  PET/ref\n", dir, p);
    for (int a = 0, q = 0; a < g->n[0]; a++)
        for (int b = 0; b < g->n[1]; b++)
            for (int l = 0; l < g->n[2]; l++, q++) {
                if (q >= p)
                    break;
                double ratio = pet[q] / pet[ref];
                if (isnan(pet[q])) { /* failed: said above, with its reason */
                    fprintf(fc, "%d,%g,%g,%g,fail,fail,fail\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l]);
                    fprintf(out, "  %5d %8g %8g %8g %12s\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l], "failed");
                    continue;
                }
                fprintf(fc, "%d,%g,%g,%g,%.9g,%.9g,%.6g\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l],
                        pet[q], set[q], ratio);
                fprintf(out, "  %5d %8g %8g %8g %12.6f %8.4f\n", q + 1, g->v[0][a], g->v[1][b], g->v[2][l],
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
    char *gpv[] = {"gnuplot", gp, NULL}, gplog[PATH_MAX + 32], who[64];
    snprintf(gplog, sizeof gplog, "%s/gnuplot.log", absdir);
    snprintf(who, sizeof who, "pas2p %s", cmd);
    int gcode = fg && p > 0 ? pas2p_launch_logged(who, NULL, gpv, 2, NULL, 0, gplog) : 127;
    fprintf(out, "csv = %s/sweep.csv\n", dir);
    if (!p)
        fprintf(out, "plot: not drawn (no point was simulated)\n");
    else if (!gcode)
        fprintf(out, "plot = %s/sweep.png\n", dir);
    else
        fprintf(out, "plot: not drawn (%s; the gnuplot script is %s/sweep.gp)\n",
               gcode == 127 ? "no gnuplot: scripts/setup.sh installs gnuplot-nox" : "gnuplot failed, see gnuplot.log", dir);
    return 0;
}

int pas2p_sweep_run(const pas2p_pipeline_opts_t *opts, const pas2p_sweep_grid_t *g, char *err,
                    size_t errlen)
{
    const pas2p_simulate_opts_t *so = opts->backend_opts;
    FILE *log = opts->log ? opts->log : stderr;
    char defdir[64], absdir[PATH_MAX];
    const char *dir = opts->dir;
    err[0] = 0;
    if (!dir) {
        pas2p_default_dir("pas2p-sweep", defdir, sizeof defdir);
        dir = defdir;
    }
    if (pas2p_prepare_dir_err(dir, err, errlen))
        return 2;
    if (!realpath(dir, absdir)) {
        snprintf(err, errlen, "%s: cannot resolve its path", dir);
        return 2;
    }
    int total = g->n[0] * g->n[1] * g->n[2];
    double *pet = calloc((size_t)total, sizeof *pet), *set = calloc((size_t)total, sizeof *set);
    if (!pet || !set) {
        snprintf(err, errlen, "out of memory");
        free(pet);
        free(set);
        return 1;
    }
    char wi[128], sub[PATH_MAX + 32], logp[PATH_MAX + 32], why[4400];
    int quiet = pas2p_quiet_env(), failed = 0, p = 0;
    for (int a = 0; a < g->n[0]; a++)
        for (int b = 0; b < g->n[1]; b++)
            for (int l = 0; l < g->n[2]; l++, p++) {
                snprintf(wi, sizeof wi, "speed=%g,bw=%g,lat=%g", g->v[0][a], g->v[1][b], g->v[2][l]);
                snprintf(sub, sizeof sub, "%s/point-%03d", absdir, p + 1);
                snprintf(logp, sizeof logp, "%s/point-%03d.log", absdir, p + 1);
                if (!quiet)
                    fprintf(log, "pas2p %s: sweep point %d/%d: %s\n", opts->cmd, p + 1, total, wi);
                /* the point: this simulation with its what-if factors, its own directory,
                 * everything it says in its log */
                pas2p_simulate_opts_t po = *so;
                po.whatif[0] = as_shown(g->v[0][a]);
                po.whatif[1] = as_shown(g->v[1][b]);
                po.whatif[2] = as_shown(g->v[2][l]);
                po.verbose = 0;
                pas2p_pipeline_opts_t o = *opts;
                o.backend_opts = &po;
                o.dir = sub;
                pas2p_pipeline_result_t r = {NAN, NAN};
                FILE *pl = fopen(logp, "w");
                int rc = 1;
                if (!pl) {
                    snprintf(why, sizeof why, "cannot write %s", logp);
                } else {
                    o.out = o.log = pl;
                    rc = pas2p_pipeline_run(&o, &r, why, sizeof why);
                    if (rc && why[0])
                        fprintf(pl, "pas2p %s: %s\n", opts->cmd, why);
                    else if (rc)
                        snprintf(why, sizeof why, "no reason given (log: %.1000s)", logp);
                    fclose(pl);
                }
                pet[p] = rc ? NAN : r.pet_s;
                set[p] = rc ? NAN : r.set_s;
                if (isnan(pet[p])) {
                    fprintf(log, "pas2p %s: sweep point %d (%s) failed: %s\n", opts->cmd, p + 1, wi, why);
                    failed = 1;
                    if (p == 0) /* the first point's error is every point's */
                        goto out;
                }
            }
out:;
    int rc = report(opts->out ? opts->out : stdout, opts->cmd, dir, absdir, g, p, pet, set, err,
                    errlen) ? 1 : failed ? 1 : 0;
    free(pet);
    free(set);
    return rc;
}
