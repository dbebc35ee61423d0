#!/usr/bin/env python3
"""experiment_stats.py: the experiment's statistics (validation/experiment_report.py) on
samples whose answers are known: medians and percentiles, the bootstrap interval of PETE
and of the AET noise floor (contains the point, zero width when nothing varies, the same on
every run, independent of the other rows), failed rounds left out and said, the CSV's
columns, the paired PETE (each PET against its own round's AET).  Run: python3 tests/experiment_stats.py (ctest: experiment_stats)."""
import csv
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
import experiment_report as er  # noqa: E402

REQUIRED = ["app", "target", "np", "rounds", "path", "aet_median", "pet_median", "pete",
            "pete_ci_low", "pete_ci_high"]


def rounds_of(samples, app="a", target="t", np="2"):
    """raw rows from {path: [time or None]} (None: a failed run)"""
    rows = []
    for path, xs in samples.items():
        for k, x in enumerate(xs, 1):
            rows.append({"app": app, "args": "1 2", "np": np, "target": target, "round": str(k),
                         "path": path, "time_s": "" if x is None else repr(x),
                         "set_s": "" if x is None else repr(x / 10),
                         "wall_s": "" if x is None else repr(x / 10 + 0.4),
                         "ok": "0" if x is None else "1",
                         "note": "it broke" if x is None else ""})
    return rows


class Basics(unittest.TestCase):
    def test_median(self):
        self.assertEqual(er.median([3, 1, 2]), 2)
        self.assertEqual(er.median([4, 1, 3, 2]), 2.5)
        with self.assertRaises(ValueError):
            er.median([])

    def test_percentile_interpolates(self):
        self.assertAlmostEqual(er.percentile([1, 2, 3, 4], 5), 1.15)
        self.assertAlmostEqual(er.percentile([1, 2, 3, 4], 95), 3.85)
        self.assertEqual(er.percentile([7], 50), 7)
        self.assertEqual(er.percentile([4, 1, 3, 2], 0), 1)
        self.assertEqual(er.percentile([4, 1, 3, 2], 100), 4)

    def test_pete(self):
        self.assertAlmostEqual(er.pete(11.0, 10.0), 10.0)
        self.assertAlmostEqual(er.pete(9.0, 10.0), -10.0)


class Bootstrap(unittest.TestCase):
    def test_nothing_varies_zero_width(self):
        p, lo, hi = er.bootstrap_pete([10.0] * 5, [11.0] * 5, er.row_rng(22, "x"), 2000)
        self.assertAlmostEqual(p, 10.0)
        self.assertAlmostEqual(lo, 10.0)
        self.assertAlmostEqual(hi, 10.0)

    def test_interval_holds_the_point_and_widens_with_noise(self):
        aet = [10.0, 10.4, 9.7, 10.1, 9.9]
        quiet = [11.0, 11.1, 10.9, 11.0, 11.05]
        noisy = [11.0, 13.5, 9.0, 12.0, 10.2]
        p, lo, hi = er.bootstrap_pete(aet, quiet, er.row_rng(22, "q"), 2000)
        self.assertLessEqual(lo, p)
        self.assertLessEqual(p, hi)
        self.assertGreater(lo, 0)  # clearly over: the interval excludes 0
        p2, lo2, hi2 = er.bootstrap_pete(aet, noisy, er.row_rng(22, "q"), 2000)
        self.assertLessEqual(lo2, p2)
        self.assertLessEqual(p2, hi2)
        self.assertGreater(hi2 - lo2, hi - lo)

    def test_reproducible_and_seeded(self):
        aet, pet = [5.0, 5.5, 4.8, 5.2, 5.1], [5.3, 5.9, 5.0, 5.6, 5.2]
        a = er.bootstrap_pete(aet, pet, er.row_rng(22, "app", "t", "predict"), 2000)
        b = er.bootstrap_pete(aet, pet, er.row_rng(22, "app", "t", "predict"), 2000)
        c = er.bootstrap_pete(aet, pet, er.row_rng(23, "app", "t", "predict"), 2000)
        self.assertEqual(a, b)
        self.assertNotEqual(a[1:], c[1:])

    def test_noise_floor_is_centred(self):
        aet = [10.0, 10.4, 9.7, 10.1, 9.9]
        p, lo, hi = er.bootstrap_noise(aet, er.row_rng(22, "n"), 2000)
        self.assertEqual(p, 0.0)
        self.assertLess(lo, 0)
        self.assertGreater(hi, 0)
        # the same spread on both sides within the resolution of 5 samples
        self.assertLess(abs(hi + lo), max(hi, -lo))
        self.assertEqual(er.bootstrap_noise([3.0] * 4, er.row_rng(22, "n"), 500), (0.0, 0.0, 0.0))


class Summarize(unittest.TestCase):
    def rows(self):
        raw = rounds_of({"aet": [10.0, 10.2, 9.8, 10.1, 9.9],
                         "predict": [10.5, 10.6, None, 10.4, 10.5],
                         "replay": [None] * 5,
                         "simulate": [9.0] * 5})
        raw += rounds_of({"aet": [20.0] * 5, "predict": [21.0] * 5}, target="u")
        return er.summarize(raw, resamples=1000, seed=22)

    def test_rows_and_medians(self):
        rows = self.rows()
        got = [(r["target"], r["path"]) for r in rows]
        self.assertEqual(got, [("t", "aet"), ("t", "predict"), ("t", "replay"), ("t", "simulate"),
                               ("u", "aet"), ("u", "predict")])
        pred = rows[1]
        self.assertEqual(pred["n_pet"], 4)  # the failed round is left out ...
        self.assertIn("1 of 5 failed: it broke", pred["note"])  # ... and said
        self.assertAlmostEqual(pred["pet_median"], 10.5)
        self.assertAlmostEqual(pred["aet_median"], 10.0)
        self.assertAlmostEqual(pred["pete"], 5.0)
        self.assertAlmostEqual(pred["set_median"], 1.05)
        self.assertEqual(pred["rounds"], 5)
        sim = rows[3]
        self.assertAlmostEqual(sim["pete"], -10.0)
        self.assertLessEqual(sim["pete_ci_low"], -10.0)
        self.assertGreaterEqual(sim["pete_ci_high"], -10.0)
        u = rows[5]
        self.assertEqual((u["pete"], u["pete_ci_low"], u["pete_ci_high"]), (5.0, 5.0, 5.0))

    def test_a_path_that_never_ran_has_no_pete(self):
        rep = self.rows()[2]
        self.assertIsNone(rep["pet_median"])
        self.assertIsNone(rep["pete"])
        self.assertIn("5 of 5 failed", rep["note"])

    def test_a_row_does_not_depend_on_the_others(self):
        alone = er.summarize(rounds_of({"aet": [20.0, 21.0, 19.5], "predict": [21.0, 22.5, 20.0]},
                                       target="u"), resamples=1000, seed=22)
        both = er.summarize(rounds_of({"aet": [10.0, 11.0, 9.0], "predict": [10.0, 10.5, 9.5]})
                            + rounds_of({"aet": [20.0, 21.0, 19.5],
                                         "predict": [21.0, 22.5, 20.0]}, target="u"),
                            resamples=1000, seed=22)
        self.assertEqual(alone[-1], both[-1])

    def test_summary_against_the_targets(self):
        rows = self.rows()
        s = {x["path"]: x for x in er.path_summary(rows, ["t", "u"])}
        self.assertEqual(s["predict"]["pairs"], 2)
        self.assertAlmostEqual(s["predict"]["mean_abs"], 5.0)
        self.assertTrue(s["predict"]["verdict"].startswith("met"))
        self.assertEqual(s["replay"]["failed"], 1)
        self.assertTrue(s["simulate"]["verdict"].startswith("met"))  # 10.0 is within <= 10
        self.assertTrue(er.outside({"pete_ci_low": 10.5, "pete_ci_high": 12.0}, 10))
        self.assertTrue(er.outside({"pete_ci_low": -15.0, "pete_ci_high": -11.0}, 10))
        self.assertFalse(er.outside({"pete_ci_low": 8.0, "pete_ci_high": 12.0}, 10))

    def test_paired_pete(self):
        # a machine in two modes, each PET 2 % over the AET run of its own round
        aet = [10.0, 7.0, 10.0, 7.0, 7.0]
        pet = [a * 1.02 for a in aet]
        rows = er.summarize(rounds_of({"aet": aet, "predict": pet}), resamples=500, seed=22)
        pred = rows[1]
        self.assertAlmostEqual(pred["pete_paired"], 2.0)
        self.assertAlmostEqual(pred["pete_paired_ci_low"], 2.0)  # every round says +2 %
        self.assertAlmostEqual(pred["pete_paired_ci_high"], 2.0)
        self.assertEqual(pred["n_paired"], 5)
        # the PET runs in the other mode than their round's AET run: pairs and medians
        # both say -30 % when the modes split that way ...
        raw = rounds_of({"aet": [10.0, 7.0, 10.0, 7.0, 10.0], "predict": [7.0, 10.0, 7.0, 10.0, 7.0]})
        pred = er.summarize(raw, resamples=500, seed=22)[1]
        self.assertAlmostEqual(pred["pete"], -30.0)
        self.assertAlmostEqual(pred["pete_paired"], -30.0)
        raw = rounds_of({"aet": [10.0, 7.0, 10.0, 7.0, 9.0], "predict": [7.0, 10.0, 7.0, 10.0, 9.0]})
        pred = er.summarize(raw, resamples=500, seed=22)[1]
        self.assertAlmostEqual(pred["pete"], 0.0)  # ... here the medians are 9 and 9
        self.assertAlmostEqual(pred["pete_paired"], 0.0)  # ratios .7 .7 1 1.43 1.43: median 1
        self.assertLess(pred["pete_paired_ci_low"], -20)  # ... but the interval says how wide
        self.assertGreater(pred["pete_paired_ci_high"], 20)
        # a failed round pairs with nothing; the floor row has no paired PETE
        rows = self.rows()
        self.assertEqual(rows[1]["n_paired"], 4)
        self.assertIsNone(rows[0]["pete_paired"])
        s = {x["path"]: x for x in er.path_summary(rows, ["t", "u"], "pete_paired")}
        self.assertNotIn("aet", s)
        self.assertAlmostEqual(s["predict"]["mean_abs"], (5.0 + er.median(
            [10.5 / 10.0, 10.4 / 10.1, 10.5 / 9.9, 10.6 / 10.2]) * 100 - 100) / 2)

    def test_csv_columns(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "experiment.csv")
            er.write_csv(self.rows(), p)
            with open(p, newline="") as f:
                r = list(csv.reader(f))
        self.assertEqual(r[0][:len(REQUIRED)], REQUIRED)
        self.assertEqual(len(r), 7)
        self.assertTrue(all(len(x) == len(r[0]) for x in r))


if __name__ == "__main__":
    unittest.main(verbosity=1)
