/* `pas2p report`: one self-contained HTML page for a signature and its predictions —
 * the phase table, where each rank's time goes, the timeline of the run's first phase
 * occurrences per rank (what ran where, how often), and PET against AET for every
 * prediction given.  No network resource: styles and pictures (inline SVG) are in the
 * page, so it opens anywhere and can be mailed.  Signature module (it reads the signature
 * and prediction files through their own readers). */
#ifndef PAS2P_REPORT_H
#define PAS2P_REPORT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *signature;         /* SIGNATURE.xml */
    const char *const *predictions; /* PREDICTION.xml files (may be 0 of them) */
    size_t npredictions;
    const char *out;               /* the HTML file to write */
    const char *title;             /* NULL: from the application's command (a fragment: none) */
    int fragment;                  /* 1: not a page but its sections, to go into another page's
                                    * body: one <section class=pas2p-report> that starts with the
                                    * <style> its parts need, the title (if any) as its <h2>, the
                                    * sections under <h3> headings */
} pas2p_report_opts_t;

/* Writes the page.  0; -2 when an input cannot be read (err names it: a bad input);
 * -1 when the page cannot be written (err names it). */
int pas2p_report_write(const pas2p_report_opts_t *o, char *err, size_t errlen);

int pas2p_cmd_report(int argc, char **argv); /* cmd_report.c */

#ifdef __cplusplus
}
#endif
#endif
