/* The prediction pipeline (signature/pas2p_pipeline.h) with a backend written here: a
 * backend is one struct of steps, and the pipeline alone turns the times files it leaves
 * into PET, prediction.xml and the printed result — no MPI, no SimGrid.  The signature is
 * tests/data/closed-form.sig.xml (SPMD, 2 ranks, phase 1: weight 10, 1.00101 s). */
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

#include "pas2p_pipeline.h"

/* what the fake target does: each rank's phase-1 time, which ranks write, what to pass */
typedef struct {
    double t[2];
    int write[2];
    int diverge;       /* rank 1 says it diverged */
    int exit_status;
} fake_opts_t;

static int fake_check(pas2p_run_t *run, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return run->sig && run->np == 2 ? 0 : 2;
}

static void fake_mode(const pas2p_run_t *run, char *out, size_t len)
{
    (void)run;
    snprintf(out, len, "fake mode");
}

static int fake_prepare(pas2p_run_t *run, char *err, size_t errlen)
{
    (void)run;
    (void)err;
    (void)errlen;
    return 0;
}

/* "runs" the target: writes the times files with the one writer */
static int fake_run(pas2p_run_t *run, char *err, size_t errlen)
{
    const fake_opts_t *o = run->bopts;
    for (int r = 0; r < 2; r++) {
        if (!o->write[r])
            continue;
        pas2p_times_writer_t w;
        int div = r == 1 && o->diverge;
        if (pas2p_times_begin(&w, run->dir, r, 2, div ? PAS2P_TIMES_DIVERGED : PAS2P_TIMES_COMPLETED,
                              20, 3.0, 0, div ? "boom at event 7" : NULL, NULL)) {
            snprintf(err, errlen, "cannot write %s", w.tmp);
            return 1;
        }
        pas2p_times_phase(&w, 1);
        pas2p_times_value(&w, o->t[r]);
        if (pas2p_times_end(&w)) {
            snprintf(err, errlen, "cannot write %s", w.path);
            return 1;
        }
    }
    run->code = o->exit_status;
    run->exit_status = o->exit_status;
    return 0;
}

static int fake_verify(pas2p_run_t *run, int missing, char *err, size_t errlen)
{
    (void)run;
    if (missing < 0)
        return 0;
    size_t n = strlen(err);
    snprintf(err + n, errlen - n, " (the fake target lost it)");
    return 1;
}

static void fake_describe(const pas2p_run_t *run, pas2p_prediction_t *res)
{
    (void)run;
    snprintf(res->target, sizeof res->target, "a fake target");
    /* the settings a --relative base must share are in the stop line */
    snprintf(res->stop, sizeof res->stop, "faked, fake mode");
}

static void fake_print(const pas2p_run_t *run, FILE *out)
{
    (void)run;
    fprintf(out, "fake = yes\n");
}

static const pas2p_backend_t fake_backend = {
    .method = "replay",
    .dir_prefix = "pas2p-fake",
    .check = fake_check,
    .mode = fake_mode,
    .prepare = fake_prepare,
    .run = fake_run,
    .verify = fake_verify,
    .describe = fake_describe,
    .print = fake_print,
};

/* a fresh, absent output directory */
static void fresh_dir(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/pas2p-test-pipeline-XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(rmdir(dir), 0);
}

static void cleanup(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static int run_fake(const char *sig_path, fake_opts_t *fo, const char *dir, const char *relative,
                    FILE *out, pas2p_pipeline_result_t *res, char *err, size_t errlen)
{
    pas2p_pipeline_opts_t o = {.cmd = "test", .backend = &fake_backend, .backend_opts = fo,
                               .sig_path = sig_path, .dir = dir, .relative = relative,
                               .out = out, .log = out};
    return pas2p_pipeline_run(&o, res, err, errlen);
}

static void test_prediction(void **state)
{
    const char *sig = *state; /* the signature file (main's argument) */
    char dir[64], err[4400], xml[128], *text = NULL;
    size_t len = 0;
    fresh_dir(dir, sizeof dir);
    fake_opts_t fo = {.t = {2.0, 4.0}, .write = {1, 1}};
    FILE *out = open_memstream(&text, &len);
    pas2p_pipeline_result_t res;
    assert_int_equal(run_fake(sig, &fo, dir, NULL, out, &res, err, sizeof err), 0);
    fclose(out);
    /* SPMD: the representative (rank 0) predicts, 10 x 2.0 s; SET is the slowest rank's */
    assert_true(fabs(res.pet_s - 20.0) < 1e-6);
    assert_true(fabs(res.set_s - 3.0) < 1e-9);
    assert_non_null(strstr(text, "results = "));
    assert_non_null(strstr(text, "fake = yes\nmethod = replay"));
    assert_non_null(strstr(text, "PET = 20.000000 s"));
    free(text);
    /* the file is the pipeline's, with the backend's lines */
    pas2p_prediction_t p;
    snprintf(xml, sizeof xml, "%s/prediction.xml", dir);
    assert_int_equal(pas2p_prediction_read(xml, &p, err, sizeof err), 0);
    assert_string_equal(p.method, "replay");
    assert_string_equal(p.target, "a fake target");
    assert_string_equal(p.stop, "faked, fake mode");
    assert_true(fabs(p.pet.pet_s - 20.0) < 1e-6);
    pas2p_prediction_free(&p);

    /* --relative: the same fake run against this one is the base PhaseET again */
    char dir2[64];
    fresh_dir(dir2, sizeof dir2);
    out = open_memstream(&text, &len);
    assert_int_equal(run_fake(sig, &fo, dir2, dir, out, &res, err, sizeof err), 0);
    fclose(out);
    free(text);
    assert_true(fabs(res.pet_s - 10.0101) < 1e-6);
    cleanup(dir2);
    cleanup(dir);
}

static void test_failures(void **state)
{
    const char *sig = *state;
    char dir[64], err[4400], *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    pas2p_pipeline_result_t res;

    /* a rank without its times file: the backend says why */
    fresh_dir(dir, sizeof dir);
    fake_opts_t lost = {.t = {2.0, 2.0}, .write = {1, 0}};
    assert_int_equal(run_fake(sig, &lost, dir, NULL, out, &res, err, sizeof err), 1);
    assert_non_null(strstr(err, "rank-00001.times"));
    assert_non_null(strstr(err, "(the fake target lost it)"));
    assert_true(isnan(res.pet_s));
    cleanup(dir);

    /* a divergence anywhere is the answer, named by rank */
    fresh_dir(dir, sizeof dir);
    fake_opts_t div = {.t = {2.0, 2.0}, .write = {1, 1}, .diverge = 1};
    assert_int_equal(run_fake(sig, &div, dir, NULL, out, &res, err, sizeof err), 1);
    assert_string_equal(err, "rank 1: boom at event 7");
    cleanup(dir);

    /* a status to pass through: the prediction is still made, then the status returned */
    fresh_dir(dir, sizeof dir);
    fake_opts_t st = {.t = {2.0, 2.0}, .write = {1, 1}, .exit_status = 7};
    assert_int_equal(run_fake(sig, &st, dir, NULL, out, &res, err, sizeof err), 7);
    assert_string_equal(err, "the launcher exited with status 7");
    assert_true(fabs(res.pet_s - 20.0) < 1e-6);
    cleanup(dir);

    /* a --relative base that is not a run of this kind: refused before anything runs */
    fresh_dir(dir, sizeof dir);
    fake_opts_t ok = {.t = {2.0, 2.0}, .write = {1, 1}};
    assert_int_equal(run_fake(sig, &ok, dir, "/nonexistent-base", out, &res, err, sizeof err), 2);
    assert_int_not_equal(access(dir, F_OK), 0);

    /* a bad signature: 2, nothing created */
    pas2p_pipeline_opts_t o = {.cmd = "test", .backend = &fake_backend, .backend_opts = &ok,
                               .sig_path = "/nonexistent.sig.xml", .dir = dir, .out = out, .log = out};
    assert_int_equal(pas2p_pipeline_run(&o, &res, err, sizeof err), 2);
    assert_non_null(strstr(err, "/nonexistent.sig.xml"));
    assert_int_not_equal(access(dir, F_OK), 0);
    fclose(out);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_pipeline tests/data/closed-form.sig.xml\n");
        return 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_prediction, argv[1]),
        cmocka_unit_test_prestate(test_failures, argv[1]),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
