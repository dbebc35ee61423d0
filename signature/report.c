/* The HTML report (pas2p_report.h): a signature and its predictions on one page, with
 * inline CSS and SVG only, so that it renders without a network or any other file. */
#include "pas2p_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pas2p_pet.h"
#include "pas2p_signature.h"
#include "pas2p_trace.h"

/* text into HTML (element content and attribute values) */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
}

/* a phase's colour: a fixed palette, then golden-angle hues */
static void colour(char *out, size_t n, uint32_t id)
{
    static const char *const pal[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
    if (id >= 1 && id <= 10)
        snprintf(out, n, "%s", pal[id - 1]);
    else
        snprintf(out, n, "hsl(%u,55%%,55%%)", (unsigned)((id * 137u) % 360u));
}

static const pas2p_sig_phase_t *phase_of(const pas2p_sig_rank_t *R, uint32_t id)
{
    for (uint32_t i = 0; i < R->nphases; i++)
        if (R->phases[i].id == id)
            return &R->phases[i];
    return NULL;
}

static uint32_t max_id(const pas2p_signature_t *s)
{
    uint32_t m = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        for (uint32_t i = 0; i < s->ranks[r].nphases; i++)
            if (s->ranks[r].phases[i].id > m)
                m = s->ranks[r].phases[i].id;
    return m;
}

/* the page's own look (a fragment leaves it to the page it goes into) */
static const char page_style[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;"
    "max-width:1100px;color:#222;padding:0 16px}"
    "h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px "
    "solid #ddd;padding-bottom:4px}";
/* what the sections need to render (the page's and a fragment's) */
static const char style[] =
    "code{background:#f4f4f4;padding:1px 4px;border-radius:3px}"
    "table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 9px;border-bottom:1px solid "
    "#eee;text-align:right;white-space:nowrap}th{background:#fafafa}td.l,th.l{text-align:left;"
    "white-space:normal;word-break:break-word}"
    "dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px}dt{color:#666}dd{margin:0}"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}"
    ".note{color:#666;font-size:13px}.bar{display:inline-block;height:9px;background:#4e79a7;"
    "vertical-align:middle}svg text{font:11px system-ui,sans-serif;fill:#333}";

static void summary(FILE *f, const pas2p_signature_t *s, const char *path)
{
    fputs("<dl>\n<dt>application</dt><dd><code>", f);
    esc(f, s->command);
    fputs("</code></dd>\n<dt>signature</dt><dd><code>", f);
    esc(f, path);
    fprintf(f, "</code></dd>\n<dt>processes</dt><dd>%u</dd>\n", s->np);
    fprintf(f, "<dt>AET (base)</dt><dd>%.6f s</dd>\n<dt>PET (base)</dt><dd>%.6f s</dd>\n",
            s->aet_s, s->pet_s);
    fprintf(f, "<dt>events</dt><dd>%" PRIu64 "</dd>\n", s->events);
    uint32_t nrel = 0;
    const pas2p_sig_rank_t *rep = NULL;
    for (uint32_t r = 0; r < s->nranks; r++)
        if (s->ranks[r].rank == s->representative)
            rep = &s->ranks[r];
    for (uint32_t i = 0; rep && i < rep->nphases; i++)
        nrel += (uint32_t)rep->phases[i].relevant;
    fprintf(f, "<dt>relevant phases</dt><dd>%u (representative rank %u)</dd>\n", nrel,
            s->representative);
    fprintf(f, "<dt>coverage</dt><dd>%.2f %% of AET in relevant phases; the rest (%.6f s) is "
            "kept as an explicit remainder</dd>\n", 100 * s->coverage, s->remainder_s);
    fprintf(f, "<dt>phases</dt><dd>%s</dd>\n",
            s->global ? "global: one table for all ranks, every occurrence communication-closed"
                      : "per rank");
    fprintf(f, "<dt>structure</dt><dd>%s</dd>\n",
            s->spmd ? "SPMD: every rank makes the same calls as often" : "ranks differ");
    fprintf(f, "<dt>thresholds</dt><dd>relevance %.3g, compute similarity %.3g (time %.3g), size "
            "tolerance %.3g</dd>\n</dl>\n", s->relevance, s->compute_similarity,
            s->compute_similarity_time, s->size_tolerance);
}

static void phase_table(FILE *f, const pas2p_signature_t *s, int h)
{
    uint32_t maxid = max_id(s);
    fprintf(f, "<h%d>Phases</h%d>\n", h, h);
    fputs("<p class=note>PhaseET: one occurrence on the slowest rank; share: "
          "each rank's W &times; PhaseET over the slowest rank's.</p>\n<table>\n<tr><th>phase</th>"
          "<th>weight</th><th>PhaseET s</th><th>W &times; PhaseET s</th><th>% AET</th>"
          "<th>relevant</th><th class=l>calls (representative rank)</th><th class=l>share per "
          "rank</th></tr>\n", f);
    for (uint32_t id = 1; id <= maxid; id++) {
        uint64_t w = 0;
        double worst = 0;
        int rel = 0, seen = 0;
        const pas2p_sig_phase_t *show = NULL;
        for (uint32_t r = 0; r < s->nranks; r++) {
            const pas2p_sig_phase_t *p = phase_of(&s->ranks[r], id);
            if (!p)
                continue;
            seen = 1;
            w = p->weight;
            rel |= p->relevant;
            if (p->time_mean_s > worst)
                worst = p->time_mean_s;
            if (!show || s->ranks[r].rank == s->representative)
                show = p;
        }
        if (!seen)
            continue;
        char c[32];
        colour(c, sizeof c, id);
        double wt = (double)w * worst;
        fprintf(f, "<tr><td><span class=sw style=\"background:%s\"></span>%u</td><td>%" PRIu64
                "</td><td>%.6f</td><td>%.6f</td><td>%.2f</td><td>%s</td><td class=l>", c, id, w,
                worst, wt, s->aet_s > 0 ? 100 * wt / s->aet_s : 0, rel ? "yes" : "");
        for (uint32_t k = 0; show && k < show->nevents && k < 6; k++) {
            const char *n = pas2p_call_name(show->events[k].call);
            esc(f, n && !strncmp(n, "MPI_", 4) ? n + 4 : n);
            fputc(' ', f);
        }
        if (show && show->nevents > 6)
            fprintf(f, "&hellip; (%u calls)", show->nevents);
        fputs("</td><td class=l>", f);
        for (uint32_t r = 0; r < s->nranks && r < 64; r++) {
            const pas2p_sig_phase_t *p = phase_of(&s->ranks[r], id);
            double share = p && worst > 0 ? p->time_mean_s / worst : 0;
            fprintf(f, "<span class=bar title=\"rank %u: %.0f%%\" style=\"width:%.1fpx;"
                    "margin-right:2px;opacity:%.2f\"></span>", s->ranks[r].rank, 100 * share,
                    4 + 20 * share, p ? 1.0 : 0.15);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* one horizontal bar per rank: its time split by phase (W x PhaseET), in phase order */
static void time_bars(FILE *f, const pas2p_signature_t *s, int h)
{
    const double W = 900, left = 70, bh = 16, gap = 6;
    double longest = 0;
    for (uint32_t r = 0; r < s->nranks; r++)
        if (s->ranks[r].elapsed_s > longest)
            longest = s->ranks[r].elapsed_s;
    if (!(longest > 0))
        return;
    double H = 30 + s->nranks * (bh + gap);
    fprintf(f, "<h%d>Where each rank's time goes</h%d>\n<svg role=img aria-label=\"time per rank "
            "and phase\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n", h, h,
            W + left + 20, H, W + left + 20, H);
    for (uint32_t r = 0; r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        double y = 10 + r * (bh + gap), x = left;
        fprintf(f, "<text x=\"4\" y=\"%.1f\">rank %u</text>\n", y + bh - 4, R->rank);
        for (uint32_t i = 0; i < R->nphases; i++) {
            const pas2p_sig_phase_t *p = &R->phases[i];
            double w = W * (double)p->weight * p->time_mean_s / longest;
            if (!(w > 0))
                continue;
            char c[32];
            colour(c, sizeof c, p->id);
            fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
                    "<title>rank %u, phase %u: %" PRIu64 " x %.6f s = %.6f s</title></rect>\n", x, y,
                    w, bh, c, R->rank, p->id, p->weight, p->time_mean_s,
                    (double)p->weight * p->time_mean_s);
            x += w;
        }
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">0</text><text x=\"%.0f\" y=\"%.0f\" "
            "text-anchor=\"end\">%.3f s</text>\n</svg>\n", left, H - 4, left + W, H - 4, longest);
}

typedef struct {
    uint64_t start, end;
    uint32_t id;
    double t;
} occ_t;

static int cmp_occ(const void *a, const void *b)
{
    const occ_t *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* the run's first occurrences, per rank, in order and to scale: as far as the signature
 * locates every occurrence (it keeps the first 32 of each phase) */
static void timeline(FILE *f, const pas2p_signature_t *s, int h)
{
    const double W = 900, left = 70, bh = 16, gap = 6;
    occ_t **per = calloc(s->nranks ? s->nranks : 1, sizeof *per);
    size_t *n = calloc(s->nranks ? s->nranks : 1, sizeof *n);
    double longest = 0;
    int timed = 0; /* the signature records occurrence times (a pas2p of 2026-11 or later) */
    for (uint32_t r = 0; r < s->nranks && !timed; r++)
        for (uint32_t i = 0; i < s->ranks[r].nphases && !timed; i++)
            for (uint32_t j = 0; j < s->ranks[r].phases[i].nocc && !timed; j++)
                timed = s->ranks[r].phases[i].occ_time_s[j] > 0;
    for (uint32_t r = 0; per && n && r < s->nranks; r++) {
        const pas2p_sig_rank_t *R = &s->ranks[r];
        size_t tot = 0;
        for (uint32_t i = 0; i < R->nphases; i++)
            tot += R->phases[i].nocc;
        per[r] = calloc(tot ? tot : 1, sizeof **per);
        if (!per[r])
            continue;
        for (uint32_t i = 0; i < R->nphases; i++)
            for (uint32_t j = 0; j < R->phases[i].nocc; j++)
                per[r][n[r]++] = (occ_t){R->phases[i].occ_start[j], R->phases[i].occ_end[j],
                                         R->phases[i].id, R->phases[i].occ_time_s[j]};
        qsort(per[r], n[r], sizeof **per, cmp_occ);
        /* keep the prefix in which every event is in a located occurrence with a time (a
         * time of 0 is a time when the signature records others: MPI_Init alone as its
         * first phase takes none, and the whole timeline was said to be missing) */
        size_t k = 0;
        double t = 0;
        while (k < n[r] && per[r][k].start == (k ? per[r][k - 1].end : per[r][0].start) &&
               (per[r][k].t > 0 || (timed && per[r][k].t == 0)))
            t += per[r][k++].t;
        n[r] = k;
        if (t > longest)
            longest = t;
    }
    fprintf(f, "<h%d>Timeline of the first phase occurrences</h%d>\n", h, h);
    if (!(longest > 0))
        fputs("<p class=note>The signature records no occurrence times (it was written by an "
              "older pas2p, or by hand): no timeline.</p>\n", f);
    if (longest > 0) {
        double H = 30 + s->nranks * (bh + gap);
        fprintf(f, "<p class=note>Each rank's "
                "run from <code>MPI_Init</code>, one box per occurrence of a phase, to scale, as "
                "far as the signature locates every occurrence (the first 32 of each phase are "
                "kept).</p>\n<svg role=img aria-label=\"timeline\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\">\n", W + left + 20, H, W + left + 20, H);
        for (uint32_t r = 0; r < s->nranks; r++) {
            double y = 10 + r * (bh + gap), x = left;
            fprintf(f, "<text x=\"4\" y=\"%.1f\">rank %u</text>\n", y + bh - 4, s->ranks[r].rank);
            for (size_t k = 0; per[r] && k < n[r]; k++) {
                double w = W * per[r][k].t / longest;
                char c[32];
                colour(c, sizeof c, per[r][k].id);
                fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" "
                        "stroke=\"#fff\" stroke-width=\"0.3\"><title>rank %u, phase %u, events %"
                        PRIu64 "-%" PRIu64 ": %.6f s</title></rect>\n", x, y, w > 0.2 ? w : 0.2, bh,
                        c, s->ranks[r].rank, per[r][k].id, per[r][k].start, per[r][k].end - 1,
                        per[r][k].t);
                x += w;
            }
        }
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">0</text><text x=\"%.0f\" y=\"%.0f\" "
                "text-anchor=\"end\">%.4f s</text>\n</svg>\n", left, H - 4, left + W, H - 4, longest);
    }
    for (uint32_t r = 0; per && r < s->nranks; r++)
        free(per[r]);
    free(per);
    free(n);
}

static void predictions(FILE *f, const pas2p_prediction_t *p, size_t np, const char *const *paths,
                        int h)
{
    if (!np)
        return;
    double top = 0;
    for (size_t i = 0; i < np; i++) {
        if (p[i].pet.pet_s > top)
            top = p[i].pet.pet_s;
        if (p[i].pet.aet_s > top)
            top = p[i].pet.aet_s;
    }
    fprintf(f, "<h%d>Predictions</h%d>\n", h, h);
    fputs("<table>\n<tr><th class=l>file</th><th class=l>method</th>"
          "<th class=l>target</th><th>PET s</th><th>SET s</th><th>AET s</th><th>PETE</th>"
          "<th class=l>stop</th></tr>\n", f);
    for (size_t i = 0; i < np; i++) {
        fputs("<tr><td class=l><code>", f);
        esc(f, paths[i]);
        fputs("</code></td><td class=l>", f);
        esc(f, p[i].method);
        fputs("</td><td class=l><code>", f);
        esc(f, p[i].target);
        fprintf(f, "</code></td><td>%.6f</td><td>%.6f</td>", p[i].pet.pet_s, p[i].pet.set_s);
        if (p[i].pet.aet_s > 0)
            fprintf(f, "<td>%.6f</td><td>%+.2f %%</td>", p[i].pet.aet_s, 100 * p[i].pet.pete);
        else
            fputs("<td>&ndash;</td><td>&ndash;</td>", f);
        fputs("<td class=l>", f);
        esc(f, p[i].stop);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    if (top > 0) { /* PET (and AET when known) side by side, one pair per prediction */
        const double left = 160, W = 700, bh = 12;
        double H = 20 + np * (2 * bh + 14);
        fprintf(f, "<svg role=img aria-label=\"PET against AET\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\">\n", left + W + 120, H, left + W + 120, H);
        for (size_t i = 0; i < np; i++) {
            double y = 8 + i * (2 * bh + 14);
            fprintf(f, "<text x=\"4\" y=\"%.1f\">%zu: ", y + bh, i + 1);
            esc(f, p[i].method);
            fputs("</text>\n", f);
            fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"#4e79a7\">"
                    "<title>PET %.6f s</title></rect><text x=\"%.2f\" y=\"%.1f\">PET %.3f s</text>\n",
                    left, y, W * p[i].pet.pet_s / top, bh, p[i].pet.pet_s,
                    left + W * p[i].pet.pet_s / top + 4, y + bh - 2, p[i].pet.pet_s);
            if (p[i].pet.aet_s > 0)
                fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" "
                        "fill=\"#f28e2b\"><title>AET %.6f s</title></rect><text x=\"%.2f\" "
                        "y=\"%.1f\">AET %.3f s</text>\n", left, y + bh + 1,
                        W * p[i].pet.aet_s / top, bh, p[i].pet.aet_s,
                        left + W * p[i].pet.aet_s / top + 4, y + 2 * bh - 1, p[i].pet.aet_s);
        }
        fputs("</svg>\n", f);
    }
    for (size_t i = 0; i < np; i++) {
        const pas2p_pet_t *t = &p[i].pet;
        fprintf(f, "<h%d>%zu: ", h + 1, i + 1);
        esc(f, p[i].method);
        fprintf(f, " &mdash; rank %u, target/base ratio %.4f</h%d>\n<table>\n<tr><th>phase</th>"
                "<th>weight</th><th>base s</th><th>target s</th><th>ratio</th><th>W &times; "
                "target s</th><th class=l></th></tr>\n", t->rank, t->ratio, h + 1);
        for (uint32_t k = 0; k < t->nphases; k++) {
            const pas2p_pet_phase_t *q = &t->phases[k];
            fprintf(f, "<tr><td>%u</td><td>%" PRIu64 "</td><td>%.6f</td><td>%.6f</td><td>%.4f"
                    "</td><td>%.6f</td><td class=l>%s</td></tr>\n", q->id, q->weight, q->base_s,
                    q->target_s, q->ratio, q->contribution_s,
                    q->estimated ? "not measured: base &times; ratio" : "");
        }
        fprintf(f, "<tr><td>rest</td><td></td><td>%.6f</td><td>%.6f</td><td></td><td>%.6f</td>"
                "<td class=l>non-relevant phases</td></tr>\n</table>\n", t->remainder_base_s,
                t->remainder_s, t->remainder_s);
        if (p[i].note[0]) {
            fputs("<p class=note>", f);
            esc(f, p[i].note);
            fputs("</p>\n", f);
        }
    }
}

int pas2p_report_write(const pas2p_report_opts_t *o, char *err, size_t errlen)
{
    pas2p_signature_t s;
    if (pas2p_signature_read(o->signature, &s, err, errlen))
        return -2;
    pas2p_prediction_t *p = calloc(o->npredictions ? o->npredictions : 1, sizeof *p);
    size_t np = 0;
    int rc = 0;
    if (!p) {
        snprintf(err, errlen, "out of memory");
        pas2p_signature_free(&s);
        return -1;
    }
    for (; np < o->npredictions; np++)
        if (pas2p_prediction_read(o->predictions[np], &p[np], err, errlen)) {
            rc = -2;
            goto out;
        }
    FILE *f = fopen(o->out, "w");
    if (!f) {
        snprintf(err, errlen, "%.1500s: %s", o->out, strerror(errno));
        rc = -1;
        goto out;
    }
    int h = 2; /* the sections' heading level */
    if (o->fragment) {
        h = 3;
        fprintf(f, "<section class=pas2p-report>\n<style>%s</style>\n", style);
        if (o->title) {
            fputs("<h2>", f);
            esc(f, o->title);
            fputs("</h2>\n", f);
        }
    } else {
        fputs("<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n<meta name=viewport "
              "content=\"width=device-width\">\n<title>pas2p report: ", f);
        esc(f, o->title ? o->title : s.command);
        fprintf(f, "</title>\n<style>%s%s</style>\n</head>\n<body>\n<h1>pas2p report</h1>\n"
                "<p class=note>Signature-based performance prediction: PET = &Sigma; PhaseET<sub>i"
                "</sub> &times; W<sub>i</sub> over the relevant phases, plus the remainder.</p>\n",
                page_style, style);
    }
    summary(f, &s, o->signature);
    phase_table(f, &s, h);
    time_bars(f, &s, h);
    timeline(f, &s, h);
    predictions(f, p, np, o->predictions, h);
    fputs(o->fragment ? "</section>\n"
                      : "<p class=note>Made by <code>pas2p report</code>.</p>\n</body>\n</html>\n",
          f);
    if (ferror(f) | fclose(f)) {
        snprintf(err, errlen, "%.1500s: cannot write: %s", o->out, strerror(errno));
        rc = -1;
    }
out:
    for (size_t i = 0; i < np; i++)
        pas2p_prediction_free(&p[i]);
    free(p);
    pas2p_signature_free(&s);
    return rc;
}
