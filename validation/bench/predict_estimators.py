#!/usr/bin/env python3
"""Reads the runs predict_estimators.sh left in DIR (DIR/APP/s*.xml signatures, p*/ predict
runs with their rank times, aet) and prints each estimator's PETE as a Markdown table.

A phase's target PhaseET, from its timed values t_1..t_n (occurrences 2..n+1; or the only
occurrence of a weight-1 phase) and its base statistics (mean B, median Bm, standard
deviation, and the first 8 occurrences' times b_0..b_7):

  median         median(t): what pas2p predict does
  like-for-like  B x median(t_i / b_i): each occurrence against the same one on the base
  2-SE switch    like-for-like when the base's b_1..b_n are off B (without b_0) by more
                 than 2 standard errors, else median(t): what pas2p predict did before
  median-scaled  B x median(t) / Bm: the target's median against the base's median
  early-scaled   B x median(t) / median(b_1..b_31): the target's median against the base's
                 median over the same stretch of the run (its first recorded occurrences)
  family         B x median(T) / median(Bf): a phase's family is the relevant phases with
                 its skeleton (calls, peers, tags, communicators, sizes within 10 %: time
                 variants, which the base run's noise may have split); T pools the timed
                 values of every member (the `variant` lines of the minor ones too) and Bf
                 the base times of the same occurrences; every member gets its B x that ratio
  family-sum     the same with sum(T) / sum(Bf)
  guard X        pas2p predict's drift guard at threshold X (PAS2P_PET_DRIFT, 1.12): early-
                 scaled when B >= X x median(b_1..b_31), else median(t)
  both X         the same when either is X times the other (early occurrences slower than
                 the run's mean too: NetPIPE's first occurrences of a 0.4 us phase, 3.2 us)
  window X       the guard both ways on the base's occurrences the target timed: B x
                 median(t) / median(b_1..b_n) when B >= X x that median or it >= X x B, else
                 median(t) (predict compares with b_1..b_n, the same stretch of the run)
  drift X        the base's own drift over the occurrences the target timed: B x median(t) /
                 median(b_1..b_n) when its whole-run median Bm is X times that window's
                 median or more, or that median X times Bm or more (a median, so that the
                 stalls of a noisy base, which move its mean, do not read as a drift), else
                 median(t)
  drift15 X      the drift judged by Bm against median(b_1..b_15), either way, then
                 B x median(t) / median(b_1..b_n): tried in predict (commits fafdbf5,
                 0ecee50), reverted after experiment runs O and P (results/predict.md)
  drift15se X K  the same, and only when Bm and median(b_1..b_15) differ by K standard
                 errors of that median (from the window's median absolute deviation)
  trend switch   like-for-like when the base's own recorded occurrences (b_1..b_31) drift:
                 their Spearman rank correlation with their position is >= 0.6 over >= 8
                 of them (a step that gets slower as the run goes on: md, LAMMPS), else
                 median(t)
  paired-local H each value over the median of the base's occurrences within H of its own
  traces median  like-for-like against the application's traces pooled (what analysing
                 `pas2p trace --runs N` could record): B and each b_i the median over the
                 traces' same phase (same id, weight and recorded occurrences in all of
                 them; else like-for-like)
  traces mean    the same with means

The PET is the run's own (prediction.xml) scaled by the measured relevant phases' sum
under the estimator against that sum as predict computed it (its per-phase table), so the
remainder and the estimated phases scale along.
"""
import glob
import os
import re
import statistics
import sys


def signature(path):
    text = open(path).read()
    ranks = {}
    for m in re.finditer(r'<rank id="(\d+)"(.*?)</rank>', text, re.S):
        phases = {}
        for p in re.finditer(r'<phase id="(\d+)" weight="(\d+)" relevant="(\w+)"([^>]*)>(.*?)</phase>',
                             m.group(2), re.S):
            a = dict(re.findall(r'(\w+)="([^"]*)"', p.group(4)))
            ev = []
            # (a <repeat count="N"> body is N copies of its events: signature/FORMAT.md)
            for r in re.finditer(r'<repeat count="(\d+)">(.*?)</repeat>|(<event [^>]*/>)', p.group(5), re.S):
                body = []
                for e in re.finditer(r'<event ([^>]*)/>', r.group(2) or r.group(3)):
                    x = dict(re.findall(r'(\w+)="([^"]*)"', e.group(1)))
                    body.append((tuple(x.get(k) for k in ('call', 'peer', 'tag', 'peer2', 'tag2', 'comm')),
                                 float(x.get('bytes', 0)) + float(x.get('rbytes', 0))))
                ev += body * int(r.group(1) or 1)
            phases[int(p.group(1))] = dict(
                w=int(p.group(2)), rel=p.group(3) == 'yes', B=float(a['time_mean_s']),
                Bm=float(a['time_median_s']), sd=float(a['time_sd_s']), ev=ev,
                occ=[float(x) for x in re.findall(r'time_s="([\d.eE+-]+)"', p.group(5))])
        ranks[int(m.group(1))] = phases
    return ranks


def spearman(v):
    """rank correlation of the values with their position (ties: average ranks)"""
    n = len(v)
    order = sorted(range(n), key=lambda i: v[i])
    rank = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            rank[order[k]] = (i + j) / 2
        i = j + 1
    mx = (n - 1) / 2
    num = sum((k - mx) * (rank[k] - mx) for k in range(n))
    den = (sum((k - mx) ** 2 for k in range(n)) * sum((r - mx) ** 2 for r in rank)) ** .5
    return num / den if den > 0 else 0


def estimate(name, ph, t):
    med = statistics.median
    w, B, occ = ph['w'], ph['B'], ph['occ']
    n = len(t)
    b = occ[1:1 + n]
    if w == 1 or len(b) < n or name == 'median':
        return med(t)
    if name == 'median-scaled':
        return B * med(t) / ph['Bm']
    if name == 'early-scaled':
        return B * med(t) / med(occ[1:]) if len(occ) > 1 and med(occ[1:]) > 0 else med(t)
    if name.startswith('guard '):  # predict's drift guard at that threshold (pas2p_pet.h)
        early = med(occ[1:]) if len(occ) > 1 else 0
        return B * med(t) / early if early > 0 and B >= float(name[6:]) * early else med(t)
    if name.startswith('both '):  # the guard both ways: early occurrences slower than B too
        early = med(occ[1:]) if len(occ) > 1 else 0
        x = float(name[5:])
        return B * med(t) / early if early > 0 and (B >= x * early or early >= x * B) else med(t)
    if name.startswith('window '):  # the guard on the timed occurrences' own window of the base
        x, early = float(name[7:]), med(b)
        return B * med(t) / early if early > 0 and (B >= x * early or early >= x * B) else med(t)
    if name.startswith('drift '):  # the base's drift over the timed window, by its median
        x, early = float(name[6:]), med(b)
        Bm = ph['Bm']
        return B * med(t) / early if early > 0 and (Bm >= x * early or early >= x * Bm) else med(t)
    if name.startswith('drift15'):  # drift15 X: the drift judged over b_1..b_15; drift15se X K:
        f = name.split()           # and by K standard errors of that window's median or more
        x, k, w = float(f[1]), float(f[2]) if len(f) > 2 else 0, occ[1:16]
        if len(w) >= 3 and med(b) > 0:
            e, Bm = med(w), ph['Bm']
            se = 1.4826 * med([abs(v - e) for v in w]) * 1.2533 / len(w) ** .5
            if (Bm >= x * e or e >= x * Bm) and abs(Bm - e) >= k * se:
                return B * med(t) / med(b)
        return med(t)
    if name in ('matched median', 'matched mean'):
        return (ph['Bm'] if name == 'matched median' else B) * med(t) / med(b)
    if name == 'trend matched':
        base = occ[1:]
        return ph['Bm'] * med(t) / med(b) if len(base) >= 8 and spearman(base) >= 0.6 else med(t)
    lfl = B * med([x / y for x, y in zip(t, b)])
    if name == 'like-for-like':
        return lfl
    if name.startswith('paired-local '):  # each value over the median of the base's occurrences
        h = int(name.split()[1])           # within h of the same one (occurrence 0 left out)
        r = []
        for i, x in enumerate(t):
            j = 1 + i
            win = occ[max(1, j - h):j + h + 1]
            r.append(x / med(win))
        return B * med(r)
    if name.startswith('traces '):  # paired against the base runs pooled (ph['pool']: every
        pool = ph.get('pool')        # trace's phase of this id): per occurrence, B likewise
        if not pool:
            return lfl
        f = med if name == 'traces median' else statistics.fmean
        Bp = f([q['B'] for q in pool])
        bp = [f([q['occ'][1 + i] for q in pool]) for i in range(n)]
        return Bp * med([x / y for x, y in zip(t, bp)])
    if name == 'trend switch':
        base = occ[1:]
        return lfl if len(base) >= 8 and spearman(base) >= 0.6 else med(t)
    mean, sd = B, ph['sd']  # 2-SE switch, the base statistics without occurrence 0
    if w > 2 and occ[0] > 0:
        x0 = occ[0]
        m1 = (w * mean - x0) / (w - 1)
        v1 = (w * (sd * sd + mean * mean) - x0 * x0) / (w - 1) - m1 * m1
        mean, sd = m1, (v1 ** .5 if v1 > 0 else 0)
    return med(t) if abs(sum(b) / n - mean) <= 2 * sd / n ** .5 else lfl


def rank_times(d, r, key='phase'):
    out = {}
    for line in open(os.path.join(d, 'rank-%05d.times' % r)):
        if line.startswith(key + ' '):
            f = line.split()
            out[int(f[1])] = [float(x) for x in f[2:]]
    return out


def same_skeleton(a, b, tol=0.1):
    if len(a['ev']) != len(b['ev']):
        return False
    for (ka, xa), (kb, xb) in zip(a['ev'], b['ev']):
        if ka != kb or abs(xa - xb) > tol * max(xa, xb):
            return False
    return True


def family_ratios(phases, values, how):
    """{phase id: target/base ratio of its family} from the pooled paired occurrences"""
    rel = {k: ph for k, ph in phases.items() if ph['rel']}
    fam, out = {}, {}
    for k in sorted(rel):
        fam[k] = next((q for q in sorted(fam) if fam[q] == q and same_skeleton(rel[k], rel[q])), k)
    for head in set(fam.values()):
        t, b = [], []
        for k in (q for q in fam if fam[q] == head):
            occ = rel[k]['occ']
            first = 0 if rel[k]['w'] == 1 else 1
            for i, x in enumerate(values.get(k, [])):
                j = first + i
                if j < len(occ) and occ[j] > 0:
                    t.append(x)
                    b.append(occ[j])
        if t:
            r = (statistics.median(t) / statistics.median(b) if how == 'family'
                 else sum(t) / sum(b))
            for k in (q for q in fam if fam[q] == head):
                out[k] = r
    return out


WINDOWS = (3, 7, 15)  # the first n timed values of each phase


def main(root):
    names = ('median', 'like-for-like', '2-SE switch', 'median-scaled', 'early-scaled', 'trend switch',
             'matched mean', 'matched median', 'trend matched', 'guard 1.12', 'guard 1.05', 'guard 1.03', 'both 1.12',
             'window 1.12', 'window 1.05', 'drift 1.05', 'drift 1.08', 'drift 1.12',
             'drift15 1.05', 'drift15 1.08', 'drift15 1.10', 'drift15 1.12',
             'drift15se 1.05 3', 'drift15se 1.05 4', 'drift15se 1.03 4',
             'paired-local 1', 'paired-local 2', 'paired-local 3', 'paired-local 5',
             'traces median', 'traces mean')
    shown = names + ('family', 'family-sum')
    apps = sorted(a for a in os.listdir(root) if os.path.isfile(os.path.join(root, a, 'aet')))
    pete = {}
    for app in apps:
        d = os.path.join(root, app)
        aet = statistics.median(float(x) for x in open(os.path.join(d, 'aet')))
        sigs = {os.path.basename(f)[1:-4]: signature(f) for f in glob.glob(os.path.join(d, 's[0-9]*.xml'))}
        for p in sorted(glob.glob(os.path.join(d, 'p[0-9]*/'))):
            sig = signature(os.path.join(d, 's%s.xml' % open(os.path.join(p, 'sig')).read().strip()))
            # the pool of the 'traces' estimators: the same phase (id, weight, occurrences
            # recorded) in every trace of this application, else none
            for r_, phs in sig.items():
                for k_, ph in phs.items():
                    same = [o[r_][k_] for o in sigs.values() if r_ in o and k_ in o[r_] and
                            o[r_][k_]['w'] == ph['w'] and len(o[r_][k_]['occ']) == len(ph['occ'])]
                    ph['pool'] = same if len(same) == len(sigs) else None
            x = open(os.path.join(p, 'prediction.xml')).read()
            r = int(re.search(r'<result rank="(\d+)"', x).group(1))
            pet = float(re.search(r'pet_s="([\d.eE+-]+)"', x).group(1))
            times = rank_times(p, r)
            rel = {k: ph for k, ph in sig[r].items() if ph['rel'] and k in times}
            done = sum(float(m.group(2)) * float(m.group(3)) for m in re.finditer(
                r'<phase id="(\d+)" weight="(\d+)" base_s="[^"]*" target_s="([^"]*)"[^>]*measured="yes"', x)
                if int(m.group(1)) in rel)
            for n in WINDOWS:
                if n > 3 and not any(len(times[k]) >= n for k in rel):
                    continue  # the runs did not time that many (--occurrences)
                for e in names:
                    s = sum(ph['w'] * estimate(e, ph, times[k][:n]) for k, ph in rel.items())
                    pete.setdefault((n, e, app), []).append((pet * s / done - aet) / aet * 100)
                # the family estimators: every relevant phase of a family with paired values,
                # against its contribution in prediction.xml (measured or estimated)
                contrib = {int(m.group(1)): float(m.group(2)) * float(m.group(3)) for m in re.finditer(
                    r'<phase id="(\d+)" weight="(\d+)" base_s="[^"]*" target_s="([^"]*)"', x)}
                vals = {k: v[:n] for k, v in times.items()}
                vals.update({k: v[:n] for k, v in rank_times(p, r, 'variant').items()})
                for e in ('family', 'family-sum'):
                    ratio = family_ratios(sig[r], vals, e)
                    ks = [k for k in ratio if k in contrib]
                    s = sum(sig[r][k]['w'] * sig[r][k]['B'] * ratio[k] for k in ks)
                    dn = sum(contrib[k] for k in ks)
                    if dn > 0:
                        pete.setdefault((n, e, app), []).append((pet * s / dn - aet) / aet * 100)
    print('| values | estimator | mean abs median PETE | ' + ' | '.join(apps) + ' |')
    print('|---|---|---|' + '---|' * len(apps))
    for n in WINDOWS:
        for e in shown:
            cells, meds = [], []
            for app in apps:
                v = pete.get((n, e, app), [])
                if v:
                    meds.append(abs(statistics.median(v)))
                    cells.append('%+.1f (%s)' % (statistics.median(v), ' '.join('%+.0f' % y for y in v)))
                else:
                    cells.append('-')
            if not meds:
                continue
            mean = '%.1f %%' % (sum(meds) / len(meds)) if meds else '-'
            print('| %d | %s | %s | %s |' % (n, e, mean, ' | '.join(cells)))
    print()
    print('Each cell: median PETE % over the runs (each run\'s PETE).  A run\'s PET under an')
    print('estimator: its predict PET x the measured relevant phases\' W x PhaseET sum under the')
    print('estimator / that sum in its prediction.xml.')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: predict_estimators.py DIR (written by predict_estimators.sh)')
    main(sys.argv[1])
