/* The PET equation (pas2p_pet.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_pet.h"

/* the prediction from one rank's table; -1 if nothing relevant was measured there */
static int rank_pet(const pas2p_sig_rank_t *R, const double *target, pas2p_pet_t *out)
{
    double wb = 0, wt = 0, remainder = 0;
    uint32_t nrel = 0;
    for (uint32_t k = 0; k < R->nphases; k++) {
        const pas2p_sig_phase_t *p = &R->phases[k];
        double base = p->time_mean_s * (double)p->weight;
        if (!p->relevant) {
            remainder += base;
            continue;
        }
        nrel++;
        if (target && isfinite(target[k]) && target[k] >= 0) {
            wb += base;
            wt += target[k] * (double)p->weight;
        }
    }
    if (nrel && !(wb > 0))
        return -1;
    out->rank = R->rank;
    out->ratio = wb > 0 ? wt / wb : 1;
    out->remainder_base_s = remainder;
    out->remainder_s = remainder * out->ratio;
    out->relevant_s = 0;
    out->nphases = nrel;
    out->nestimated = 0;
    out->phases = calloc(nrel ? nrel : 1, sizeof *out->phases);
    if (!out->phases)
        return -2;
    uint32_t j = 0;
    for (uint32_t k = 0; k < R->nphases; k++) {
        const pas2p_sig_phase_t *p = &R->phases[k];
        if (!p->relevant)
            continue;
        pas2p_pet_phase_t *q = &out->phases[j++];
        q->id = p->id;
        q->weight = p->weight;
        q->for_messages = p->relevant == 2 ? 1 : p->relevant == 3 ? 2 : 0;
        q->base_s = p->time_mean_s;
        q->estimated = !(target && isfinite(target[k]) && target[k] >= 0);
        q->target_s = q->estimated ? p->time_mean_s * out->ratio : target[k];
        q->ratio = q->base_s > 0 ? q->target_s / q->base_s : NAN;
        q->contribution_s = q->target_s * (double)p->weight;
        out->relevant_s += q->contribution_s;
        out->nestimated += (uint32_t)q->estimated;
    }
    out->pet_s = out->relevant_s + out->remainder_s;
    return 0;
}

int pas2p_pet_compute(const pas2p_signature_t *sig, const double *const *target, double set_s,
                      double aet_s, pas2p_pet_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    uint32_t rep = 0;
    while (rep < sig->nranks && sig->ranks[rep].rank != sig->representative)
        rep++;
    if (rep == sig->nranks) {
        snprintf(err, errlen, "the signature has no table for its representative rank %u",
                 sig->representative);
        return -1;
    }
    int rc;
    if (sig->spmd || sig->nranks == 1) {
        rc = rank_pet(&sig->ranks[rep], target[rep], out);
    } else { /* per-rank structure: the slowest rank's prediction */
        rc = -1;
        for (uint32_t r = 0; r < sig->nranks; r++) {
            pas2p_pet_t t = {0};
            int x = rank_pet(&sig->ranks[r], target[r], &t);
            if (x == -2) {
                rc = -2;
                break;
            }
            if (x == 0 && (rc != 0 || t.pet_s > out->pet_s)) {
                pas2p_pet_free(out);
                *out = t;
                rc = 0;
            } else {
                pas2p_pet_free(&t);
            }
        }
    }
    if (rc == -2) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (rc) {
        snprintf(err, errlen, "no relevant phase was measured on rank %u: nothing to predict from",
                 sig->ranks[rep].rank);
        return -1;
    }
    out->set_s = set_s;
    out->aet_s = aet_s;
    out->pete = aet_s > 0 ? (out->pet_s - aet_s) / aet_s : NAN;
    return 0;
}

void pas2p_pet_free(pas2p_pet_t *p)
{
    free(p->phases);
    p->phases = NULL;
    p->nphases = 0;
}

void pas2p_pet_print(const pas2p_pet_t *p, FILE *out)
{
    pas2p_pet_print_for(p, NULL, out);
}

void pas2p_pet_print_for(const pas2p_pet_t *p, const char *method, FILE *out)
{
    /* (only predict times the application's own occurrences, as many as came before the
     * stop; simulate and replay run each phase --reps times) */
    int app = method && !strcmp(method, "predict");
    fprintf(out, "PET = %.6f s\n", p->pet_s);
    fprintf(out, "SET = %.6f s\n", p->set_s);
    if (p->aet_s > 0) {
        fprintf(out, "AET = %.6f s\n", p->aet_s);
        fprintf(out, "PETE = %+.2f %%\n", p->pete * 100);
        fprintf(out, "SET/AET = %.2f %%\n", p->set_s / p->aet_s * 100);
    }
    uint32_t nmsg = 0, ncov = 0;
    for (uint32_t i = 0; i < p->nphases; i++) {
        nmsg += p->phases[i].for_messages == 1;
        ncov += p->phases[i].for_messages == 2;
    }
    if (nmsg || ncov)
        fprintf(out, "\nrank %u: %u relevant phases (%u as in the signature, %u more for their share "
                "of the messages or bytes sent, %u more to cover the run), target/base ratio "
                "%.4f\n", p->rank, p->nphases, p->nphases - nmsg - ncov, nmsg, ncov, p->ratio);
    else
        fprintf(out, "\nrank %u: %u relevant phases, target/base ratio %.4f\n", p->rank,
                p->nphases, p->ratio);
    fprintf(out, "%6s %10s %14s %14s %8s %14s %6s %8s\n", "phase", "weight", "base_s", "target_s",
            "ratio", "W x target_s", "values", "range");
    for (uint32_t i = 0; i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        char n[16] = "-", range[32] = "-";
        if (q->nvalues) {
            snprintf(n, sizeof n, "%u", q->nvalues);
            if (q->target_s > 0)
                snprintf(range, sizeof range, "%+.0f/%+.0f%%", (q->lo_s / q->target_s - 1) * 100,
                         (q->hi_s / q->target_s - 1) * 100);
        }
        fprintf(out, "%6u %10llu %14.9f %14.9f %8.4f %14.6f %6s %8s%s\n", q->id,
                (unsigned long long)q->weight, q->base_s, q->target_s, q->ratio,
                q->contribution_s, n, range,
                q->estimated        ? "  (not measured: base x ratio)"
                : app && q->nvalues == 1 ? "  (timed once: it came once before the stop, or it is rare: "
                                    "predict --rare-after)"
                : q->for_messages == 1 ? "  (for its share of the messages)"
                : q->for_messages == 2 ? "  (to cover the run)"
                                  : "");
        char runs[64] = "the same occurrence of the base run", mean[40] = "base mean";
        if (q->paired_runs > 1) {
            snprintf(runs, sizeof runs, "the median of the same occurrence in the %u base runs",
                     q->paired_runs);
            snprintf(mean, sizeof mean, "the runs' median mean");
        }
        if (q->paired_first && q->paired_n > 1 && q->paired_used && q->paired_used < q->paired_n)
            /* some pairs left out (pas2p_times_pair): which, and why */
            fprintf(out, "%6s each value over %s (occurrences %u-%u): %s x the median ratio "
                    "%.4f of %u of them%s%s\n", "", runs, q->paired_first,
                    q->paired_first + q->paired_n - 1, mean, q->paired_ratio, q->paired_used,
                    q->paired_how & PAS2P_PAIR_SOME_TYPICAL
                        ? ", whose base occurrence was typical of the base run" : "",
                    q->paired_how & PAS2P_PAIR_AFTER_CHANGE ? ", after the target changed pace"
                                                             : "");
        else if (q->paired_first && q->paired_n > 1)
            fprintf(out, "%6s each value over %s (occurrences %u-%u): %s x their median ratio "
                    "%.4f\n", "", runs, q->paired_first, q->paired_first + q->paired_n - 1, mean,
                    q->paired_ratio);
        else if (q->paired_first)
            fprintf(out, "%6s its value over %s (occurrence %u): %s x that ratio %.4f\n", "",
                    runs, q->paired_first, mean, q->paired_ratio);
        else if (q->early_s > 0 && q->base_s >= q->early_s)
            fprintf(out, "%6s the base's mean is %.1fx its early occurrences' median (%.9f s): "
                    "target median x base mean / that\n", "", q->base_s / q->early_s, q->early_s);
        else if (q->early_s > 0)
            fprintf(out, "%6s the base's early occurrences' median (%.9f s) is %.1fx its mean: "
                    "target median x base mean / that\n", "", q->early_s, q->early_s / q->base_s);
    }
    fprintf(out, "%6s %10s %14.6f %14.6f %8.4f %14.6f\n", "rest", "-", p->remainder_base_s,
            p->remainder_s, p->ratio, p->remainder_s);
    /* one base run whose paired occurrences ran far from its mean: the PET holds if the
     * target's run starts the same way, which a transient of that one run (slow first
     * seconds on a shared machine) does not give (GROMACS: 1.27x, PET -25 %) */
    char list[256] = "";
    double lo = INFINITY, hi = 0;
    for (uint32_t i = 0, len = 0; i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        if (!q->paired_first || q->paired_n < 2 || q->paired_runs > 1 || !(q->paired_base > 0) ||
            (q->paired_base < PAS2P_PET_PROFILE && q->paired_base * PAS2P_PET_PROFILE > 1))
            continue;
        if (len < sizeof list)
            len += (uint32_t)snprintf(list + len, sizeof list - len, "%s%u", len ? ", " : "",
                                      q->id);
        lo = fmin(lo, q->paired_base);
        hi = fmax(hi, q->paired_base);
    }
    if (list[0]) {
        char a[32], b[32]; /* (one value once: "1.25-1.25x" read as a range) */
        snprintf(a, sizeof a, "%.2f", lo);
        snprintf(b, sizeof b, "%.2f", hi);
        int range = strcmp(a, b) != 0;
        fprintf(out, "note: phase(s) %s: the base run's occurrences they were paired with ran "
                "%s%s%sx the base mean; the PET assumes the target's run starts the same way "
                "(a transient of that one base run would be off by as much: pas2p trace --runs "
                "3 pools base runs)\n", list, a, range ? "-" : "", range ? b : "");
    }
    /* a change of pace on the target (pas2p_times_pair): estimated from after it, or the
     * run stopped before the new pace had PAS2P_PAIR_TAIL_MIN values */
    for (uint32_t i = 0; i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        if (q->paired_first && (q->paired_how & PAS2P_PAIR_AFTER_CHANGE))
            fprintf(out, "note: phase %u: its timed occurrences ran %.3gx the base's same ones, "
                    "then %.3gx from occurrence %u: those before count as they ran, the phase's "
                    "other occurrences at the later pace\n", q->id, q->paired_before,
                    q->paired_ratio, q->paired_first + q->paired_from);
        else if (q->paired_first && (q->paired_how & PAS2P_PAIR_CHANGE_PENDING))
            fprintf(out, "note: phase %u: its last timed occurrence(s) changed pace (%ux the others "
                    "or more) when the run stopped: the PET is of the earlier pace (more "
                    "occurrences: predict --occurrences)\n", q->id, (unsigned)PAS2P_PAIR_SHIFT);
    }
    /* a phase that holds much of the PET on a few timed values far apart: one of them a
     * hiccup of the target moves the PET by as much (OpenFOAM's icoFoam, 80 steps on a
     * loaded node: a per-step phase, 38 % of the PET, on 2 values 60x apart; the rare
     * phases' budget stops the run before a third) */
    for (uint32_t i = 0; app && p->pet_s > 0 && i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        if (q->estimated || q->nvalues < 2 || q->nvalues >= PAS2P_PET_FEW_VALUES ||
            !(q->lo_s > 0) || q->hi_s < PAS2P_PET_FEW_SPREAD * q->lo_s ||
            q->contribution_s < 0.1 * p->pet_s)
            continue;
        fprintf(out, "note: phase %u (%.0f %% of the PET) rests on %u timed values %.0fx apart: "
                "a hiccup in one of them moves the PET by as much (more of them: predict "
                "--rare-after or --occurrences)\n", q->id, 100 * q->contribution_s / p->pet_s,
                q->nvalues, q->hi_s / q->lo_s);
    }
    /* ... on one timed occurrence of many while it holds half the PET (Graph500's BFS,
     * 87 % of the run, rare by the call budget: -26 % against its own run), or on many
     * values an order of magnitude apart (miniMD beside another job: a 0.2 ms phase timed
     * 0.08 ms and 16-32 ms alternately, its median ratio 200, half of a PET 4x the run) */
    for (uint32_t i = 0; app && p->pet_s > 0 && i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        if (q->estimated)
            continue;
        if (q->nvalues == 1 && q->weight > 1 && q->contribution_s >= 0.5 * p->pet_s)
            fprintf(out, "note: phase %u (%.0f %% of the PET) is timed on one occurrence of "
                    "its %llu: a hiccup in it, or a first occurrence unlike the rest, moves the "
                    "PET by as much (more of them: predict --rare-after 0.05 or more, for a "
                    "later stop)\n", q->id, 100 * q->contribution_s / p->pet_s,
                    (unsigned long long)q->weight);
        else if (q->nvalues >= PAS2P_PET_FEW_VALUES && q->lo_s > 0 &&
                 q->hi_s >= PAS2P_PET_WIDE_SPREAD * q->lo_s && q->contribution_s >= 0.1 * p->pet_s)
            fprintf(out, "note: phase %u (%.0f %% of the PET): its %u timed values are %.0fx "
                    "apart (the target's pace changed while they ran: another job on its "
                    "cores?), and the PET moves with them: predict again on a quiet target\n",
                    q->id, 100 * q->contribution_s / p->pet_s, q->nvalues, q->hi_s / q->lo_s);
    }
    if (p->nestimated)
        fprintf(out, "note: %u relevant phase(s) not measured on the target; estimated as base "
                "time x the measured ratio\n", p->nestimated);
    /* the ratio that scales the unmeasured phases and the rest is a ratio of sums: one phase
     * far off the others (an occurrence 18x its base: load on the target or the base) moves
     * it; said when what it scales is >= 5 % of the prediction and leaving that phase out
     * would move the ratio by 1.5x or more (code_saturne: 2.41, 0.93 without its phase 49) */
    double wb = 0, wt = 0, scaled = p->remainder_s;
    for (uint32_t i = 0; i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        if (q->estimated) {
            scaled += q->contribution_s;
            continue;
        }
        wb += q->base_s * (double)q->weight;
        wt += q->target_s * (double)q->weight;
    }
    uint32_t worst = UINT32_MAX;
    double without = p->ratio, move = 1;
    for (uint32_t i = 0; p->pet_s > 0 && scaled >= 0.05 * p->pet_s && i < p->nphases; i++) {
        const pas2p_pet_phase_t *q = &p->phases[i];
        double b = wb - q->base_s * (double)q->weight, t = wt - q->target_s * (double)q->weight;
        if (q->estimated || !(b > 0) || !(t > 0))
            continue;
        double r = t / b, m = fmax(p->ratio / r, r / p->ratio);
        if (m > move) {
            move = m;
            without = r;
            worst = i;
        }
    }
    if (worst != UINT32_MAX && move >= 1.5)
        fprintf(out, "note: phase %u (ratio %.2f over %u value(s)) moves the ratio that scales the "
                "unmeasured phases and the rest (%.1f %% of the PET) to %.2f from %.2f without it: "
                "if its timed occurrences were a hiccup of the target or of the base run, predict "
                "again (pas2p trace --runs 3 pools base runs)\n", p->phases[worst].id,
                p->phases[worst].ratio, p->phases[worst].nvalues, 100 * scaled / p->pet_s,
                p->ratio, without);
}


int pas2p_times_read(const char *dir, const pas2p_sig_rank_t *R, double *t,
                     pas2p_times_t *st, char *err, size_t errlen)
{
    pas2p_times_file_t tf;
    if (pas2p_times_load(dir, R->rank, &tf, err, errlen))
        return -1;
    for (uint32_t k = 0; t && k < R->nphases; k++)
        t[k] = NAN;
    int ok = 1;
    for (size_t i = 0; i < tf.nphases; i++) {
        uint32_t k = 0;
        while (k < R->nphases && R->phases[k].id != tf.phases[i].id)
            k++;
        if (k == R->nphases && !t)
            continue; /* only the status wanted: a phase under another rank's id is
                         an aligned replay's (pas2p_actions_from_signature) */
        if (k == R->nphases) {
            ok = 0;
            break;
        }
        if (t)
            t[k] = tf.phases[i].median;
    }
    *st = tf.st;
    pas2p_times_file_free(&tf);
    if (!ok) {
        snprintf(err, errlen, "%.1500s/rank-%05u.times: malformed times file", dir, R->rank);
        return -1;
    }
    return 0;
}


static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the base's median over phase p's recorded occurrences after the first, when its mean is
 * PAS2P_PET_DRIFT times that or more, or that median PAS2P_PET_DRIFT times the mean or more
 * (early occurrences slower than the run's: NetPIPE's 0.4 us phase took 3.2 us in its 2nd
 * to 32nd occurrences, and predict scaled the whole run by 8.5); else 0 (see
 * pas2p_pet_from_times) */
static double early_median(const pas2p_sig_phase_t *p)
{
    double v[PAS2P_SIG_OCC];
    uint32_t n = 0;
    for (uint32_t j = 1; j < p->nocc && j < PAS2P_SIG_OCC; j++)
        if (p->occ_time_s[j] > 0)
            v[n++] = p->occ_time_s[j];
    if (p->weight < 8 || n < 3)
        return 0;
    qsort(v, n, sizeof *v, cmp_d);
    double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    return m > 0 && (p->time_mean_s >= PAS2P_PET_DRIFT * m || m >= PAS2P_PET_DRIFT * p->time_mean_s)
               ? m : 0;
}

/* A phase whose mean a few heavy occurrences carry (its mean over PAS2P_PET_TAIL times its
 * median over the whole run; a drift of all of them keeps the two close), not a drift of all of
 * them: HPCC's 301 MPI_Allreduce rounds on rank 1, median 0.85 us, mean 0.76 ms, longest
 * 0.155 s (the rounds where it waits for rank 0's
 * single-process benchmark).  The drift guard would scale its whole mean by a microsecond
 * median's noise (x348 on a loaded machine: +0.63 s of an 8 s run); its typical occurrence
 * is measured, its tail (mean - early median) estimated by the rank's other phases. */
#define PAS2P_PET_TAIL 10.0
static int tail_carried(const pas2p_sig_phase_t *p)
{
    return p->time_median_s > 0 && p->time_mean_s > PAS2P_PET_TAIL * p->time_median_s;
}

/* predict's paired estimate of phase p from its timed values tp (the application's own
 * occurrences from tp->first): the base mean x the median ratio of each value over the same
 * occurrence of the base run -- of the base runs, their medians, when the signature pooled
 * several (runs > 1: one run's early occurrences carry its noise, 3.1 % mean error per
 * predict run against 2.4 % pooled over 3; results/predict.md) -- of the pairs that
 * pas2p_times_pair keeps (typical base occurrences; those after a change of regime on the
 * target); 0 when none can be paired (pas2p_pet_from_times) */
static double paired(const pas2p_sig_phase_t *p, const pas2p_times_phase_t *tp,
                     pas2p_pairing_t *pr)
{
    double tv[PAS2P_TIMES_MAX_VALUES], bv[PAS2P_TIMES_MAX_VALUES];
    unsigned k = 0;
    int pooled = p->runs > 1 && p->runs_time_mean_s > 0;
    const double *b = pooled ? p->occ_runs_time_s : p->occ_time_s;
    double mean = pooled ? p->runs_time_mean_s : p->time_mean_s;
    for (int i = 0; tp->first && i < tp->n; i++) {
        uint64_t j = (uint64_t)tp->first - 1 + (uint64_t)i; /* from 0 */
        if (j >= p->nocc || j >= PAS2P_SIG_OCC || !(b[j] > 0) || !(tp->v[i] >= 0))
            break;
        bv[k] = b[j];
        tv[k++] = tp->v[i];
    }
    if (!k || !(mean > 0) ||
        pas2p_times_pair(tv, bv, k, p->time_median_s > 0 ? p->time_median_s : mean, pr))
        return 0;
    /* the occurrences timed before a change of pace count as they ran, the others at the
     * later pace (slowstart: 0.80 s for a run of 0.84 s; 0.70 s without them) */
    if ((pr->how & PAS2P_PAIR_AFTER_CHANGE) && p->weight > pr->before_n)
        return (pr->before_s + (double)(p->weight - pr->before_n) * mean * pr->ratio) /
               (double)p->weight;
    return mean * pr->ratio;
}

int pas2p_pet_from_times(const pas2p_signature_t *sig, const char *dir, const char *base_dir,
                         int occurrences, double aet_s, pas2p_pet_t *out, char *err,
                         size_t errlen)
{
    double **target = calloc(sig->nranks ? sig->nranks : 1, sizeof *target), set = 0;
    double *base = NULL;
    uint8_t **pair = calloc(sig->nranks ? sig->nranks : 1, sizeof *pair); /* paired phases */
    int rc = -1;
    if (!target || !pair) {
        free(target);
        free(pair);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t r = 0; r < sig->nranks; r++) {
        const pas2p_sig_rank_t *R = &sig->ranks[r];
        pas2p_times_t st;
        memset(&st, 0, sizeof st);
        target[r] = calloc(R->nphases ? R->nphases : 1, sizeof **target);
        if (!target[r]) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        /* SPMD: only the representative's times enter PET (pas2p_pet_compute); the others
         * give their status and SET, and may hold the representative's phase ids (an
         * aligned replay) */
        int used = !sig->spmd || R->rank == sig->representative;
        if (pas2p_times_read(dir, R, used ? target[r] : NULL, &st, err, errlen))
            goto out;
        if (!used)
            for (uint32_t k = 0; k < R->nphases; k++)
                target[r][k] = NAN;
        if (st.set_s > set)
            set = st.set_s;
        if (!(pair[r] = calloc(R->nphases ? R->nphases : 1, 1))) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        pas2p_times_file_t tf; /* predict: each value against the same base occurrence */
        char perr[64];
        if (occurrences && used && !pas2p_times_load(dir, R->rank, &tf, perr, sizeof perr)) {
            for (size_t i = 0; i < tf.nphases; i++)
                for (uint32_t k = 0; k < R->nphases; k++) {
                    pas2p_pairing_t pr;
                    double t = R->phases[k].id == tf.phases[i].id && isfinite(target[r][k])
                                   ? paired(&R->phases[k], &tf.phases[i], &pr)
                                   : 0;
                    if (t > 0) {
                        target[r][k] = t;
                        pair[r][k] = 1;
                    }
                }
            pas2p_times_file_free(&tf);
        }
        double wb = 0, wt = 0; /* the rank's ratio over its phases the guard leaves alone */
        for (uint32_t k = 0; occurrences && used && k < R->nphases; k++) {
            const pas2p_sig_phase_t *p = &R->phases[k];
            if (p->relevant && isfinite(target[r][k]) && target[r][k] >= 0 &&
                (pair[r][k] || !early_median(p))) {
                /* (a paired phase against the base it was paired with: the runs' median) */
                wb += (pair[r][k] && p->runs > 1 && p->runs_time_mean_s > 0 ? p->runs_time_mean_s
                                                                           : p->time_mean_s) *
                      (double)p->weight;
                wt += target[r][k] * (double)p->weight;
            }
        }
        for (uint32_t k = 0; occurrences && used && k < R->nphases; k++) {
            double e = isfinite(target[r][k]) && !pair[r][k] ? early_median(&R->phases[k]) : 0;
            if (e > 0 && e < R->phases[k].time_mean_s && tail_carried(&R->phases[k]))
                target[r][k] += (R->phases[k].time_mean_s - e) * (wb > 0 ? wt / wb : target[r][k] / e);
            else if (e > 0)
                target[r][k] = R->phases[k].time_mean_s * target[r][k] / e;
        }
        if (!base_dir || !used)
            continue;
        /* relative: the base PhaseET scaled by how much slower the same replay ran here */
        free(base);
        base = calloc(R->nphases ? R->nphases : 1, sizeof *base);
        pas2p_times_t bst;
        memset(&bst, 0, sizeof bst);
        if (!base) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        if (pas2p_times_read(base_dir, R, base, &bst, err, errlen))
            goto out;
        for (uint32_t k = 0; k < R->nphases; k++)
            target[r][k] = isfinite(target[r][k]) && isfinite(base[k]) && base[k] > 0
                               ? R->phases[k].time_mean_s * target[r][k] / base[k]
                               : NAN;
    }
    rc = pas2p_pet_compute(sig, (const double *const *)target, set, aet_s, out, err, errlen);
    /* what each measured phase rests on: its values on the prediction's rank, their range
     * on the scale of its target PhaseET (median x whatever scaled it) */
    pas2p_times_file_t tf;
    pas2p_pairing_t pr;
    char lerr[64];
    if (!rc && !pas2p_times_load(dir, out->rank, &tf, lerr, sizeof lerr)) {
        for (uint32_t i = 0; i < out->nphases; i++) {
            pas2p_pet_phase_t *q = &out->phases[i];
            for (size_t j = 0; !q->estimated && j < tf.nphases; j++)
                if (tf.phases[j].id == q->id && tf.phases[j].median > 0) {
                    double f = q->target_s / tf.phases[j].median;
                    q->nvalues = (uint32_t)tf.phases[j].n;
                    q->lo_s = tf.phases[j].min * f;
                    q->hi_s = tf.phases[j].max * f;
                    for (uint32_t r = 0; occurrences && r < sig->nranks; r++)
                        for (uint32_t k = 0; sig->ranks[r].rank == out->rank &&
                                             k < sig->ranks[r].nphases; k++)
                            if (sig->ranks[r].phases[k].id == q->id && pair[r] && pair[r][k] &&
                                paired(&sig->ranks[r].phases[k], &tf.phases[j], &pr) > 0) {
                                const pas2p_sig_phase_t *sp = &sig->ranks[r].phases[k];
                                double mean = sp->runs > 1 && sp->runs_time_mean_s > 0
                                                  ? sp->runs_time_mean_s : sp->time_mean_s;
                                q->paired_ratio = pr.ratio;
                                q->paired_n = pr.n;
                                q->paired_used = pr.used;
                                q->paired_from = pr.from;
                                q->paired_how = pr.how;
                                q->paired_before = pr.before;
                                q->paired_base = pr.base_median / mean;
                                if (pr.used < pr.n && pr.ratio > 0) { /* the used ones' range */
                                    q->lo_s = q->target_s * pr.rmin / pr.ratio;
                                    q->hi_s = q->target_s * pr.rmax / pr.ratio;
                                }
                                q->paired_first = tf.phases[j].first;
                                q->paired_runs = sig->ranks[r].phases[k].runs > 1 &&
                                                         sig->ranks[r].phases[k].runs_time_mean_s > 0
                                                     ? sig->ranks[r].phases[k].runs : 0;
                            }
                }
        }
        pas2p_times_file_free(&tf);
    }
    for (uint32_t i = 0; !rc && occurrences && i < out->nphases; i++) {
        pas2p_pet_phase_t *q = &out->phases[i];
        for (uint32_t r = 0; r < sig->nranks; r++)
            for (uint32_t k = 0; sig->ranks[r].rank == out->rank && k < sig->ranks[r].nphases; k++)
                if (sig->ranks[r].phases[k].id == q->id && !q->estimated && !q->paired_first &&
                    !tail_carried(&sig->ranks[r].phases[k]))
                    q->early_s = early_median(&sig->ranks[r].phases[k]);
    }
out:
    for (uint32_t r = 0; r < sig->nranks; r++) {
        free(target[r]);
        free(pair[r]);
    }
    free(target);
    free(pair);
    free(base);
    return rc;
}
