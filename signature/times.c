/* The signature-mode times file: its one writer and reader (pas2p_times.h). */
#include "pas2p_times.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const status_names[] = {"", "stopped", "completed", "diverged"};

int pas2p_times_begin(pas2p_times_writer_t *w, const char *dir, int rank, int np, int status,
                      unsigned long long events, double set_s, unsigned long long checks,
                      const char *reason, const unsigned long long *done_at)
{
    snprintf(w->path, sizeof w->path, "%.4000s/rank-%05d.times", dir, rank);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp", w->path);
    w->in_phase = 0;
    w->f = fopen(w->tmp, "w");
    if (!w->f)
        return -1;
    if (status < PAS2P_TIMES_STOPPED || status > PAS2P_TIMES_DIVERGED)
        status = PAS2P_TIMES_DIVERGED;
    fprintf(w->f, "pas2p-times 1\nrank %d\nnp %d\npid %d\nstatus %s\nevents %llu\nset_s %.9f\n"
            "checks %llu\n", rank, np, (int)getpid(), status_names[status], events, set_s, checks);
    if (reason)
        fprintf(w->f, "reason %s\n", reason);
    if (done_at)
        fprintf(w->f, "done_at %llu\n", *done_at);
    return 0;
}

void pas2p_times_phase(pas2p_times_writer_t *w, unsigned id)
{
    if (w->in_phase)
        fputc('\n', w->f);
    fprintf(w->f, "phase %u", id);
    w->in_phase = 1;
}

void pas2p_times_value(pas2p_times_writer_t *w, double seconds)
{
    fprintf(w->f, " %.9f", seconds);
}

int pas2p_times_end(pas2p_times_writer_t *w)
{
    if (w->in_phase)
        fputc('\n', w->f);
    int bad = fclose(w->f);
    w->f = NULL;
    if (bad || rename(w->tmp, w->path)) {
        int e = errno;
        unlink(w->tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int pas2p_times_load(const char *dir, unsigned rank, pas2p_times_file_t *out, char *err,
                     size_t errlen)
{
    char path[4200];
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "%.4000s/rank-%05u.times", dir, rank);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%.1500s: %s", path, strerror(errno));
        return -1;
    }
    char line[8192];
    size_t cap = 0;
    int ok = fgets(line, sizeof line, f) && !strcmp(line, "pas2p-times 1\n");
    while (ok && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        pas2p_times_t *st = &out->st;
        if (!strncmp(line, "status ", 7)) {
            st->status = !strcmp(line + 7, "stopped")     ? PAS2P_TIMES_STOPPED
                         : !strcmp(line + 7, "completed") ? PAS2P_TIMES_COMPLETED
                                                          : PAS2P_TIMES_DIVERGED;
        } else if (!strncmp(line, "set_s ", 6)) {
            st->set_s = strtod(line + 6, NULL);
        } else if (!strncmp(line, "events ", 7)) {
            st->events = strtoull(line + 7, NULL, 10);
        } else if (!strncmp(line, "done_at ", 8)) {
            st->done_at = strtoull(line + 8, NULL, 10);
        } else if (!strncmp(line, "reason ", 7)) {
            snprintf(st->reason, sizeof st->reason, "%.1000s", line + 7);
        } else if (!strncmp(line, "phase ", 6)) {
            char *p = line + 6, *end;
            unsigned long id = strtoul(p, &end, 10);
            double v[PAS2P_TIMES_MAX_VALUES];
            int n = 0;
            for (p = end; n < PAS2P_TIMES_MAX_VALUES;) {
                double x = strtod(p, &end);
                if (end == p)
                    break;
                v[n++] = x;
                p = end;
            }
            if (n == 0) {
                ok = 0;
                break;
            }
            if (out->nphases == cap) {
                size_t nc = cap ? 2 * cap : 8;
                pas2p_times_phase_t *np = realloc(out->phases, nc * sizeof *np);
                if (!np) {
                    ok = 0;
                    break;
                }
                out->phases = np;
                cap = nc;
            }
            qsort(v, (size_t)n, sizeof *v, cmp_double);
            pas2p_times_phase_t *ph = &out->phases[out->nphases++];
            ph->id = (unsigned)id;
            ph->n = n;
            ph->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        }
    }
    fclose(f);
    if (!ok || !out->st.status) {
        snprintf(err, errlen, "%.1500s: malformed times file", path);
        pas2p_times_file_free(out);
        return -1;
    }
    return 0;
}

void pas2p_times_file_free(pas2p_times_file_t *f)
{
    free(f->phases);
    f->phases = NULL;
    f->nphases = 0;
}
