/* plot.c -- parprim-bench's --plot: one panel per backend, one horizontal pair of bars per row
 * (parprim, and its peer beside it), GB/s on a linear axis, the copy row's GB/s drawn as a
 * dashed vertical line (the ceiling); rows that failed verification are marked. Plain SVG 1.1
 * written by hand. */
#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pb_plot_group *pb_plot_add_group(pb_plot *p, const char *backend, const char *device, const char *peer)
{
    pb_plot_group *g = realloc(p->groups, (p->ngroups + 1) * sizeof *g);
    if (!g) return NULL;
    p->groups = g;
    g += p->ngroups++;
    memset(g, 0, sizeof *g);
    snprintf(g->title, sizeof g->title, "%s: %s", backend, device);
    snprintf(g->peer, sizeof g->peer, "%s", peer ? peer : "");
    g->first = p->nbars;
    return g;
}

void pb_plot_add_bar(pb_plot *p, const char *label, double gbs, double peer_gbs, int verified, int ceiling)
{
    if (!p->ngroups) return;
    if (p->nbars == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        pb_plot_bar *b = realloc(p->bars, cap * sizeof *b);
        if (!b) return;
        p->bars = b;
        p->cap = cap;
    }
    pb_plot_bar *b = &p->bars[p->nbars++];
    snprintf(b->label, sizeof b->label, "%s", label);
    b->gbs = gbs;
    b->peer_gbs = peer_gbs;
    b->verified = verified;
    pb_plot_group *g = &p->groups[p->ngroups - 1];
    g->count++;
    if (ceiling) g->ceiling = gbs;
}

/* A "nice" axis step: 1, 2 or 5 x 10^k, about max / 6. */
static double axis_step(double max)
{
    double raw = max / 6, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *style, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" %s>", x, y, anchor, style);
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
    }
    fputs("</text>\n", f);
}

int pb_plot_write(const pb_plot *p, const char *path, const char *title)
{
    enum { LABEL_W = 300, PLOT_W = 640, BAR_H = 9, ROW_H = 22, HEAD_H = 58, GAP = 30 };
    const char *pp_color = "#1f77b4", *peer_color = "#ff7f0e", *bad_color = "#d62728";
    double height = 40;
    for (size_t k = 0; k < p->ngroups; k++) height += HEAD_H + ROW_H * (double)p->groups[k].count + GAP;
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    const double width = LABEL_W + PLOT_W + 90;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
               "width=\"%.0f\" height=\"%.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">\n",
            width, height);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    text(f, 10, 22, "start", "font-size=\"15\" font-weight=\"bold\"", title);
    double y = 40;
    for (size_t k = 0; k < p->ngroups; k++) {
        const pb_plot_group *g = &p->groups[k];
        double max = g->ceiling;
        for (size_t i = g->first; i < g->first + g->count; i++) {
            if (p->bars[i].gbs > max) max = p->bars[i].gbs;
            if (p->bars[i].peer_gbs > max) max = p->bars[i].peer_gbs;
        }
        if (max <= 0) max = 1;
        const double step = axis_step(max), top = ceil(max / step) * step, x0 = LABEL_W, sx = PLOT_W / top;
        text(f, 10, y + 16, "start", "font-size=\"13\" font-weight=\"bold\"", g->title);
        /* legend */
        const double ly = y + 32;
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"%d\" fill=\"%s\"/>\n", LABEL_W, ly - 9, BAR_H, pp_color);
        text(f, LABEL_W + 16, ly, "start", "", "parprim");
        if (g->peer[0]) {
            fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"%d\" fill=\"%s\"/>\n", LABEL_W + 80, ly - 9, BAR_H,
                    peer_color);
            text(f, LABEL_W + 96, ly, "start", "", g->peer);
        }
        if (g->ceiling > 0) {
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\" stroke-dasharray=\"5,3\"/>\n",
                    LABEL_W + 170, ly - 4, LABEL_W + 200, ly - 4);
            text(f, LABEL_W + 206, ly, "start", "", "copy (ceiling)");
        }
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"%d\" fill=\"%s\"/>\n", LABEL_W + 310, ly - 9, BAR_H,
                bad_color);
        text(f, LABEL_W + 326, ly, "start", "", "not verified");
        const double top_y = y + HEAD_H - 10, bottom_y = top_y + ROW_H * (double)g->count;
        /* grid and axis labels */
        for (double v = 0; v <= top + step / 2; v += step) {
            char lab[32];
            snprintf(lab, sizeof lab, "%g", v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0 + v * sx, top_y,
                    x0 + v * sx, bottom_y);
            text(f, x0 + v * sx, bottom_y + 13, "middle", "fill=\"#444\"", lab);
        }
        text(f, x0 + PLOT_W / 2.0, bottom_y + 26, "middle", "fill=\"#444\"", "GB/s (fewest bytes moved / median time)");
        for (size_t i = 0; i < g->count; i++) {
            const pb_plot_bar *b = &p->bars[g->first + i];
            const double ry = top_y + ROW_H * (double)i + 2;
            text(f, x0 - 6, ry + BAR_H + 4, "end", "", b->label);
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", x0, ry, b->gbs * sx,
                    BAR_H, b->verified ? pp_color : bad_color);
            char v[32];
            snprintf(v, sizeof v, "%.1f", b->gbs);
            text(f, x0 + b->gbs * sx + 3, ry + BAR_H - 1, "start", "font-size=\"9\"", v);
            if (b->peer_gbs >= 0) {
                fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", x0, ry + BAR_H,
                        b->peer_gbs * sx, BAR_H, peer_color);
                snprintf(v, sizeof v, "%.1f", b->peer_gbs);
                text(f, x0 + b->peer_gbs * sx + 3, ry + 2 * BAR_H - 1, "start", "font-size=\"9\"", v);
            }
        }
        if (g->ceiling > 0)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-dasharray=\"5,3\"/>\n",
                    x0 + g->ceiling * sx, top_y - 4, x0 + g->ceiling * sx, bottom_y);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x0, top_y, x0, bottom_y);
        y = bottom_y + GAP + 10;
    }
    fprintf(f, "</svg>\n");
    return fclose(f) ? -1 : 0;
}

void pb_plot_free(pb_plot *p)
{
    free(p->groups);
    free(p->bars);
    memset(p, 0, sizeof *p);
}
