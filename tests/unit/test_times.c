/* The times file's one writer and reader (signature/pas2p_times.h): what the writer
 * produces is the documented layout (tracer/FORMAT.md) and reads back; what the reader
 * refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pas2p_times.h"

static void make_dir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/pas2p-test-times-XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void slurp(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = 0;
    fclose(f);
}

static void test_round_trip(void **state)
{
    (void)state;
    char dir[64], path[128], text[1024], err[512], want[1024];
    make_dir(dir, sizeof dir);
    pas2p_times_writer_t w;
    unsigned long long done_at = 640;
    assert_int_equal(pas2p_times_begin(&w, dir, 3, 4, PAS2P_TIMES_STOPPED, 812, 0.121217, 31,
                                       "why not", &done_at), 0);
    pas2p_times_phase(&w, 2);
    pas2p_times_value(&w, 0.005187);
    pas2p_times_value(&w, 0.005201);
    pas2p_times_value(&w, 0.004);
    pas2p_times_phase(&w, 7);
    pas2p_times_value(&w, 1.5);
    pas2p_times_value(&w, 2.5);
    assert_int_equal(pas2p_times_end(&w), 0);
    snprintf(path, sizeof path, "%s/rank-00003.times", dir);
    slurp(path, text, sizeof text);
    snprintf(want, sizeof want, "pas2p-times 1\nrank 3\nnp 4\npid %d\nstatus stopped\nevents 812\n"
             "set_s 0.121217000\nchecks 31\nreason why not\ndone_at 640\n"
             "phase 2 0.005187000 0.005201000 0.004000000\nphase 7 1.500000000 2.500000000\n",
             (int)getpid());
    assert_string_equal(text, want);
    snprintf(path, sizeof path, "%s/rank-00003.times.tmp", dir);
    assert_int_not_equal(access(path, F_OK), 0); /* renamed, not left behind */

    pas2p_times_file_t tf;
    assert_int_equal(pas2p_times_load(dir, 3, &tf, err, sizeof err), 0);
    assert_int_equal(tf.st.status, PAS2P_TIMES_STOPPED);
    assert_true(fabs(tf.st.set_s - 0.121217) < 1e-12);
    assert_int_equal(tf.st.events, 812);
    assert_int_equal(tf.st.done_at, 640);
    assert_string_equal(tf.st.reason, "why not");
    assert_int_equal(tf.nphases, 2);
    assert_int_equal(tf.phases[0].id, 2);
    assert_int_equal(tf.phases[0].n, 3);
    assert_true(fabs(tf.phases[0].median - 0.005187) < 1e-12);
    assert_int_equal(tf.phases[1].id, 7);
    assert_true(fabs(tf.phases[1].median - 2.0) < 1e-12); /* even count: the mean of the two */
    pas2p_times_file_free(&tf);

    /* the replayer's form: no reason, no done_at, no phase */
    assert_int_equal(pas2p_times_begin(&w, dir, 0, 1, PAS2P_TIMES_COMPLETED, 5, 1, 0, NULL, NULL), 0);
    assert_int_equal(pas2p_times_end(&w), 0);
    assert_int_equal(pas2p_times_load(dir, 0, &tf, err, sizeof err), 0);
    assert_int_equal(tf.st.status, PAS2P_TIMES_COMPLETED);
    assert_int_equal(tf.nphases, 0);
    pas2p_times_file_free(&tf);
    snprintf(path, sizeof path, "%s/rank-00000.times", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/rank-00003.times", dir);
    unlink(path);
    rmdir(dir);
}

static void write_text(const char *dir, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/rank-00000.times", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_refused(void **state)
{
    (void)state;
    char dir[64], err[512], path[128];
    make_dir(dir, sizeof dir);
    pas2p_times_file_t tf;
    /* missing: the file and the reason named */
    assert_int_equal(pas2p_times_load(dir, 0, &tf, err, sizeof err), -1);
    assert_non_null(strstr(err, "rank-00000.times: No such file"));
    const char *bad[] = {
        "pas2p-times 2\nstatus stopped\n",          /* another version */
        "pas2p-times 1\nrank 0\nset_s 1\n",         /* no status */
        "pas2p-times 1\nstatus completed\nphase 1\n", /* a phase without a value */
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        write_text(dir, bad[k]);
        assert_int_equal(pas2p_times_load(dir, 0, &tf, err, sizeof err), -1);
        assert_non_null(strstr(err, "malformed times file"));
        assert_null(tf.phases);
    }
    /* an unknown status reads as diverged, never as a success */
    write_text(dir, "pas2p-times 1\nstatus exploded\n");
    assert_int_equal(pas2p_times_load(dir, 0, &tf, err, sizeof err), 0);
    assert_int_equal(tf.st.status, PAS2P_TIMES_DIVERGED);
    pas2p_times_file_free(&tf);
    snprintf(path, sizeof path, "%s/rank-00000.times", dir);
    unlink(path);
    rmdir(dir);
}

/* predict --to-end: rank 0's to-end.times, one run time per rank; the AET is the largest;
 * a file with another count of ranks, a bad value or another first line is refused */
static void test_to_end(void **state)
{
    (void)state;
    char dir[64], path[4400], text[256], err[512];
    make_dir(dir, sizeof dir);
    pas2p_to_end_t te = {0};
    assert_int_equal(pas2p_times_read_to_end(dir, 2, &te, err, sizeof err), -1);
    assert_non_null(strstr(err, "to-end.times: No such file"));
    const double run_s[] = {2.5, 2.75, 2.0};
    assert_int_equal(pas2p_times_write_to_end(dir, 3, run_s, NULL, NULL, path, sizeof path), 0);
    slurp(path, text, sizeof text);
    assert_string_equal(text, "pas2p-to-end 1\nnp 3\nrun_s 2.500000000\nrun_s 2.750000000\n"
                              "run_s 2.000000000\n");
    assert_int_equal(pas2p_times_read_to_end(dir, 3, &te, err, sizeof err), 0);
    assert_true(te.aet_s == 2.75);
    assert_int_equal(te.rank, -1); /* no calls lines */
    assert_int_equal(pas2p_times_read_to_end(dir, 4, &te, err, sizeof err), -1); /* np 4 */
    assert_non_null(strstr(err, "to-end.times: malformed"));
    /* the calls lines: the rank whose count departs most from the traced run's */
    const unsigned long long calls[] = {100, 90, 101}, traced[] = {100, 100, 100};
    assert_int_equal(pas2p_times_write_to_end(dir, 3, run_s, calls, traced, path, sizeof path), 0);
    slurp(path, text, sizeof text);
    assert_non_null(strstr(text, "run_s 2.000000000\ncalls 100 100\ncalls 90 100\ncalls 101 100\n"));
    assert_int_equal(pas2p_times_read_to_end(dir, 3, &te, err, sizeof err), 0);
    assert_int_equal(te.rank, 1);
    assert_true(te.calls == 90 && te.traced == 100);
    const char *bad[] = {
        "pas2p-to-end 2\nnp 1\nrun_s 1\n",   /* another version */
        "pas2p-to-end 1\nnp 1\nrun_s nan\n", /* not a time */
        "pas2p-to-end 1\nnp 1\nrun_s -1\n",
        "pas2p-to-end 1\nnp 1\nrun_s\n",
        "pas2p-to-end 1\nnp 1\n",             /* no time */
        "pas2p-to-end 1\nnp 1\nrun_s 1\ncalls 5\n", /* a calls line without the traced count */
        "pas2p-to-end 1\nnp 2\nrun_s 1\nrun_s 1\ncalls 5 5\n", /* not one per rank */
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(bad[k], f);
        fclose(f);
        int np = strstr(bad[k], "np 2") ? 2 : 1;
        assert_int_equal(pas2p_times_read_to_end(dir, np, &te, err, sizeof err), -1);
        assert_non_null(strstr(err, "malformed"));
    }
    unlink(path);
    rmdir(dir);
}

/* the steady rule predict's stop and the real-MPI replay share: values whose range is over
 * half their median want one more; once extended, one more while the last value moves the
 * median by over 5 %; fewer than 2 values, none */
static void test_unsteady(void **state)
{
    (void)state;
    const double hiccup[] = {0.31, 0.01};          /* a replay's first timed repetition */
    const double close[] = {0.0100, 0.0104};       /* within half their median */
    const double settled[] = {0.31, 0.01, 0.0101}; /* the third moved it 0.16 -> 0.0101 */
    const double moving[] = {0.01, 0.02, 0.03};    /* the median moved 0.015 -> 0.02 */
    assert_true(pas2p_times_unsteady(hiccup, 2, 0));
    assert_false(pas2p_times_unsteady(close, 2, 0));
    assert_false(pas2p_times_unsteady(hiccup, 1, 0));
    assert_false(pas2p_times_unsteady(hiccup, 0, 1));
    /* extended: the median of (0.31, 0.01, 0.0101) is 0.0101, of (0.31, 0.01) 0.16: one
     * more; the fourth moves it 0.5 %: steady */
    assert_true(pas2p_times_unsteady(settled, 3, 1));
    const double settled4[] = {0.31, 0.01, 0.0101, 0.0102}; /* 0.01015 vs 0.0101: 0.5 % */
    assert_false(pas2p_times_unsteady(settled4, 4, 1));
    assert_true(pas2p_times_unsteady(moving, 3, 1));
    /* not extended, the same values by their range alone: 0.02 over a median of 0.02 */
    assert_true(pas2p_times_unsteady(moving, 3, 0));
    const double zero[] = {0, 0, 0};
    assert_false(pas2p_times_unsteady(zero, 3, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_unsteady),
        cmocka_unit_test(test_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
