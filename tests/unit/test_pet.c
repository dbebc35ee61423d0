/* The PET equation on hand-made numbers, and the prediction result file (signature/pas2p_pet.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pas2p_pet.h"

#define EPS 1e-12

/* rank with phases: (weight, mean, relevant) */
static void set_phase(pas2p_sig_phase_t *p, uint32_t id, uint64_t w, double mean, int rel)
{
    memset(p, 0, sizeof *p);
    p->id = id;
    p->weight = w;
    p->time_mean_s = mean;
    p->relevant = rel;
}

/* two ranks: rank 0 = {P1 w1 0.5 s rel, P2 w100 0.01 s rel, P3 w10 0.001 s not relevant};
 * rank 1 = {P1 w1 0.4 s rel, P2 w100 0.02 s rel} */
typedef struct {
    pas2p_signature_t s;
    pas2p_sig_rank_t r[2];
    pas2p_sig_phase_t p0[3], p1[2];
} fix_t;

static void make(fix_t *f, int spmd)
{
    memset(f, 0, sizeof *f);
    set_phase(&f->p0[0], 1, 1, 0.5, 1);
    set_phase(&f->p0[1], 2, 100, 0.01, 1);
    set_phase(&f->p0[2], 3, 10, 0.001, 0);
    set_phase(&f->p1[0], 1, 1, 0.4, 1);
    set_phase(&f->p1[1], 2, 100, 0.02, 1);
    f->r[0] = (pas2p_sig_rank_t){.rank = 0, .nphases = 3, .phases = f->p0};
    f->r[1] = (pas2p_sig_rank_t){.rank = 1, .nphases = 2, .phases = f->p1};
    f->s.nranks = 2;
    f->s.ranks = f->r;
    f->s.np = 2;
    f->s.representative = 0;
    f->s.spmd = spmd;
}

static void test_equation_and_remainder(void **state)
{
    (void)state;
    fix_t f;
    make(&f, 1);
    /* target: P1 takes 1.0 s (2x), P2 0.02 s (2x) -> ratio 2 */
    double t0[3] = {1.0, 0.02, NAN}, t1[2] = {NAN, NAN};
    const double *t[2] = {t0, t1};
    pas2p_pet_t p;
    char err[256];
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0.05, 4.0, &p, err, sizeof err), 0);
    assert_int_equal(p.rank, 0);
    assert_int_equal(p.nphases, 2);
    assert_int_equal(p.nestimated, 0);
    assert_true(fabs(p.ratio - 2.0) < EPS);
    assert_true(fabs(p.relevant_s - (1.0 + 100 * 0.02)) < EPS);
    assert_true(fabs(p.remainder_base_s - 0.01) < EPS);
    assert_true(fabs(p.remainder_s - 0.02) < EPS); /* scaled by the same ratio */
    assert_true(fabs(p.pet_s - 3.02) < EPS);
    assert_true(fabs(p.pete - (3.02 - 4.0) / 4.0) < EPS);
    assert_true(fabs(p.set_s - 0.05) < EPS);
    assert_true(fabs(p.phases[1].contribution_s - 2.0) < EPS);
    pas2p_pet_free(&p);
}

static void test_unmeasured_phase_is_estimated(void **state)
{
    (void)state;
    fix_t f;
    make(&f, 1);
    double t0[3] = {NAN, 0.03, NAN}, t1[2] = {NAN, NAN}; /* only P2, ratio 3 */
    const double *t[2] = {t0, t1};
    pas2p_pet_t p;
    char err[256];
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.nestimated, 1);
    assert_true(p.phases[0].estimated);
    assert_true(fabs(p.phases[0].target_s - 1.5) < EPS);
    assert_true(fabs(p.pet_s - (1.5 + 3.0 + 0.03)) < EPS);
    assert_true(isnan(p.pete)); /* no AET given */
    pas2p_pet_free(&p);
}

static void test_nothing_measured_is_an_error(void **state)
{
    (void)state;
    fix_t f;
    make(&f, 1);
    double t0[3] = {NAN, NAN, 0.5}, t1[2] = {1, 1}; /* a non-relevant phase does not count */
    const double *t[2] = {t0, t1};
    pas2p_pet_t p;
    char err[256];
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0, 0, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 0"));
}

/* per-rank structure: the slowest rank predicts; a phase absent on a rank is just absent */
static void test_per_rank_takes_the_slowest(void **state)
{
    (void)state;
    fix_t f;
    make(&f, 0);
    double t0[3] = {0.5, 0.01, NAN}, t1[2] = {0.4, 0.05}; /* rank 1: P2 2.5x slower */
    const double *t[2] = {t0, t1};
    pas2p_pet_t p;
    char err[256];
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.rank, 1);
    assert_true(fabs(p.pet_s - (0.4 + 5.0)) < EPS);
    assert_true(fabs(p.remainder_s) < EPS);
    pas2p_pet_free(&p);
    /* rank 1 measured nothing: rank 0 still predicts */
    double u1[2] = {NAN, NAN};
    t[1] = u1;
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0, 0, &p, err, sizeof err), 0);
    assert_int_equal(p.rank, 0);
    assert_true(fabs(p.pet_s - (0.5 + 1.0 + 0.01)) < EPS);
    pas2p_pet_free(&p);
}

/* rank 0's times file with `text` in a new temporary directory `dir` (its path in `path`) */
static void times_file(char *dir, char *path, size_t plen, const char *text)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, plen, "%s/rank-00000.times", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* a times file as the signature runtime writes it: each phase's target time is the median
 * of its values, whatever the base's same occurrences took */
static void test_times_median(void **state)
{
    (void)state;
    char dir[] = "/tmp/pas2p-test-times-XXXXXX", path[128], err[512];
    /* phase 1: occurrences 1, 2, 3 timed (4.0 s, 1.1 s, 0.9 s); phase 2: its only one;
     * phase 3: two values, their mean */
    times_file(dir, path, sizeof path, "pas2p-times 1\nrank 0\nnp 1\nstatus stopped\nset_s 7\n"
                                       "phase 1 4.0 1.1 0.9\nphase 2 3.0\nphase 3 0.2 0.4\n");
    pas2p_sig_phase_t p[3];
    set_phase(&p[0], 1, 100, 0.5, 1);
    set_phase(&p[1], 2, 1, 2.0, 1);
    set_phase(&p[2], 3, 10, 0.1, 1);
    pas2p_sig_rank_t R = {.rank = 0, .nphases = 3, .phases = p};
    double t[3];
    pas2p_times_t st;
    memset(&st, 0, sizeof st);
    assert_int_equal(pas2p_times_read(dir, &R, t, &st, err, sizeof err), 0);
    assert_true(fabs(t[0] - 1.1) < EPS && fabs(t[1] - 3.0) < EPS && fabs(t[2] - 0.3) < EPS);
    assert_true(st.status == 1 && fabs(st.set_s - 7) < EPS);
    /* a burst of load on the base during occurrences 1-3 (cartsweep, np 2: 58.0, 49.9 and
     * 28.4 ms against a 30.5 ms mean): compared with them, the target's steady 1.1 s would
     * have read as 0.6x the base; it is still the target's median */
    p[0].nocc = 4;
    double base[4] = {0.9, 2.0, 1.7, 1.0};
    memcpy(p[0].occ_time_s, base, sizeof base);
    p[0].time_sd_s = 0.15;
    assert_int_equal(pas2p_times_read(dir, &R, t, &st, err, sizeof err), 0);
    assert_true(fabs(t[0] - 1.1) < EPS);
    /* only the status wanted: values of a phase id the rank lacks are skipped */
    R.nphases = 2;
    assert_int_equal(pas2p_times_read(dir, &R, NULL, &st, err, sizeof err), 0);
    /* but not when the times are wanted: malformed for this rank */
    assert_int_equal(pas2p_times_read(dir, &R, t, &st, err, sizeof err), -1);
    assert_non_null(strstr(err, "malformed times file"));
    unlink(path);
    rmdir(dir);
    /* a value that no writer prints (nan, inf: a damaged file) is malformed, not a phase
     * silently estimated or an infinite ratio */
    const char *bad[] = {"phase 1 1.0 inf 1.2\n", "phase 1 nan\n", "phase 1 1.0 -inf\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char d2[] = "/tmp/pas2p-test-times-bad-XXXXXX", p2[128], text[256];
        snprintf(text, sizeof text, "pas2p-times 1\nrank 0\nnp 1\nstatus stopped\nset_s 1\n%s",
                 bad[i]);
        times_file(d2, p2, sizeof p2, text);
        R.nphases = 3;
        assert_int_equal(pas2p_times_read(d2, &R, t, &st, err, sizeof err), -1);
        assert_non_null(strstr(err, "malformed times file"));
        unlink(p2);
        rmdir(d2);
    }
}

/* the times file's optional `departed` line (predict: rounds of non-relevant phases of an
 * anchored signature that made other calls than the base's, tolerated) is read */
static void test_departed_line(void **state)
{
    (void)state;
    char dir[] = "/tmp/pas2p-test-dep-XXXXXX", path[128], err[512];
    times_file(dir, path, sizeof path, "pas2p-times 1\nrank 0\nnp 1\nstatus stopped\nset_s 1\n"
                                       "departed 5 departed from the signature at event 9\n"
                                       "phase 1 2e-6 2e-6 2e-6\n");
    pas2p_times_file_t tf;
    assert_int_equal(pas2p_times_load(dir, 0, &tf, err, sizeof err), 0);
    assert_int_equal(tf.st.departed, 5);
    assert_string_equal(tf.st.departed_why, "departed from the signature at event 9");
    pas2p_times_file_free(&tf);
    unlink(path);
    rmdir(dir);
}

/* predict's drift guard: a phase whose base mean is 1.12x or more its base median over its
 * recorded early occurrences (a phase whose first occurrences are cheap) is the target's median
 * x base mean / that early median; below the factor, and for replays (repetitions of the
 * mean skeleton, occurrences = 0), the target's median */
static void test_drift_guard(void **state)
{
    (void)state;
    char dir[] = "/tmp/pas2p-test-drift-XXXXXX", path[128], err[512];
    times_file(dir, path, sizeof path, "pas2p-times 1\nrank 0\nnp 1\nstatus stopped\nset_s 0.01\n"
                                       "phase 1 0.0035 0.0034 0.0036\n");
    pas2p_sig_phase_t p[1];
    set_phase(&p[0], 1, 800, 0.010, 1); /* mean 10 ms over the run */
    p[0].nocc = 6;
    double base[6] = {0.008, 0.004, 0.0039, 0.0041, 0.0040, 0.0042}; /* early: 4.0 ms */
    memcpy(p[0].occ_time_s, base, sizeof base);
    pas2p_sig_rank_t R = {.rank = 0, .nphases = 1, .phases = p};
    pas2p_signature_t sig = {.nranks = 1, .ranks = &R, .np = 1, .representative = 0, .spmd = 1};
    pas2p_pet_t out;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    assert_int_equal(out.nphases, 1);
    assert_true(fabs(out.phases[0].early_s - 0.0040) < 1e-12);
    assert_true(fabs(out.phases[0].target_s - 0.010 * 0.0035 / 0.0040) < 1e-12);
    /* what it rests on: 3 values, their range on the target PhaseET's scale */
    assert_int_equal(out.phases[0].nvalues, 3);
    assert_true(fabs(out.phases[0].lo_s - 0.010 * 0.0034 / 0.0040) < 1e-12);
    assert_true(fabs(out.phases[0].hi_s - 0.010 * 0.0036 / 0.0040) < 1e-12);
    pas2p_pet_free(&out);
    /* a replay's times: the median */
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 0, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].target_s - 0.0035) < 1e-12 && out.phases[0].early_s == 0);
    pas2p_pet_free(&out);
    /* a mean carried by a few heavy occurrences (over 10x the run's median: HPCC's rounds
     * where a rank waits for another's single-process benchmark), not a drift: the typical
     * occurrence measured, the tail (mean - early median) x the rank's ratio, here the
     * medians' (no other phase): 0.0035 + 0.006 x 0.0035 / 0.004 */
    p[0].time_median_s = 0.0009;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].target_s - (0.0035 + 0.006 * 0.0035 / 0.0040)) < 1e-12);
    assert_true(out.phases[0].early_s == 0);
    pas2p_pet_free(&out);
    p[0].time_median_s = 0;
    /* a mean 1.08x the early median: noise can do that much (up to 1.10 seen), the median */
    p[0].time_mean_s = 1.08 * 0.0040;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].target_s - 0.0035) < 1e-12 && out.phases[0].early_s == 0);
    pas2p_pet_free(&out);
    /* md's steps slowing down over its run (1.13-1.30 seen): scaled */
    p[0].time_mean_s = 1.2 * 0.0040;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].target_s - 1.2 * 0.0035) < 1e-12);
    pas2p_pet_free(&out);
    /* early occurrences slower than the run's mean (NetPIPE's first ones of a 0.4 us phase
     * took 3.2 us): scaled down the same way, and said */
    p[0].time_mean_s = 0.0040 / 7.7;
    p[0].time_median_s = 0.0040 / 8;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].early_s - 0.0040) < 1e-12);
    assert_true(fabs(out.phases[0].target_s - 0.0035 / 7.7) < 1e-12);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pas2p_pet_print(&out, f);
    fclose(f);
    assert_non_null(strstr(text, "early occurrences' median (0.004000000 s) is 7.7x its mean"));
    free(text);
    pas2p_pet_free(&out);
    p[0].time_median_s = 0;
    /* within the factor either way: the median */
    p[0].time_mean_s = 0.0040 / 1.1;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].target_s - 0.0035) < 1e-12 && out.phases[0].early_s == 0);
    pas2p_pet_free(&out);
    unlink(path);
    rmdir(dir);
}

/* what pas2p_pet_print prints of out (free it) */
static char *printed(const pas2p_pet_t *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    pas2p_pet_print(out, f);
    fclose(f);
    return text;
}

/* out as predict's prediction file DIR/prediction.xml, read back into b */
static void round_trip(const pas2p_pet_t *out, const char *dir, pas2p_prediction_t *b)
{
    pas2p_prediction_t a;
    char xml[256], err[512];
    memset(&a, 0, sizeof a);
    snprintf(a.method, sizeof a.method, "predict");
    a.pet = *out;
    snprintf(xml, sizeof xml, "%s/prediction.xml", dir);
    assert_int_equal(pas2p_prediction_write(&a, xml, err, sizeof err), 0);
    assert_int_equal(pas2p_prediction_read(xml, b, err, sizeof err), 0);
}

/* predict's values paired with the same occurrences of the base run (the times file's
 * `first` line): a phase whose steps get dearer over its run (base occurrences 2-4 at 4.0,
 * 4.4, 4.8 ms, mean 10 ms) timed at half of those on the target is half its base mean,
 * whatever its early median says; a stalled value is one ratio of three; values past the
 * recorded occurrences are left out */
static void test_paired_occurrences(void **state)
{
    (void)state;
    char dir[] = "/tmp/pas2p-test-paired-XXXXXX", path[128], err[512];
    times_file(dir, path, sizeof path, "pas2p-times 1\nrank 0\nnp 1\nstatus stopped\nset_s 0.01\n"
                                       "phase 1 0.0020 0.0090 0.0024 0.0030\nfirst 1 2\n");
    pas2p_sig_phase_t p[1];
    set_phase(&p[0], 1, 800, 0.010, 1);
    p[0].nocc = 4; /* occurrences 1-4 recorded: the 4th value (occurrence 5) is not paired */
    double base[4] = {0.008, 0.0040, 0.0044, 0.0048};
    memcpy(p[0].occ_time_s, base, sizeof base);
    pas2p_sig_rank_t R = {.rank = 0, .nphases = 1, .phases = p};
    pas2p_signature_t sig = {.nranks = 1, .ranks = &R, .np = 1, .representative = 0, .spmd = 1};
    pas2p_pet_t out;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    /* ratios 0.5, 0.9 / 0.44 (the stall), 0.5: median 0.5 */
    assert_true(fabs(out.phases[0].target_s - 0.010 * 0.5) < 1e-12);
    assert_int_equal(out.phases[0].paired_first, 2);
    assert_int_equal(out.phases[0].paired_n, 3);
    assert_true(fabs(out.phases[0].paired_ratio - 0.5) < 1e-12);
    assert_true(out.phases[0].early_s == 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pas2p_pet_print(&out, f);
    fclose(f);
    assert_non_null(strstr(text, "same occurrence of the base run (occurrences 2-4)"));
    /* those base occurrences (median 0.0044) ran 0.44x the base mean (0.010): said once */
    assert_true(fabs(out.phases[0].paired_base - 0.44) < 1e-12);
    assert_non_null(strstr(text, "note: phase(s) 1: the base run's occurrences they were paired "
                                 "with ran 0.44x the base mean"));
    free(text);
    /* the prediction file keeps what it rests on */
    pas2p_prediction_t a, b;
    memset(&a, 0, sizeof a);
    snprintf(a.method, sizeof a.method, "predict");
    a.pet = out;
    char xml[256];
    snprintf(xml, sizeof xml, "%s/prediction.xml", dir);
    assert_int_equal(pas2p_prediction_write(&a, xml, err, sizeof err), 0);
    assert_int_equal(pas2p_prediction_read(xml, &b, err, sizeof err), 0);
    assert_int_equal(b.pet.phases[0].paired_first, 2);
    assert_int_equal(b.pet.phases[0].paired_n, 3);
    assert_true(fabs(b.pet.phases[0].paired_ratio - 0.5) < 1e-9);
    assert_int_equal(b.pet.phases[0].paired_runs, 0);
    assert_true(fabs(b.pet.phases[0].paired_base - 0.44) < 1e-9);
    pas2p_prediction_free(&b);
    pas2p_pet_free(&out);
    /* base runs pooled (pas2p trace --runs 3): each value over the runs' median of the same
     * occurrence, and their median mean time; the kept run's own times are not used */
    p[0].runs = 3;
    p[0].runs_time_mean_s = 0.012;
    double pooled[4] = {0.009, 0.0050, 0.0050, 0.0060};
    memcpy(p[0].occ_runs_time_s, pooled, sizeof pooled);
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    /* ratios 0.4, 0.9 / 0.5 (the stall), 0.4: median 0.4; 0.012 x 0.4 (the kept run's
     * own times would give 0.010 x 0.5) */
    assert_true(fabs(out.phases[0].paired_ratio - 0.4) < 1e-12);
    assert_true(fabs(out.phases[0].target_s - 0.012 * 0.4) < 1e-12);
    assert_int_equal(out.phases[0].paired_runs, 3);
    f = open_memstream(&text, &len);
    pas2p_pet_print(&out, f);
    fclose(f);
    assert_non_null(strstr(text, "each value over the median of the same occurrence in the 3 base runs (occurrences 2-4): the runs' median mean x"));
    assert_null(strstr(text, "note: phase(s)")); /* (pooled: no one run's profile) */
    free(text);
    a.pet = out;
    assert_int_equal(pas2p_prediction_write(&a, xml, err, sizeof err), 0);
    assert_int_equal(pas2p_prediction_read(xml, &b, err, sizeof err), 0);
    assert_int_equal(b.pet.phases[0].paired_runs, 3);
    pas2p_prediction_free(&b);
    pas2p_pet_free(&out);
    p[0].runs = 0;
    /* base occurrences near the base mean: nothing to note */
    double even[4] = {0.008, 0.0100, 0.0105, 0.0095};
    memcpy(p[0].occ_time_s, even, sizeof even);
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    f = open_memstream(&text, &len);
    pas2p_pet_print(&out, f);
    fclose(f);
    assert_null(strstr(text, "note: phase(s)"));
    free(text);
    pas2p_pet_free(&out);
    memcpy(p[0].occ_time_s, base, sizeof base);
    /* a replay's repetitions are not occurrences: the median, whatever the file says */
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 0, 0, &out, err, sizeof err), 0);
    assert_true(fabs(out.phases[0].target_s - 0.0027) < 1e-12 && !out.phases[0].paired_first);
    pas2p_pet_free(&out);
    unlink(xml);
    unlink(path);
    rmdir(dir);
}

/* pas2p_times_pair, predict's pairing (validation/known): which pairs enter the median */
static void test_pairing_rules(void **state)
{
    (void)state;
    pas2p_pairing_t a;
    /* a target that starts 60x slower than the base's same occurrences, then at its pace:
     * the pairs after the change, once there are 3 */
    double slow[8] = {0.020, 0.020, 0.020, 0.020, 0.020, 0.00033, 0.00036, 0.00030};
    double b33[8] = {0.0003, 0.0003, 0.0003, 0.0003, 0.0003, 0.0003, 0.0003, 0.0003};
    assert_int_equal(pas2p_times_pair(slow, b33, 8, 0.0003, &a), 0);
    assert_int_equal(a.how, PAS2P_PAIR_AFTER_CHANGE);
    assert_int_equal(a.used, 3);
    assert_int_equal(a.from, 5);
    assert_int_equal(a.before_n, 5);
    assert_true(fabs(a.ratio - 1.1) < 1e-9);
    assert_true(fabs(a.before - 0.020 / 0.0003) < 1e-6);
    assert_true(fabs(a.before_s - 0.100) < 1e-12);
    assert_true(fabs(a.rmin - 1.0) < 1e-9 && fabs(a.rmax - 1.2) < 1e-9);
    /* 2 after it: pending (all used: the median is still the earlier pace's) */
    assert_int_equal(pas2p_times_pair(slow, b33, 7, 0.0003, &a), 0);
    assert_int_equal(a.how, PAS2P_PAIR_CHANGE_PENDING);
    assert_int_equal(a.used, 7);
    assert_true(a.ratio > 60);
    /* a base occurrence that a hiccup made 2.5x the others: its ratio is 0.4 against 1,
     * but the target did not change pace: no change point, pending or not */
    double flat[4] = {0.001, 0.001, 0.001, 0.001}, hic[4] = {0.001, 0.001, 0.001, 0.0025};
    assert_int_equal(pas2p_times_pair(flat, hic, 4, 0.001, &a), 0);
    assert_int_equal(a.how, 0);
    assert_int_equal(a.used, 4);
    /* noise spreads both ways: no change point (ratios 0.5-2.1) */
    double noisy[6] = {0.0005, 0.0016, 0.0009, 0.0021, 0.0007, 0.0012};
    double b1[6] = {0.001, 0.001, 0.001, 0.001, 0.001, 0.001};
    assert_int_equal(pas2p_times_pair(noisy, b1, 6, 0.001, &a), 0);
    assert_int_equal(a.how, 0);
    assert_int_equal(a.used, 6);
    assert_true(fabs(a.ratio - 1.05) < 1e-9);
    /* a 10 ms phase whose first base occurrences ran 0.1 ms: their pairs' noise (3x, 0.5x)
     * is left out while typical ones are there */
    double bt[6] = {0.0001, 0.0001, 0.0001, 0.010, 0.010, 0.010};
    double tt[6] = {0.0003, 0.00005, 0.0001, 0.0105, 0.0100, 0.0098};
    assert_int_equal(pas2p_times_pair(tt, bt, 6, 0.010, &a), 0);
    assert_int_equal(a.how, PAS2P_PAIR_SOME_TYPICAL);
    assert_int_equal(a.used, 3);
    assert_int_equal(a.from, 3);
    assert_true(fabs(a.ratio - 1.0) < 1e-9);
    /* none typical: all of them, said */
    assert_int_equal(pas2p_times_pair(tt, bt, 3, 0.010, &a), 0);
    assert_true(a.how & PAS2P_PAIR_UNTYPICAL); /* (and the 3x first: a change pending) */
    assert_int_equal(a.used, 3);
    assert_true(fabs(a.ratio - 1.0) < 1e-9);
    /* typical unknown (older signatures): none left out for it, and no change point (the
     * first ratio is 3x every one after it, but the base changed pace there, not the
     * target) */
    assert_int_equal(pas2p_times_pair(tt, bt, 6, 0, &a), 0);
    assert_int_equal(a.how, 0);
    assert_int_equal(a.used, 6);
    /* nothing to pair */
    double zero[2] = {0, 0};
    assert_int_equal(pas2p_times_pair(tt, zero, 2, 0.010, &a), -1);
}

/* predict over a target that started slow: the occurrences timed before the change count as
 * they ran, the phase's others at the later pace, and the note says so (slowstart: PET
 * 6.14 s for a run of 0.82 s before) */
static void test_paired_change_of_pace(void **state)
{
    (void)state;
    char dir[] = "/tmp/pas2p-test-pace-XXXXXX", path[128], err[512];
    times_file(dir, path, sizeof path,
               "pas2p-times 1\nrank 0\nnp 1\nstatus stopped\nset_s 0.16\n"
               "phase 2 0.020 0.020 0.020 0.020 0.020 0.00033 0.00036 0.00030\nfirst 2 2\n");
    pas2p_sig_phase_t p[1];
    set_phase(&p[0], 2, 269, 0.0003, 1);
    p[0].time_median_s = 0.0003;
    p[0].nocc = 12;
    for (int j = 0; j < 12; j++)
        p[0].occ_time_s[j] = 0.0003;
    pas2p_sig_rank_t R = {.rank = 0, .nphases = 1, .phases = p};
    pas2p_signature_t sig = {.nranks = 1, .ranks = &R, .np = 1, .representative = 0, .spmd = 1};
    pas2p_pet_t out;
    assert_int_equal(pas2p_pet_from_times(&sig, dir, NULL, 1, 0, &out, err, sizeof err), 0);
    double want = (0.100 + 264 * 0.0003 * 1.1) / 269;
    assert_true(fabs(out.phases[0].target_s - want) < 1e-12);
    assert_int_equal(out.phases[0].paired_used, 3);
    assert_int_equal(out.phases[0].paired_from, 5);
    char *text = printed(&out);
    assert_non_null(strstr(text, "median ratio 1.1000 of 3 of them, after the target changed pace"));
    assert_non_null(strstr(text, "note: phase 2: its timed occurrences ran 66.7x the base's same "
                                 "ones, then 1.1x from occurrence 7"));
    free(text);
    /* the prediction file keeps it, and prints the same */
    pas2p_prediction_t b;
    round_trip(&out, dir, &b);
    assert_int_equal(b.pet.phases[0].paired_used, 3);
    assert_int_equal(b.pet.phases[0].paired_how, PAS2P_PAIR_AFTER_CHANGE);
    assert_true(fabs(b.pet.phases[0].paired_before - 0.020 / 0.0003) < 1e-6);
    text = printed(&b.pet);
    assert_non_null(strstr(text, "then 1.1x from occurrence 7"));
    free(text);
    pas2p_prediction_free(&b);
    pas2p_pet_free(&out);
    char xml[256];
    snprintf(xml, sizeof xml, "%s/prediction.xml", dir);
    unlink(xml);
    unlink(path);
    rmdir(dir);
}

/* the prediction file keeps each double exactly: `pas2p show` prints the PET predict
 * printed (17.332275 s was written as 17.3322755 and shown as 17.332276) */
static void test_prediction_exact(void **state)
{
    (void)state;
    char dir[] = "/tmp/pas2p-test-exact-XXXXXX", xml[256];
    assert_non_null(mkdtemp(dir));
    const double v[] = {17.33227549999, 0.1, 1.0 / 3.0, 123456.789012345678, 2.5e-7};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) {
        pas2p_pet_t out;
        memset(&out, 0, sizeof out);
        out.pet_s = v[k];
        out.set_s = v[k] / 7;
        pas2p_prediction_t b;
        round_trip(&out, dir, &b);
        assert_true(b.pet.pet_s == v[k]);
        assert_true(b.pet.set_s == v[k] / 7);
        char x[64], y[64];
        snprintf(x, sizeof x, "%.6f", v[k]);
        snprintf(y, sizeof y, "%.6f", b.pet.pet_s);
        assert_string_equal(x, y);
        pas2p_prediction_free(&b);
    }
    snprintf(xml, sizeof xml, "%s/prediction.xml", dir);
    unlink(xml);
    rmdir(dir);
}

/* does what pas2p_prediction_print says of a hold `what` (what NULL: no warning at all) */
static void says(const pas2p_prediction_t *a, const char *what)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    pas2p_prediction_print(a, out);
    fclose(out);
    if (what)
        assert_non_null(strstr(text, what));
    else
        assert_null(strstr(text, "warning:"));
    free(text);
}

/* a predict run that stopped early after SET cannot take less than SET: said, not hidden */
static void test_pet_below_set_is_said(void **state)
{
    (void)state;
    fix_t f;
    make(&f, 1);
    double t0[3] = {0.05, 0.001, NAN};
    const double *t[2] = {t0, NULL};
    pas2p_prediction_t a;
    memset(&a, 0, sizeof a);
    char err[512];
    assert_int_equal(pas2p_pet_compute(&f.s, t, 2.0, 0, &a.pet, err, sizeof err), 0);
    assert_true(a.pet.pet_s < 2.0);
    snprintf(a.method, sizeof a.method, "predict");
    snprintf(a.stop, sizeof a.stop, "early (all ranks agreed, nothing in flight)");
    says(&a, "warning: PET (");
    /* SET within 5 % above PET (an EP-like run stopped in its last calls), SET below PET, or
     * a replay (its SET is the replay's own time): nothing said */
    a.pet.set_s = a.pet.pet_s * 1.04;
    says(&a, NULL);
    a.pet.set_s = a.pet.pet_s / 2;
    says(&a, NULL);
    /* a run that went to its end: SET is its own time, and a PET more than 10 % off it is
     * said either way; within 10 %, nothing */
    snprintf(a.stop, sizeof a.stop, "none: ran to MPI_Finalize");
    a.pet.set_s = a.pet.pet_s / 3; /* NAS LU S on a loaded machine: PET 3x the run */
    says(&a, "warning: this run went to its end in");
    says(&a, "+200.0 % off it");
    says(&a, "ran slower than");
    a.pet.set_s = a.pet.pet_s * 1.5;
    says(&a, "ran faster than");
    a.pet.set_s = a.pet.pet_s * 1.08;
    says(&a, NULL);
    /* --to-end: the run's own time is the AET; a PET more than 10 % off it is said (SET is
     * then only where the times were taken) */
    snprintf(a.stop, sizeof a.stop, "to the end, as asked (--to-end): ...");
    a.pet.set_s = a.pet.pet_s / 20;
    a.pet.aet_s = a.pet.pet_s / 0.38; /* ftn_ring at np 4 on 2 cores: -62 % */
    says(&a, "warning: PET is -62.0 % off this run's own time");
    says(&a, "ran faster than");
    a.pet.aet_s = a.pet.pet_s * 1.05;
    says(&a, NULL);
    a.pet.aet_s = 0; /* (no AET: nothing to compare) */
    says(&a, NULL);
    a.pet.set_s = 2.0;
    snprintf(a.method, sizeof a.method, "replay");
    says(&a, NULL);
    pas2p_prediction_free(&a);
}

/* the result file: written, read back equal; another version, another kind refused */
/* one measured phase far off the others moves the ratio that scales the unmeasured phases
 * and the rest: said, naming the phase (code_saturne: one occurrence 18x its base); not
 * when the phases agree */
static void test_outlier_ratio_is_said(void **state)
{
    (void)state;
    for (int outlier = 0; outlier < 2; outlier++) {
        pas2p_signature_t s;
        pas2p_sig_rank_t r;
        pas2p_sig_phase_t ph[4];
        memset(&s, 0, sizeof s);
        set_phase(&ph[0], 1, 10, 0.1, 1);
        set_phase(&ph[1], 2, 10, 0.1, 1);
        set_phase(&ph[2], 3, 10, 0.1, 1); /* not measured: base x ratio */
        set_phase(&ph[3], 4, 1, 0.1, 0);  /* the rest */
        r = (pas2p_sig_rank_t){.rank = 0, .nphases = 4, .phases = ph};
        s.nranks = 1;
        s.ranks = &r;
        s.np = 1;
        double t0[4] = {0.1, outlier ? 1.8 : 0.12, NAN, NAN};
        const double *t[1] = {t0};
        pas2p_pet_t p;
        char err[256], *text = NULL;
        size_t len = 0;
        assert_int_equal(pas2p_pet_compute(&s, t, 0, 0, &p, err, sizeof err), 0);
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        pas2p_pet_print_for(&p, "predict", f);
        fclose(f);
        const char *n = strstr(text, "note: phase 2 (ratio 18.00 over");
        if (outlier) {
            if (!n || !strstr(n, "to 9.50 from 1.00 without it"))
                fail_msg("no note on phase 2's ratio in:\n%s", text);
        } else {
            assert_null(strstr(text, "moves the ratio"));
        }
        free(text);
        pas2p_pet_free(&p);
    }
}

/* what pas2p_pet_print_for says for the fixture with phase 2 (weight 100) timed at target2
 * on n values in [lo, hi] (the caller frees it) */
static char *print_phase2_values(double target2, uint32_t n, double lo, double hi,
                                 const char *method)
{
    fix_t f;
    make(&f, 1);
    double t0[3] = {0.5, target2, NAN}, t1[2] = {0.4, 0.02};
    const double *t[2] = {t0, t1};
    pas2p_pet_t p;
    char err[256], *text = NULL;
    size_t len = 0;
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0, 0, &p, err, sizeof err), 0);
    for (uint32_t i = 0; i < p.nphases; i++)
        if (p.phases[i].id == 2) {
            p.phases[i].nvalues = n;
            p.phases[i].lo_s = lo;
            p.phases[i].hi_s = hi;
        }
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    pas2p_pet_print_for(&p, method, fp);
    fclose(fp);
    pas2p_pet_free(&p);
    return text;
}

/* a phase holding much of the PET on 2-4 timed values far apart is said (OpenFOAM on a
 * loaded node: 2 values 60x apart, 38 % of the PET); not with 5 values, nor values close
 * together, nor from a method that times no occurrence of the application */
static void test_few_values_far_apart_said(void **state)
{
    (void)state;
    struct {
        uint32_t n;
        double lo, hi;
        const char *method;
        int said;
    } cases[] = {{2, 0.01, 0.6, "predict", 1}, {4, 0.01, 0.05, "predict", 1},
                 {5, 0.01, 0.6, "predict", 0}, {3, 0.01, 0.03, "predict", 0},
                 {2, 0.01, 0.6, "simulate", 0}, {1, 0.3, 0.3, "predict", 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *text = print_phase2_values(0.3, cases[c].n, cases[c].lo, cases[c].hi,
                                         cases[c].method);
        const char *n = strstr(text, "note: phase 2 (");
        if (cases[c].said && !(n && strstr(n, "rests on") && strstr(n, "--rare-after")))
            fail_msg("case %zu: no note on phase 2's few values in:\n%s", c, text);
        if (!cases[c].said && strstr(text, "rests on"))
            fail_msg("case %zu: a note on few values in:\n%s", c, text);
        free(text);
    }
}

/* a phase holding half the PET on one timed occurrence of many, or a tenth of it on 5+
 * values an order of magnitude apart, is said (Graph500's BFS, miniMD beside another job);
 * not under those shares or spreads, nor from simulate */
static void test_one_or_wide_values_said(void **state)
{
    (void)state;
    struct {
        uint32_t n;
        double target, lo, hi; /* phase 2's (weight 100) target time and values' range */
        const char *method, *said;
    } cases[] = {{1, 0.3, 0.3, 0.3, "predict", "is timed on one occurrence of its 100"},
                 {1, 0.003, 0.003, 0.003, "predict", NULL}, /* 0.3 s of a 0.8 s PET */
                 {1, 0.3, 0.3, 0.3, "simulate", NULL},
                 {7, 0.3, 0.01, 0.5, "predict", "its 7 timed values are 50x apart"},
                 {7, 0.3, 0.1, 0.5, "predict", NULL},
                 {4, 0.3, 0.01, 0.5, "predict", NULL}}; /* (few values: the other note) */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *text = print_phase2_values(cases[c].target, cases[c].n, cases[c].lo, cases[c].hi,
                                         cases[c].method);
        const char *n = strstr(text, "note: phase 2 (");
        if (cases[c].said && !(n && strstr(n, cases[c].said)))
            fail_msg("case %zu: no '%s' in:\n%s", c, cases[c].said, text);
        if (!cases[c].said && (strstr(text, "on one occurrence of") || strstr(text, "x apart (the target")))
            fail_msg("case %zu: a note in:\n%s", c, text);
        free(text);
    }
}

static void test_prediction_file(void **state)
{
    (void)state;
    fix_t f;
    make(&f, 1);
    double t0[3] = {1.0, NAN, NAN}; /* P2 not measured: estimated, flagged */
    const double *t[2] = {t0, NULL};
    pas2p_prediction_t a, b;
    memset(&a, 0, sizeof a);
    char err[512], path[64], other[80];
    assert_int_equal(pas2p_pet_compute(&f.s, t, 0.25, 2.0, &a.pet, err, sizeof err), 0);
    a.pet.phases[0].early_s = 0.125;
    a.pet.phases[0].nvalues = 7;
    a.pet.phases[0].lo_s = 0.5;
    a.pet.phases[0].hi_s = 1.5;
    snprintf(a.method, sizeof a.method, "predict");
    snprintf(a.signature, sizeof a.signature, "/x/sig.xml");
    snprintf(a.application, sizeof a.application, "mpirun -np 2 ./app \"<&>\"");
    snprintf(a.target, sizeof a.target, "mpirun -np 2 ./app");
    snprintf(a.stop, sizeof a.stop, "none: ran to MPI_Finalize");
    snprintf(a.note, sizeof a.note, "rank 0 ran to MPI_Finalize: phase 2");
    a.wall_s = 3.5;
    pas2p_prediction_stamp(&a);
    snprintf(path, sizeof path, "/tmp/pas2p-test-pred-%d.xml", (int)getpid());
    assert_int_equal(pas2p_prediction_write(&a, path, err, sizeof err), 0);
    assert_int_equal(pas2p_prediction_read(path, &b, err, sizeof err), 0);
    assert_string_equal(b.method, "predict");
    assert_string_equal(b.application, a.application);
    assert_string_equal(b.note, a.note);
    assert_string_equal(b.date, a.date);
    assert_true(fabs(b.pet.pet_s - a.pet.pet_s) < 1e-8 * a.pet.pet_s);
    assert_true(fabs(b.pet.pete - a.pet.pete) < 1e-8);
    assert_true(fabs(b.pet.set_s - 0.25) < 1e-12);
    assert_int_equal(b.pet.nphases, 2);
    assert_int_equal(b.pet.nestimated, 1);
    assert_true(b.pet.phases[1].estimated);
    assert_true(fabs(b.pet.phases[0].early_s - 0.125) < 1e-15 && b.pet.phases[1].early_s == 0);
    assert_int_equal(b.pet.phases[0].nvalues, 7);
    assert_true(b.pet.phases[0].lo_s == 0.5 && b.pet.phases[0].hi_s == 1.5);
    assert_int_equal(b.pet.phases[1].nvalues, 0);
    assert_true(fabs(b.pet.phases[1].target_s - a.pet.phases[1].target_s) < 1e-15);
    pas2p_prediction_free(&b);

    /* another version: refused, naming the file and both versions */
    snprintf(other, sizeof other, "%.64s.v9", path);
    FILE *in = fopen(path, "r"), *out = fopen(other, "w");
    char line[8192];
    while (fgets(line, sizeof line, in)) {
        char *v = strstr(line, "version=\"1\"");
        if (v)
            v[9] = '9';
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
    assert_int_equal(pas2p_prediction_read(other, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "prediction version 9"));
    assert_non_null(strstr(err, other));
    /* another kind of XML: -2, so `pas2p show` tries the signature reader */
    out = fopen(other, "w");
    fputs("<?xml version=\"1.0\"?>\n<pas2p-signature version=\"1\"/>\n", out);
    fclose(out);
    assert_int_equal(pas2p_prediction_read(other, &b, err, sizeof err), -2);
    /* schema-invalid: refused */
    out = fopen(other, "w");
    fputs("<?xml version=\"1.0\"?>\n<pas2p-prediction version=\"1\"><run method=\"guess\"/>"
          "</pas2p-prediction>\n", out);
    fclose(out);
    assert_int_equal(pas2p_prediction_read(other, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a valid prediction"));
    /* an unwritable place: one line, naming it */
    assert_int_equal(pas2p_prediction_write(&a, "/proc/nope/p.xml", err, sizeof err), -1);
    assert_non_null(strstr(err, "/proc/nope/p.xml: cannot write"));
    remove(path);
    remove(other);
    pas2p_prediction_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prediction_exact),
        cmocka_unit_test(test_equation_and_remainder),
        cmocka_unit_test(test_unmeasured_phase_is_estimated),
        cmocka_unit_test(test_nothing_measured_is_an_error),
        cmocka_unit_test(test_per_rank_takes_the_slowest),
        cmocka_unit_test(test_times_median),
        cmocka_unit_test(test_drift_guard),
        cmocka_unit_test(test_paired_occurrences),
        cmocka_unit_test(test_pairing_rules),
        cmocka_unit_test(test_paired_change_of_pace),
        cmocka_unit_test(test_pet_below_set_is_said),
        cmocka_unit_test(test_departed_line),
        cmocka_unit_test(test_outlier_ratio_is_said),
        cmocka_unit_test(test_few_values_far_apart_said),
        cmocka_unit_test(test_one_or_wide_values_said),
        cmocka_unit_test(test_prediction_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
