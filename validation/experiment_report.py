#!/usr/bin/env python3
"""The statistics and the pages of the PET-vs-AET experiment (validation/experiment.sh).

    python3 validation/experiment_report.py DIR [--resamples B] [--seed S]

Reads what validation/experiment.sh wrote in DIR:
  experiment-rounds.csv   every run, one row each (long format):
                          app,args,np,target,round,path,time_s,set_s,wall_s,ok,note
                          path: aet (the AET run: time_s is its AET), predict, replay,
                          replay-relative, simulate (time_s is the PET), replay-base (the base
                          replay that the round's relative replays refer to), kernel-speed
                          (this machine's kernel speed at the round's start, flop/s: the
                          round's platforms are scaled by it), tfat and trace (round 0: the
                          analysis time and the AET of the traced base run kept, the median
                          of `pas2p trace --runs K`), trace-run (round k: the AET of the
                          k-th of those K runs)
  experiment-targets.csv  target,nodes,bandwidth,cpu,description
  experiment-info.txt     `key = value` lines: date, commit, host, command, rounds, np, size
  phases/APP.html         `pas2p report --fragment` of each application's signature (optional)
and writes, in DIR:
  experiment.csv          one row per (app, target, path), long format: app,target,np,rounds,
                          path,aet_median,pet_median,pete,pete_ci_low,pete_ci_high, then
                          n_aet,n_pet,aet_min,aet_max,pet_min,pet_max,set_median,wall_median,args,note,
                          pete_paired,pete_paired_ci_low,pete_paired_ci_high,n_paired
  experiment.md           the table, the per-path summary against issue 22's targets, the
                          machine and the commit
  index.html              one self-contained page (inline CSS and SVG, no network resource):
                          the table, PET against AET with the 90 % intervals per path, PETE per
                          application x target, and each application's phases (the fragments)

Statistics, per (app, target, path), over the rounds that gave a number:
  aet_median, pet_median  medians of the rounds' AETs and PETs
  pete                    (pet_median - aet_median) / aet_median x 100
  pete_ci_low, _high      bootstrap 90 % interval of pete: B times, the AET rounds and the PET
                          rounds are each resampled with replacement, independently (they are
                          separate runs), and 100 (median(PET*) - median(AET*)) / median(AET*)
                          computed; the interval is the 5th and 95th percentiles of the B
                          values (linear interpolation between order statistics).
  pete_paired, _ci_low, _high  the median over the rounds of 100 (PET/AET - 1), each PET
                          against the AET run of its own round (minutes apart), and its
                          bootstrap 90 % interval (the rounds resampled); n_paired rounds
  the row of path `aet`   the AET noise floor, measured the same way: a second, independent
                          resample of the AET rounds stands in for the PETs, so pete is 0 and
                          the interval is where the PETE of a prediction exactly as noisy as
                          one AET sample and unbiased would fall.  A path whose interval is
                          not wider than this one is as good as the measurement can show.
The random generator is seeded from --seed and the row's (app, target, path), so the output
is the same on every run and one row's interval does not depend on which others exist.
"""
import argparse
import csv
import html
import math
import os
import random
import sys
import zlib

PATHS = ["predict", "replay", "replay-relative", "simulate"]  # the prediction paths
PATH_LABEL = {"aet": "AET noise", "predict": "predict", "replay": "replay",
              "replay-relative": "replay --relative", "simulate": "simulate"}
# issue 22's targets: path -> (mean |PETE| bound %, bound of the interval, or None)
TARGETS = {"predict": (5.0, 10.0), "simulate": (10.0, None), "replay-relative": (10.0, None)}
COLUMNS = ["app", "target", "np", "rounds", "path", "aet_median", "pet_median", "pete",
           "pete_ci_low", "pete_ci_high", "n_aet", "n_pet", "aet_min", "aet_max", "pet_min",
           "pet_max", "set_median", "wall_median", "args", "note", "pete_paired",
           "pete_paired_ci_low", "pete_paired_ci_high", "n_paired"]


# ---- statistics ---------------------------------------------------------------------------

def median(xs):
    s = sorted(xs)
    n = len(s)
    if not n:
        raise ValueError("median of nothing")
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def percentile(xs, p):
    """p-th percentile (0-100), linear interpolation between order statistics."""
    s = sorted(xs)
    if not s:
        raise ValueError("percentile of nothing")
    k = (len(s) - 1) * p / 100.0
    lo = math.floor(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def _resample(rng, xs):
    n = len(xs)
    return [xs[int(rng.random() * n)] for _ in range(n)]


def row_rng(seed, *key):
    """A generator for one row: the seed and the row's key, not the order of the rows."""
    return random.Random(seed * 1000003 + zlib.crc32("/".join(key).encode()))


def pete(pet, aet):
    return 100.0 * (pet - aet) / aet


def bootstrap_pete(aets, pets, rng, resamples=4000, level=90.0):
    """(pete of the medians, ci_low, ci_high): the AET and PET samples resampled independently."""
    point = pete(median(pets), median(aets))
    vals = [pete(median(_resample(rng, pets)), median(_resample(rng, aets)))
            for _ in range(resamples)]
    tail = (100.0 - level) / 2
    return point, percentile(vals, tail), percentile(vals, 100.0 - tail)


def bootstrap_paired(ratios, rng, resamples=4000, level=90.0):
    """(median of the rounds' PET/AET - 1, ci_low, ci_high), in %: the rounds resampled."""
    point = 100.0 * (median(ratios) - 1)
    vals = [100.0 * (median(_resample(rng, ratios)) - 1) for _ in range(resamples)]
    tail = (100.0 - level) / 2
    return point, percentile(vals, tail), percentile(vals, 100.0 - tail)


def bootstrap_noise(aets, rng, resamples=4000, level=90.0):
    """(0, ci_low, ci_high): PETE's interval if the PETs were a second sample of the AETs."""
    vals = [pete(median(_resample(rng, aets)), median(_resample(rng, aets)))
            for _ in range(resamples)]
    tail = (100.0 - level) / 2
    return 0.0, percentile(vals, tail), percentile(vals, 100.0 - tail)


# ---- reading ------------------------------------------------------------------------------

def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def read_rounds(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    need = {"app", "args", "np", "target", "round", "path", "time_s", "ok"}
    if rows and not need <= set(rows[0]):
        raise SystemExit(f"experiment_report.py: {path}: needs the columns {sorted(need)}")
    return rows


def read_info(path):
    info = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if " = " in line:
                    k, v = line.rstrip("\n").split(" = ", 1)
                    info[k.strip()] = v
    return info


def read_targets(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


# ---- the statistics table -----------------------------------------------------------------

def fmt(v, d=6):
    return "" if v is None else f"{v:.{d}f}"


def paired_ratios(here, path):
    """PET / AET of each round that gave both: the prediction against the AET run just before
    it on the same target (minutes apart, where this VM's modes last minutes)."""
    by = {}
    for r in here:
        v = num(r["time_s"])
        if r["path"] in ("aet", path) and r["ok"] == "1" and v is not None and v > 0:
            by.setdefault(r["round"], {})[r["path"]] = v
    return [d[path] / d["aet"] for _, d in sorted(by.items()) if "aet" in d and path in d]


def summarize(rounds, resamples=4000, seed=22):
    """The rows of experiment.csv (dicts, numbers as floats or None), in app, target order."""
    apps = ordered(r["app"] for r in rounds)
    targets = ordered(r["target"] for r in rounds if r["path"] in ["aet"] + PATHS)
    out = []
    for app in apps:
        mine = [r for r in rounds if r["app"] == app]
        args = mine[0]["args"]
        for t in targets:
            here = [r for r in mine if r["target"] == t]
            if not any(r["path"] in ["aet"] + PATHS for r in here):
                continue
            nround = len(ordered(r["round"] for r in here if r["path"] in ["aet"] + PATHS))
            npr = here[0]["np"]

            def sample(path, col="time_s"):
                return [v for r in here if r["path"] == path and r["ok"] == "1"
                        for v in [num(r[col])] if v is not None and v > 0]

            def failures(path):
                return sum(1 for r in here if r["path"] == path and r["ok"] != "1")

            aets = sample("aet")
            aet_med = median(aets) if aets else None
            for path in ["aet"] + PATHS:
                if not any(r["path"] == path for r in here):
                    continue
                pets = aets if path == "aet" else sample(path)
                row = {"app": app, "target": t, "np": npr, "rounds": nround, "path": path,
                       "aet_median": aet_med, "pet_median": median(pets) if pets else None,
                       "pete": None, "pete_ci_low": None, "pete_ci_high": None,
                       "n_aet": len(aets), "n_pet": len(pets),
                       "aet_min": min(aets) if aets else None,
                       "aet_max": max(aets) if aets else None,
                       "pet_min": min(pets) if pets else None,
                       "pet_max": max(pets) if pets else None,
                       "set_median": None, "wall_median": None, "args": args, "note": "",
                       "pete_paired": None, "pete_paired_ci_low": None,
                       "pete_paired_ci_high": None, "n_paired": None}
                if path != "aet":
                    sets, walls = sample(path, "set_s"), sample(path, "wall_s")
                    row["set_median"] = median(sets) if sets else None
                    row["wall_median"] = median(walls) if walls else None
                nf = failures(path)
                notes = []
                if nf:
                    bad = [r.get("note", "") for r in here if r["path"] == path and r["ok"] != "1"]
                    notes.append(f"{nf} of {nround} failed" + (f": {bad[0]}" if bad[0] else ""))
                if aets and pets:
                    rng = row_rng(seed, app, t, path)
                    if path == "aet":
                        p, lo, hi = bootstrap_noise(aets, rng, resamples)
                    else:
                        p, lo, hi = bootstrap_pete(aets, pets, rng, resamples)
                    row.update(pete=p, pete_ci_low=lo, pete_ci_high=hi)
                    ratios = paired_ratios(here, path) if path != "aet" else []
                    if len(ratios) >= 2:
                        p, lo, hi = bootstrap_paired(ratios, row_rng(seed, app, t, path, "paired"),
                                                     resamples)
                        row.update(pete_paired=p, pete_paired_ci_low=lo, pete_paired_ci_high=hi,
                                   n_paired=len(ratios))
                elif not aets:
                    notes.append("no AET")
                row["note"] = "; ".join(notes)
                out.append(row)
    return out


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([fmt(r[c], 2 if c.startswith("pete") else 6)
                        if isinstance(r[c], float) or (r[c] is None) else r[c] for c in COLUMNS])


def outside(r, bound, key="pete"):
    """The interval lies entirely outside +-bound %."""
    lo, hi = r[key + "_ci_low"], r[key + "_ci_high"]
    return lo is not None and (lo > bound or hi < -bound)


def path_summary(rows, targets_order, key="pete"):
    """Per path: pairs, mean/max |PETE|, mean signed, intervals outside +-10 %, verdict.
    key "pete_paired": the same over the paired PETEs (no floor row: it has none)."""
    res = []
    for path in (["aet"] if key == "pete" else []) + PATHS:
        rs = [r for r in rows if r["path"] == path and r[key] is not None]
        fails = [r for r in rows if r["path"] == path and r[key] is None]
        if not rs and not fails:
            continue
        s = {"path": path, "pairs": len(rs), "failed": len(fails)}
        if path == "aet":
            half = [(r["pete_ci_high"] - r["pete_ci_low"]) / 2 for r in rs]
            s["mean_abs"] = sum(half) / len(half) if half else None
            s["max_abs"] = max(half) if half else None
            s["mean_signed"] = None
            s["outside10"] = None
            s["verdict"] = "the floor: half-width of the 90 % interval"
        else:
            a = [abs(r[key]) for r in rs]
            s["mean_abs"] = sum(a) / len(a) if a else None
            s["max_abs"] = max(a) if a else None
            s["mean_signed"] = sum(r[key] for r in rs) / len(rs) if rs else None
            s["outside10"] = sum(1 for r in rs if outside(r, 10.0, key))
            s["mean_width"] = (sum(r[key + "_ci_high"] - r[key + "_ci_low"] for r in rs) / len(rs)
                               if rs else None)
            tg = TARGETS.get(path)
            if not tg:
                s["verdict"] = "-"
            else:
                ok = s["mean_abs"] is not None and s["mean_abs"] <= tg[0] and not fails
                want = f"mean abs PETE <= {tg[0]:g} %"
                if tg[1] is not None:
                    ok = ok and s["outside10"] == 0
                    want += f", no interval outside +-{tg[1]:g} %"
                if fails:
                    want += f"; {len(fails)} pair(s) gave no PETE"
                s["verdict"] = ("met" if ok else "**not met**") + f" ({want})"
        res.append(s)
    return res


def base_ratios(rows, targets_order):
    """Per app: each target's AET median over the base's."""
    out = []
    for app in ordered(r["app"] for r in rows):
        aet = {r["target"]: r["aet_median"] for r in rows if r["app"] == app and r["path"] == "aet"}
        base = aet.get("base")
        out.append((app, {t: (aet[t] / base if base and aet.get(t) else None)
                          for t in targets_order if t in aet}))
    return out


# ---- Markdown -----------------------------------------------------------------------------

def pe(r):
    if r is None:
        return "-"
    if r["pete"] is None:
        return "fail" if r["n_pet"] == 0 else "-"
    return f"{r['pete']:+.1f} [{r['pete_ci_low']:+.1f}, {r['pete_ci_high']:+.1f}]"


def table_rows(rows):
    """(app, args, target, {path: row}) in order."""
    keyed = {}
    for r in rows:
        keyed.setdefault((r["app"], r["target"]), {})[r["path"]] = r
    return [(a, v[next(iter(v))]["args"], t, v) for (a, t), v in keyed.items()]


def tfat_of(rounds):
    return {r["app"]: num(r["time_s"]) for r in rounds if r["path"] == "tfat"}


def write_md(rows, rounds, info, targets, path, resamples, seed):
    torder = [t["target"] for t in targets] or ordered(r["target"] for r in rows)
    L = ["# PET vs AET on real, different targets", ""]
    L.append(f"{info.get('date', '?')}, commit {info.get('commit', '?')}, on {info.get('host', '?')}.")
    L.append(f"Command: `{info.get('command', '?')}` ({info.get('rounds', '?')} rounds, "
             f"np {info.get('np', '?')}, {info.get('size', '?')} size).")
    L.append("")
    L.append("| target | nodes | links | CPU per node | what |")
    L.append("|---|---|---|---|---|")
    for t in targets:
        L.append(f"| {t['target']} | {t['nodes'] or '-'} | {t['bandwidth'] or '-'} | "
                 f"{t['cpu'] or '-'} | {t['description']} |")
    L.append("")
    L.append("Each round runs, on every target in turn: the AET run (a traced run: `MPI_Init` to "
             "`MPI_Finalize`, slowest rank), `pas2p predict`, `pas2p replay`, `pas2p replay "
             "--relative` (to a base replay made at the start of the same round) and `pas2p "
             "simulate` on the target's own platform (`platform-TARGET.xml`), default flags.")
    L.append(f"PETE = (median PET - median AET) / median AET, in %; in brackets its bootstrap 90 % "
             f"interval ({resamples} resamples of the rounds, AET and PET independently, seed "
             f"{seed}).  AET noise: the same interval with a second resample of the AET rounds in "
             "place of the PETs (the floor).  `experiment.csv` has every number, "
             "`experiment-rounds.csv` every run.")
    L.append("")
    L.append("| app | target | AET s (min-max) | AET noise | predict | SET/AET | replay | "
             "replay --relative | simulate | note |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for app, args, t, v in table_rows(rows):
        a = v.get("aet")
        aet = (f"{a['aet_median']:.3f} ({a['aet_min']:.3f}-{a['aet_max']:.3f})"
               if a and a["aet_median"] else "fail")
        noise = f"[{a['pete_ci_low']:+.1f}, {a['pete_ci_high']:+.1f}]" if a and a["pete"] is not None else "-"
        p = v.get("predict")
        setp = (f"{100 * p['set_median'] / p['aet_median']:.1f} %"
                if p and p["set_median"] and p["aet_median"] else "-")
        notes = "; ".join(f"{x}: {v[x]['note']}" for x in v if v[x]["note"])
        L.append(f"| {app} {args} | {t} | {aet} | {noise} | {pe(p)} | {setp} | "
                 f"{pe(v.get('replay'))} | {pe(v.get('replay-relative'))} | {pe(v.get('simulate'))} "
                 f"| {notes} |")
    L.append("")
    L.append("## Per path, against issue 22's targets")
    L.append("")
    L.append("Over every (app, target) pair, the base included.  Outside +-10 %: pairs whose "
             "whole 90 % interval lies beyond +-10 %.")
    L.append("")
    L.append("| path | pairs | mean abs PETE | max abs PETE | mean signed | mean interval width | "
             "outside +-10 % | target |")
    L.append("|---|---|---|---|---|---|---|---|")

    def f1(x, sign=False):
        return "-" if x is None else (f"{x:+.2f} %" if sign else f"{x:.2f} %")
    for s in path_summary(rows, torder):
        fails = f" ({s['failed']} failed)" if s["failed"] else ""
        L.append(f"| {PATH_LABEL[s['path']]} | {s['pairs']}{fails} | {f1(s['mean_abs'])} | "
                 f"{f1(s['max_abs'])} | {f1(s['mean_signed'], True)} | {f1(s.get('mean_width'))} | "
                 f"{'-' if s['outside10'] is None else s['outside10']} | {s['verdict']} |")
    L.append("")
    paired = path_summary(rows, torder, "pete_paired")
    if any(s["pairs"] for s in paired):
        L.append("### Paired: each prediction against the AET run of its own round")
        L.append("")
        L.append("This VM runs in modes that last minutes (an application's AET can move by "
                 "tens of per cent between rounds), so the medians above can fall in different "
                 "modes.  Here "
                 "PETE is the median over the rounds of PET / AET - 1, each PET against the AET "
                 "run just before it on the same target, with a bootstrap 90 % interval of the "
                 "rounds (`pete_paired*` in `experiment.csv`); it has no floor row.")
        L.append("")
        L.append("| path | pairs | mean abs PETE | max abs PETE | mean signed | mean interval "
                 "width | outside +-10 % | target |")
        L.append("|---|---|---|---|---|---|---|---|")
        for s in paired:
            fails = f" ({s['failed']} failed)" if s["failed"] else ""
            L.append(f"| {PATH_LABEL[s['path']]} | {s['pairs']}{fails} | {f1(s['mean_abs'])} | "
                     f"{f1(s['max_abs'])} | {f1(s['mean_signed'], True)} | "
                     f"{f1(s.get('mean_width'))} | {s['outside10']} | {s['verdict']} |")
        L.append("")
    L.append("## How much the targets differ")
    L.append("")
    L.append("Median AET on each target over the base's (issue 22: the slowest target at least 2x).")
    L.append("")
    L.append("| app | " + " | ".join(torder) + " |")
    L.append("|---|" + "---|" * len(torder))
    for app, rat in base_ratios(rows, torder):
        L.append(f"| {app} | " + " | ".join("-" if rat.get(t) is None else f"{rat[t]:.2f}"
                                           for t in torder) + " |")
    tf = tfat_of(rounds)
    if tf:
        L.append("")
        L.append("TFAT (the analysis on the base) over the base's median AET: " + ", ".join(
            f"{app} {100 * tf[app] / r['aet_median']:.2f} %" for app in tf
            for r in rows if r["app"] == app and r["target"] == "base" and r["path"] == "aet"
            and tf[app] is not None and r["aet_median"]) + ".")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


# ---- the page -----------------------------------------------------------------------------

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac"]
STYLE = (
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;"
    "max-width:1200px;color:#222;padding:0 16px}h1{font-size:22px;margin-bottom:4px}"
    "h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}"
    "code{background:#f4f4f4;padding:1px 4px;border-radius:3px}"
    "table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 8px;border-bottom:1px solid "
    "#eee;text-align:right;white-space:nowrap}th{background:#fafafa}td.l,th.l{text-align:left;"
    "white-space:normal;min-width:4em}.note{color:#666;font-size:13px}.ok{color:#2a7a2a}.no{color:#b03030}"
    "td.hm{font-variant-numeric:tabular-nums;border:1px solid #fff}td.out{outline:2px solid #222;"
    "outline-offset:-2px}.plots{display:flex;flex-wrap:wrap;gap:10px}"
    "svg text{font:11px system-ui,sans-serif;fill:#333}nav a{margin-right:10px}")


def e(x):
    return html.escape(str(x), quote=True)


def nice_ticks(lo, hi, n=5):
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    t = math.ceil(lo / step) * step
    out = []
    while t <= hi + step * 1e-9:
        out.append(round(t, 10))
        t += step
    return out


def scatter(rows, path, tcolour, size=330):
    """PET against AET for one path: points, the 90 % interval as a vertical bar (AET median x
    (1 + interval)), the line y = x and +-10 %."""
    rs = [r for r in rows if r["path"] == path and r["pete"] is not None]
    if not rs:
        return f"<p class=note>{e(PATH_LABEL[path])}: no prediction.</p>"
    ys = [r["aet_median"] * (1 + r["pete_ci_low"] / 100) for r in rs]
    ys += [r["aet_median"] * (1 + r["pete_ci_high"] / 100) for r in rs]
    vals = [r["aet_median"] for r in rs] + [r["pet_median"] for r in rs] + ys
    lo, hi = min(vals), max(vals)
    pad = (hi - lo) * 0.08 or hi * 0.1
    lo, hi = max(0.0, lo - pad), hi + pad
    m, W = 46, size
    inner = W - m - 12

    def X(v):
        return m + (v - lo) / (hi - lo) * inner

    def Y(v):
        return 12 + inner - (v - lo) / (hi - lo) * inner
    o = [f'<svg role=img aria-label="PET against AET: {e(PATH_LABEL[path])}" width="{W}" '
         f'height="{W + 14}" viewBox="0 0 {W} {W + 14}" class=scatter>']
    o.append(f'<text x="{m}" y="10" font-weight="bold">{e(PATH_LABEL[path])}</text>')
    for t in nice_ticks(lo, hi):
        o.append(f'<line x1="{X(t):.1f}" y1="12" x2="{X(t):.1f}" y2="{12 + inner}" stroke="#eee"/>'
                 f'<line x1="{m}" y1="{Y(t):.1f}" x2="{m + inner}" y2="{Y(t):.1f}" stroke="#eee"/>'
                 f'<text x="{X(t):.1f}" y="{24 + inner}" text-anchor="middle">{t:g}</text>'
                 f'<text x="{m - 4}" y="{Y(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    o.append(f'<rect x="{m}" y="12" width="{inner}" height="{inner}" fill="none" stroke="#999"/>')
    for f, dash in ((1.0, ""), (1.1, ' stroke-dasharray="4 3"'), (0.9, ' stroke-dasharray="4 3"')):
        # y = f x, clipped to the box
        x0, x1 = lo, hi
        y0, y1 = f * x0, f * x1
        if y1 > hi:
            x1, y1 = hi / f, hi
        if y0 < lo:
            x0, y0 = lo / f, lo
        o.append(f'<line class="{"diag" if f == 1.0 else "band"}" x1="{X(x0):.1f}" y1="{Y(y0):.1f}" '
                 f'x2="{X(x1):.1f}" y2="{Y(y1):.1f}" stroke="{"#555" if f == 1.0 else "#bbb"}"{dash}/>')
    for r in rs:
        x, c = X(r["aet_median"]), tcolour.get(r["target"], "#333")
        ylo = Y(r["aet_median"] * (1 + r["pete_ci_low"] / 100))
        yhi = Y(r["aet_median"] * (1 + r["pete_ci_high"] / 100))
        tip = (f"{r['app']} on {r['target']}: AET {r['aet_median']:.3f} s, PET "
               f"{r['pet_median']:.3f} s, PETE {r['pete']:+.1f} % [{r['pete_ci_low']:+.1f}, "
               f"{r['pete_ci_high']:+.1f}]")
        o.append(f'<g class=pt><title>{e(tip)}</title>'
                 f'<line class=err x1="{x:.1f}" y1="{ylo:.1f}" x2="{x:.1f}" y2="{yhi:.1f}" stroke="{c}"/>'
                 f'<line x1="{x - 3:.1f}" y1="{ylo:.1f}" x2="{x + 3:.1f}" y2="{ylo:.1f}" stroke="{c}"/>'
                 f'<line x1="{x - 3:.1f}" y1="{yhi:.1f}" x2="{x + 3:.1f}" y2="{yhi:.1f}" stroke="{c}"/>'
                 f'<circle cx="{x:.1f}" cy="{Y(r["pet_median"]):.1f}" r="3.5" fill="{c}"/></g>')
    o.append(f'<text x="{m + inner / 2:.0f}" y="{W + 12}" text-anchor="middle">AET s (median)</text>')
    o.append(f'<text x="10" y="{12 + inner / 2:.0f}" transform="rotate(-90 10 {12 + inner / 2:.0f})" '
             f'text-anchor="middle">PET s (median)</text>')
    o.append("</svg>")
    return "\n".join(o)


def heat_colour(p):
    """Diverging: blue under, red over, white at 0, full at 30 %."""
    a = min(abs(p) / 30.0, 1.0)
    base = (214, 96, 77) if p > 0 else (67, 147, 195)
    rgb = [round(255 + (c - 255) * a) for c in base]
    return "#%02x%02x%02x" % tuple(rgb)


def heatmap(rows, torder):
    apps = ordered(r["app"] for r in rows)
    keyed = {(r["app"], r["target"], r["path"]): r for r in rows}
    paths = [p for p in PATHS if any(r["path"] == p for r in rows)]
    o = ["<table class=heat><tr><th class=l rowspan=2>app</th>"]
    o += [f"<th colspan={len(torder)}>{e(PATH_LABEL[p])}</th>" for p in paths]
    o.append("</tr><tr>" + "".join(f"<th>{e(t)}</th>" for _ in paths for t in torder) + "</tr>")
    for app in apps:
        o.append(f"<tr><td class=l>{e(app)}</td>")
        for p in paths:
            for t in torder:
                r = keyed.get((app, t, p))
                if not r:
                    o.append("<td></td>")
                elif r["pete"] is None:
                    o.append("<td class=hm title=\"failed\">fail</td>")
                else:
                    cls = "hm out" if outside(r, 10.0) else "hm"
                    tip = (f"{app} on {t}, {PATH_LABEL[p]}: PETE {r['pete']:+.2f} %, 90 % interval "
                           f"[{r['pete_ci_low']:+.2f}, {r['pete_ci_high']:+.2f}]")
                    o.append(f'<td class="{cls}" style="background:{heat_colour(r["pete"])}" '
                             f'title="{e(tip)}">{r["pete"]:+.1f}</td>')
        o.append("</tr>")
    o.append("</table>")
    return "\n".join(o)


def write_html(rows, rounds, info, targets, dirpath, path, resamples, seed):
    torder = [t["target"] for t in targets] or ordered(r["target"] for r in rows)
    torder = [t for t in torder if any(r["target"] == t for r in rows)]
    tcolour = {t: PALETTE[i % len(PALETTE)] for i, t in enumerate(torder)}
    apps = ordered(r["app"] for r in rows)
    o = ["<!DOCTYPE html>", "<html lang=en>", "<head>", "<meta charset=utf-8>",
         '<meta name=viewport content="width=device-width">',
         "<title>pas2p: PET vs AET on real, different targets</title>",
         f"<style>{STYLE}</style>", "</head>", "<body>",
         "<h1>pas2p: PET vs AET on real, different targets</h1>",
         f"<p class=note>{e(info.get('date', '?'))}, commit <code>{e(info.get('commit', '?'))}</code>, "
         f"on {e(info.get('host', '?'))}.  Command: <code>{e(info.get('command', '?'))}</code> "
         f"({e(info.get('rounds', '?'))} rounds, np {e(info.get('np', '?'))}, "
         f"{e(info.get('size', '?'))} size).</p>"]
    o.append("<nav>" + "".join(f'<a href="#{a}">{t}</a>' for a, t in
                               (("table", "table"), ("pet-aet", "PET vs AET"),
                                ("heat", "PETE per app and target"), ("phases", "phases")))
             + "</nav>")
    o.append("<table><tr><th class=l>target</th><th>nodes</th><th>links</th><th>CPU per node</th>"
             "<th class=l>what</th></tr>")
    for t in targets:
        o.append(f"<tr><td class=l><span style=\"color:{tcolour.get(t['target'], '#333')}\">&#9679;"
                 f"</span> {e(t['target'])}</td><td>{e(t['nodes'] or '-')}</td><td>"
                 f"{e(t['bandwidth'] or '-')}</td><td>{e(t['cpu'] or '-')}</td><td class=l>"
                 f"{e(t['description'])}</td></tr>")
    o.append("</table>")
    o.append(f"<p class=note>PETE = (median PET &minus; median AET) / median AET over the rounds; "
             f"in brackets its bootstrap 90 % interval ({resamples} resamples, AET and PET rounds "
             f"resampled independently, seed {seed}).  AET noise: the same interval with a second "
             "resample of the AET rounds in place of the PETs: what an unbiased prediction as noisy "
             "as one AET sample would show.</p>")
    # the summary against the targets
    o.append("<h2 id=summary>Per path, against issue 22's targets</h2>")
    o.append("<table><tr><th class=l>path</th><th>pairs</th><th>mean |PETE|</th><th>max |PETE|"
             "</th><th>mean signed</th><th>mean interval width</th><th>intervals outside "
             "&plusmn;10 %</th><th class=l>target</th></tr>")

    def f1(x, sign=False):
        return "&ndash;" if x is None else (f"{x:+.2f} %" if sign else f"{x:.2f} %")
    paired = [s for s in path_summary(rows, torder, "pete_paired") if s["pairs"]]
    for s, label in ([(s, "") for s in path_summary(rows, torder)] +
                     [(s, ", paired") for s in paired]):
        v = s["verdict"].replace("**", "")
        cls = " ok" if v.startswith("met") else (" no" if v.startswith("not") else "")
        o.append(f"<tr><td class=l>{e(PATH_LABEL[s['path']] + label)}</td><td>{s['pairs']}"
                 f"{' (' + str(s['failed']) + ' failed)' if s['failed'] else ''}</td>"
                 f"<td>{f1(s['mean_abs'])}</td><td>{f1(s['max_abs'])}</td>"
                 f"<td>{f1(s['mean_signed'], True)}</td><td>{f1(s.get('mean_width'))}</td>"
                 f"<td>{'&ndash;' if s['outside10'] is None else s['outside10']}</td>"
                 f"<td class=\"l{cls}\">{e(v)}</td></tr>")
    o.append("</table>")
    o.append("<p class=note>Paired: the median over the rounds of PET / AET &minus; 1, each "
             "prediction against the AET run of its own round (minutes apart; this VM's modes "
             "last minutes), with a bootstrap 90 % interval of the rounds.</p>")
    # the table
    o.append("<h2 id=table>Every application on every target</h2>")
    o.append("<p class=note>Each cell: PETE % and its 90 % interval, the median PET below "
             "(hover for the rounds' range).</p>")
    o.append("<table class=main><tr><th class=l>app</th><th class=l>target</th><th>AET s<br>"
             "(median)</th><th>AET noise<br>90 %</th>" + "".join(f"<th>{e(PATH_LABEL[p])}</th>"
                                                             for p in PATHS)
             + "<th>SET/AET<br>(predict)</th><th class=l>note</th></tr>")
    for app, args, t, v in table_rows(rows):
        a = v.get("aet")
        cells = [f"<td class=l>{e(app)}<br><span class=note>{e(args)}</span></td>",
                 f"<td class=l>{e(t)}</td>"]
        cells.append(f"<td title=\"min {a['aet_min']:.3f}, max {a['aet_max']:.3f}\">"
                     f"{a['aet_median']:.3f}</td>" if a and a["aet_median"] else "<td>fail</td>")
        cells.append(f"<td>[{a['pete_ci_low']:+.1f}, {a['pete_ci_high']:+.1f}]</td>"
                     if a and a["pete"] is not None else "<td>&ndash;</td>")
        for p in PATHS:
            r = v.get(p)
            if not r:
                cells.append("<td></td>")
            elif r["pete"] is None:  # no PET, or no AET to compare it with
                pet = "fail" if r["pet_median"] is None else f"{r['pet_median']:.3f} s"
                cells.append(f"<td>{pet}</td>")
            else:
                cells.append(f"<td style=\"background:{heat_colour(r['pete'])}\" title=\"PET min "
                             f"{r['pet_min']:.3f}, max {r['pet_max']:.3f} ({r['n_pet']} rounds)\">"
                             f"<b>{r['pete']:+.1f}</b> [{r['pete_ci_low']:+.1f}, "
                             f"{r['pete_ci_high']:+.1f}]<br><span class=note>{r['pet_median']:.3f} s"
                             "</span></td>")
        p = v.get("predict")
        cells.append(f"<td>{100 * p['set_median'] / p['aet_median']:.1f} %</td>"
                     if p and p["set_median"] and p["aet_median"] else "<td>&ndash;</td>")
        notes = "; ".join(f"{PATH_LABEL[x]}: {v[x]['note']}" for x in v if v[x]["note"])
        cells.append(f"<td class=\"l note\">{e(notes)}</td>")
        o.append("<tr>" + "".join(cells) + "</tr>")
    o.append("</table>")
    o.append("<p class=note>Every number, and each run's: <code>experiment.csv</code>, "
             "<code>experiment-rounds.csv</code> next to this page.</p>")
    # the pictures
    o.append("<h2 id=pet-aet>PET against AET, with the 90 % intervals</h2>")
    o.append("<p class=note>One point per application and target (colour: target); the bar is "
             "PETE's 90 % interval, drawn as median AET &times; (1 + interval); solid line PET = "
             "AET, dashed &plusmn;10 %.</p>")
    o.append("<p>" + " ".join(f"<span style=\"color:{c}\">&#9679;</span> {e(t)}"
                              for t, c in tcolour.items()) + "</p>")
    o.append("<div class=plots>" + "\n".join(scatter(rows, p, tcolour) for p in PATHS) + "</div>")
    o.append("<h2 id=heat>PETE per application and target</h2>")
    o.append("<p class=note>PETE in %; blue under, red over (full colour at 30 %); a framed cell's "
             "whole 90 % interval lies outside &plusmn;10 %.  Hover for the interval.</p>")
    o.append(heatmap(rows, torder))
    # the phases
    o.append("<h2 id=phases>Each application's phases</h2>")
    o.append("<p class=note>From each application's signature (traced on the base, np "
             f"{e(info.get('np', '?'))}): <code>pas2p report --fragment</code>.  The signatures are "
             "in <code>signatures/</code>; <code>pas2p report signatures/APP.sig.xml</code> makes "
             "the same as a page of its own.</p>")
    for app in apps:
        frag = os.path.join(dirpath, "phases", f"{app}.html")
        o.append(f"<div id=\"phases-{e(app)}\" class=app>")
        if os.path.exists(frag):
            with open(frag) as f:
                o.append(f.read())
        else:
            o.append(f"<h2>{e(app)}</h2><p class=note>No phases: the signature's report is "
                     "missing.</p>")
        o.append("</div>")
    o.append("<p class=note>Made by <code>validation/experiment_report.py</code>.</p>")
    o.append("</body>\n</html>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description="The statistics and pages of validation/experiment.sh.")
    ap.add_argument("dir", help="the experiment's output directory (experiment-rounds.csv ...)")
    ap.add_argument("--resamples", type=int, default=4000, help="bootstrap resamples (default 4000)")
    ap.add_argument("--seed", type=int, default=22, help="the generator's seed (default 22)")
    a = ap.parse_args(argv)
    if a.resamples < 100:
        raise SystemExit("experiment_report.py: --resamples must be at least 100")
    rp = os.path.join(a.dir, "experiment-rounds.csv")
    if not os.path.exists(rp):
        raise SystemExit(f"experiment_report.py: no {rp}")
    rounds = read_rounds(rp)
    info = read_info(os.path.join(a.dir, "experiment-info.txt"))
    targets = read_targets(os.path.join(a.dir, "experiment-targets.csv"))
    rows = summarize(rounds, a.resamples, a.seed)
    if not rows:
        raise SystemExit(f"experiment_report.py: {rp}: no AET or prediction runs")
    write_csv(rows, os.path.join(a.dir, "experiment.csv"))
    write_md(rows, rounds, info, targets, os.path.join(a.dir, "experiment.md"), a.resamples, a.seed)
    write_html(rows, rounds, info, targets, a.dir, os.path.join(a.dir, "index.html"),
               a.resamples, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
