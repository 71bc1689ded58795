/* plot.h -- parprim-bench's --plot: an SVG bar chart of GB/s per row, written by hand. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <stddef.h>

typedef struct pb_plot_bar {
    char label[128];
    double gbs, peer_gbs; /* peer_gbs < 0: no peer */
    int verified;
} pb_plot_bar;

/* One backend's rows: bars [first, first + count), the copy row's GB/s as the ceiling. */
typedef struct pb_plot_group {
    char title[200];
    char peer[16]; /* "" : no peer */
    double ceiling; /* 0: no copy row */
    size_t first, count;
} pb_plot_group;

typedef struct pb_plot {
    pb_plot_group *groups;
    size_t ngroups;
    pb_plot_bar *bars;
    size_t nbars, cap;
} pb_plot;

/* A new group (the bars added next belong to it); NULL when out of memory. */
pb_plot_group *pb_plot_add_group(pb_plot *p, const char *backend, const char *device, const char *peer);
/* A row of the last group; `ceiling`: the copy row (drawn as a bar and as the line). */
void pb_plot_add_bar(pb_plot *p, const char *label, double gbs, double peer_gbs, int verified, int ceiling);
/* Write the SVG; 0 on success, -1 (errno set) on failure. */
int pb_plot_write(const pb_plot *p, const char *path, const char *title);
void pb_plot_free(pb_plot *p);

#endif
