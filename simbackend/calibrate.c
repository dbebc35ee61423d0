/* The calibration behind `pas2p calibrate` (pas2p_sim.h): bin/pas2p-probe's measurements of
 * this machine (or of a virtual cluster reached through its launcher) turned into the
 * SimGrid platform that `pas2p simulate` needs to reproduce it; the model is written down in
 * the file's comment. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_launch.h"
#include "pas2p_platform.h"
#include "pas2p_sim.h"

/* "key = value" lines of a probe's output file: the value of key, or -1 */
static double probe_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256], k[64];
    double v = -1, x;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%63s = %lf", k, &x) == 2 && !strcmp(k, key))
            v = x;
    fclose(f);
    return v;
}

#define MAX_SIZES 32

/* the probe's one-way times ("oneway-BYTES = SECONDS" lines), by increasing size; how many */
static int probe_sizes(const char *path, double *size, double *t)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    int n = 0;
    double s, x;
    while (n < MAX_SIZES && fgets(line, sizeof line, f))
        if (sscanf(line, "oneway-%lf = %lf", &s, &x) == 2 && s >= 0 && x > 0 &&
            (!n || s > size[n - 1])) {
            size[n] = s;
            t[n++] = x;
        }
    fclose(f);
    return n;
}

/* SMPI's piecewise network model fitted to measured one-way times: on segment k (sizes
 * from thr[k] to the next threshold) a message of s bytes takes a[k] + s * b[k], the line
 * through the measured points that bound it (the last segment extends the last line).
 * SMPI computes lat x lat-factor + s / (bw x bw-factor), so lat-factor = a / lat and
 * bw-factor = 1 / (b x bw).  Noise is kept in bounds: times are made non-decreasing, a
 * segment is at most 10x faster than the largest message's average rate, and its start-up
 * at least 5 % of the latency (then the line goes through the segment's far point). */
static int fit_pieces(const double *size, const double *t, int n, double lat, double bw,
                      double *thr, double *latf, double *bwf)
{
    double tt[MAX_SIZES];
    for (int i = 0; i < n; i++)
        tt[i] = i && t[i] < tt[i - 1] ? tt[i - 1] : t[i];
    double bmin = 0.1 * tt[n - 1] / size[n - 1];
    for (int k = 0; k + 1 < n; k++) {
        double b = (tt[k + 1] - tt[k]) / (size[k + 1] - size[k]);
        if (b < bmin)
            b = bmin;
        double a = tt[k] - size[k] * b;
        if (a < 0.05 * lat) {
            a = 0.05 * lat;
            b = (tt[k + 1] - a) / size[k + 1];
            if (b < bmin)
                b = bmin;
        }
        thr[k] = k ? size[k] : 0;
        latf[k] = a / lat;
        bwf[k] = 1 / (b * bw);
    }
    return n - 1;
}

static int write_platform(FILE *f, const char *name, long hosts, long slots, double cpu,
                          double link_bw, double speed, double lat, double bw, long cores,
                          const char *launcher, const double *size, const double *t, int n)
{
    double share = cpu, cap = (double)cores / (double)(hosts * slots);
    if (cap < share)
        share = cap;
    double nominal = link_bw > 0 ? link_bw : bw;
    double thr[MAX_SIZES], latf[MAX_SIZES], bwf[MAX_SIZES];
    int np = fit_pieces(size, t, n, lat, nominal, thr, latf, bwf);
    char lf[MAX_SIZES * 40] = "", bf[MAX_SIZES * 40] = "";
    size_t ll = 0, bl = 0;
    for (int k = 0; k < np; k++) {
        ll += (size_t)snprintf(lf + ll, sizeof lf - ll, "%s%.0f:%.6g", k ? ";" : "", thr[k], latf[k]);
        bl += (size_t)snprintf(bf + bl, sizeof bf - bl, "%s%.0f:%.6g", k ? ";" : "", thr[k], bwf[k]);
    }
    if (fprintf(f,
        "<?xml version=\"1.0\"?>\n"
        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<!-- pas2p calibrate: %ld hosts x %ld cores, %.4g of a core per slot.\n"
        "     Measured (launcher: %.300s):\n"
        "       kernel speed   %.6g flop/s on one core (pas2p's replay kernel: the unit of\n"
        "                      pas2p simulate - -base-speed kernel)\n"
        "       host speed     %.6g flop/s = kernel speed x %.4g (cpu %.4g, capped by %ld cores here\n"
        "                      / %ld slots)\n"
        "       MPI latency    %.6g s one way (1 byte) between two ranks: the route's latency\n"
        "                      (each of the 2 links on a path: half)\n"
        "       MPI bandwidth  %.6g B/s for 4 MiB messages; the links' nominal bandwidth %.6g B/s\n"
        "       one-way times (bytes: seconds; none above a larger size's):",
        hosts, slots, cpu, launcher, speed, speed * share, share, cpu, cores, hosts * slots, lat,
        bw, nominal) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %.0f: %.4g", i ? "," : "", size[i], t[i]);
    return fprintf(f,
        "\n"
        "     Model: SMPI's piecewise factors, fitted so that a message of s bytes takes the\n"
        "     measured time, linearly between the measured sizes: latency x lat-factor(s) +\n"
        "     s / (bandwidth x bw-factor(s)).\n"
        "     Traffic between ranks on one host uses the loopback's nominal figures. -->\n"
        "<platform version=\"4.1\">\n"
        "  <config>\n"
        "    <prop id=\"smpi/bw-factor\" value=\"%s\"/>\n"
        "    <prop id=\"smpi/lat-factor\" value=\"%s\"/>\n"
        "  </config>\n"
        "  <cluster id=\"%s\" prefix=\"%s-n\" radical=\"0-%ld\" suffix=\"\" speed=\"%.6gf\" core=\"%ld\"\n"
        "           bw=\"%.6gBps\" lat=\"%.6gs\" bb_bw=\"%.6gBps\" bb_lat=\"0s\" sharing_policy=\"SPLITDUPLEX\"\n"
        "           loopback_bw=\"2GBps\" loopback_lat=\"10us\">\n"
        "    <prop id=\"" PAS2P_SPEED_UNIT_PROP "\" value=\"kernel\"/> <!-- speeds in kernel flop/s -->\n"
        "  </cluster>\n"
        "</platform>\n",
        bf, lf, name, name, hosts - 1, speed * share, slots, nominal, lat / 2,
        nominal * (double)hosts) < 0 ? -1 : 0;
}

int pas2p_calibrate(const pas2p_calibrate_opts_t *o, pas2p_calibration_t *res, char *err,
                    size_t errlen)
{
    err[0] = 0;
    char probe[PATH_MAX], tmpl[] = "/tmp/pas2p-calibrate-XXXXXX", speed_f[64], net_f[64], secs[32];
    if (pas2p_find_beside("PAS2P_PROBE", "pas2p-probe", probe, sizeof probe) || access(probe, X_OK)) {
        snprintf(err, errlen, "the probe %s is missing (build pas2p with MPI; or set PAS2P_PROBE)",
                 probe);
        return 1;
    }
    if (!mkdtemp(tmpl)) {
        snprintf(err, errlen, "cannot make a directory in /tmp: %s", strerror(errno));
        return 1;
    }
    snprintf(speed_f, sizeof speed_f, "%s/speed", tmpl);
    snprintf(net_f, sizeof net_f, "%s/net", tmpl);
    snprintf(secs, sizeof secs, "%g", o->seconds);
    int rc = 1;
    fprintf(stderr, "pas2p calibrate: kernel speed (%g s)...\n", o->seconds);
    char *sp[] = {probe, "speed", secs, speed_f};
    int code = pas2p_launch("pas2p calibrate", NULL, sp, 4, NULL, 0);
    double speed = probe_value(speed_f, "speed");
    if (code || !(speed > 0)) {
        snprintf(err, errlen, "the kernel speed probe failed (exit status %d)", code);
        goto out;
    }
    /* the launcher, then -np 2 and the probe */
    char *pr[] = {probe, "net", net_f}, joined[1024];
    int nn;
    char **net = pas2p_mpi_argv(o->launcher, o->nlauncher, 2, pr, 3, &nn);
    if (!net) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    pas2p_join_argv(joined, sizeof joined, net, nn - 3);
    fprintf(stderr, "pas2p calibrate: MPI one-way times, 1 byte to 4 MiB (%s)...\n", joined);
    pas2p_join_argv(joined, sizeof joined, net, nn - 5); /* the launcher, for the platform */
    static const char *const xs[] = {"PAS2P_QUIET"};
    code = pas2p_launch("pas2p calibrate", NULL, net, nn, xs, 1);
    free(net);
    double lat = probe_value(net_f, "latency"), bw = probe_value(net_f, "bandwidth");
    double size[MAX_SIZES], t[MAX_SIZES];
    int nsizes = probe_sizes(net_f, size, t);
    if (code || !(lat > 0) || !(bw > 0)) {
        if (code != 127)
            snprintf(err, errlen, "the MPI probe failed (launcher exit status %d)", code);
        goto out;
    }
    if (nsizes < 2) {
        snprintf(err, errlen, "the MPI probe %s measured %d message sizes, not >= 2 "
                "(an older probe?)", probe, nsizes);
        goto out;
    }
    /* Noise only adds time, and no message is faster than a smaller one: a size measured
     * slower than a larger one takes the larger one's time, the latency too.  The probe
     * measures 1 byte first, while the job's ranks may still share a core: run H of the
     * experiment got 2.7 us for 1 byte and 0.8 us for 1 KiB. */
    for (int i = nsizes - 2; i >= 0; i--)
        if (t[i] > t[i + 1])
            t[i] = t[i + 1];
    if (lat > t[0])
        lat = t[0];
    FILE *f = o->out ? fopen(o->out, "w") : stdout;
    if (!f) {
        snprintf(err, errlen, "%s: %s", o->out, strerror(errno));
        goto out;
    }
    for (char *d; (d = strstr(joined, "--"));) /* an XML comment may not hold "--" */
        d[1] = ' ';
    int w = write_platform(f, o->name, o->hosts, o->slots, o->cpu, o->link_bw, speed, lat, bw,
                           o->cores, joined, size, t, nsizes);
    if ((o->out && fclose(f)) || w) {
        snprintf(err, errlen, "cannot write %s", o->out ? o->out : "stdout");
        if (o->out)
            unlink(o->out);
        goto out;
    }
    res->speed = speed;
    res->latency = lat;
    res->bandwidth = bw;
    rc = 0;
out:
    unlink(speed_f);
    unlink(net_f);
    rmdir(tmpl);
    return rc;
}
