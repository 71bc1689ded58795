/*
 * box_filter.c -- box blurs of any radius from one summed-area table, with parprim.
 *
 * Builds a test image (or reads an 8-bit binary PGM, "P5", given as the first argument),
 * computes its integral image (pp_summed_area_table, u8 -> u32, the form with a leading zero
 * row and column) on whichever backend is present (PP_BACKEND_AUTO), and writes box-blurred
 * images at several radii as PGM files into the current directory (box_r<radius>.pgm): each
 * pixel is the mean of the (2r + 1) x (2r + 1) box around it, clipped at the borders, read
 * from four corners of the table whatever the radius. A few pixels of every radius are
 * checked against a direct sum of the box.
 *
 * The u32 table wraps past 2^32 (an image of more than 2^24 white pixels); a box's sum read
 * from four corners by wrapping (unsigned) subtraction is exact all the same while the box
 * itself sums below 2^32, which every box of an image smaller than 2^24 pixels does.
 *
 * Build: cc -std=c11 box_filter.c $(pkg-config --cflags --libs parprim)
 * Usage: box_filter [image.pgm] [--no-write]
 * Exit status 0 when every checked pixel matches, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parprim.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        pp_status st_ = (call);                                                      \
        if (st_ != PP_OK) {                                                          \
            fprintf(stderr, "%s failed: %s\n  %s\n", #call, pp_status_string(st_),   \
                    ctx ? pp_context_last_error(ctx) : pp_last_create_error());      \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* An 8-bit binary PGM into *img (malloc'd); 0 on success. */
static int read_pgm(const char *path, uint8_t **img, size_t *rows, size_t *cols)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    unsigned w, h, maxv;
    char magic[3] = {0};
    int ok = fscanf(f, "%2s", magic) == 1 && !strcmp(magic, "P5");
    /* skip comments between the header's numbers */
    unsigned *fields[3] = {&w, &h, &maxv};
    for (int k = 0; ok && k < 3; ++k) {
        int c;
        while ((c = fgetc(f)) == '#' || c == ' ' || c == '\n' || c == '\r' || c == '\t')
            if (c == '#')
                while ((c = fgetc(f)) != '\n' && c != EOF) {}
        ungetc(c, f);
        ok = fscanf(f, "%u", fields[k]) == 1;
    }
    ok = ok && maxv > 0 && maxv < 256 && w > 0 && h > 0 && fgetc(f) != EOF;
    if (ok) {
        *rows = h;
        *cols = w;
        *img = malloc((size_t)w * h);
        ok = *img && fread(*img, 1, (size_t)w * h, f) == (size_t)w * h;
    }
    fclose(f);
    return ok ? 0 : -1;
}

static int write_pgm(const char *path, const uint8_t *img, size_t rows, size_t cols)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    fprintf(f, "P5\n%zu %zu\n255\n", cols, rows);
    const int ok = fwrite(img, 1, rows * cols, f) == rows * cols;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The sum of in[r0..r1][c0..c1] (inclusive bounds) from the integral image t (pitch tp). */
static uint32_t box_sum(const uint32_t *t, size_t tp, size_t r0, size_t c0, size_t r1, size_t c1)
{
    return t[(r1 + 1) * tp + c1 + 1] - t[r0 * tp + c1 + 1] - t[(r1 + 1) * tp + c0] + t[r0 * tp + c0];
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int write = 1;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--no-write")) write = 0;
        else path = argv[i];
    }
    size_t rows = 480, cols = 641;
    uint8_t *img = NULL;
    if (path) {
        if (read_pgm(path, &img, &rows, &cols)) {
            fprintf(stderr, "box_filter: cannot read '%s' as an 8-bit binary PGM\n", path);
            return 1;
        }
    } else { /* rings and a checkerboard: edges that a blur visibly softens */
        img = malloc(rows * cols);
        if (!img) return 1;
        for (size_t r = 0; r < rows; ++r)
            for (size_t c = 0; c < cols; ++c) {
                const long dr = (long)r - (long)rows / 2, dc = (long)c - (long)cols / 2;
                const long d2 = dr * dr + dc * dc;
                img[r * cols + c] = (uint8_t)(((d2 / 900) % 2 ? 200 : 40) + (((r / 16) + (c / 16)) % 2 ? 30 : 0));
            }
    }

    pp_context *ctx = NULL;
    CHECK(pp_context_create(&ctx, PP_BACKEND_AUTO, 0));
    printf("parprim %s\nbackend %s: %s\nimage %zu x %zu\n", pp_version_string(),
           pp_backend_name(pp_context_backend(ctx)), pp_context_device_name(ctx), rows, cols);

    /* the integral image: (rows + 1) x (cols + 1) u32, pitch cols + 1 */
    const size_t tp = cols + 1, tbytes = (rows + 1) * tp * sizeof(uint32_t);
    void *d_img = NULL, *d_tab = NULL;
    CHECK(pp_malloc(ctx, &d_img, rows * cols));
    CHECK(pp_malloc(ctx, &d_tab, tbytes));
    CHECK(pp_memcpy(ctx, d_img, img, rows * cols, PP_COPY_HOST_TO_CONTEXT));
    CHECK(pp_summed_area_table(ctx, d_img, rows, cols, cols, PP_U8, d_tab, tp, PP_U32, PP_SAT_INTEGRAL));
    uint32_t *tab = malloc(tbytes);
    uint8_t *out = malloc(rows * cols);
    if (!tab || !out) return 1;
    CHECK(pp_memcpy(ctx, tab, d_tab, tbytes, PP_COPY_CONTEXT_TO_HOST));

    static const size_t radii[] = {1, 4, 16, 64};
    int bad = 0;
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; ++k) {
        const size_t rad = radii[k];
        for (size_t r = 0; r < rows; ++r)
            for (size_t c = 0; c < cols; ++c) {
                const size_t r0 = r > rad ? r - rad : 0, c0 = c > rad ? c - rad : 0;
                const size_t r1 = r + rad < rows ? r + rad : rows - 1, c1 = c + rad < cols ? c + rad : cols - 1;
                const uint64_t area = (uint64_t)(r1 - r0 + 1) * (c1 - c0 + 1);
                out[r * cols + c] = (uint8_t)((box_sum(tab, tp, r0, c0, r1, c1) + area / 2) / area);
            }
        /* a few pixels against the direct sum: corners, the centre, and some in between */
        const size_t probe[][2] = {{0, 0}, {rows - 1, cols - 1}, {rows / 2, cols / 2}, {rows / 3, cols - 1},
                                   {rows - 1, cols / 5}, {7 % rows, 11 % cols}};
        for (size_t p = 0; p < sizeof probe / sizeof probe[0]; ++p) {
            const size_t r = probe[p][0], c = probe[p][1];
            const size_t r0 = r > rad ? r - rad : 0, c0 = c > rad ? c - rad : 0;
            const size_t r1 = r + rad < rows ? r + rad : rows - 1, c1 = c + rad < cols ? c + rad : cols - 1;
            uint64_t direct = 0;
            for (size_t i = r0; i <= r1; ++i)
                for (size_t j = c0; j <= c1; ++j) direct += img[i * cols + j];
            const uint32_t from_table = box_sum(tab, tp, r0, c0, r1, c1);
            if ((uint64_t)from_table != direct) {
                fprintf(stderr, "radius %zu, pixel (%zu, %zu): table gives %u, direct sum %llu\n", rad, r, c,
                        from_table, (unsigned long long)direct);
                bad = 1;
            }
        }
        if (write) {
            char name[64];
            snprintf(name, sizeof name, "box_r%zu.pgm", rad);
            if (write_pgm(name, out, rows, cols)) {
                fprintf(stderr, "box_filter: cannot write %s\n", name);
                bad = 1;
            } else {
                printf("wrote %s (radius %zu)\n", name, rad);
            }
        }
    }
    printf("%s\n", bad ? "MISMATCH" : "every checked box matches its direct sum");
    CHECK(pp_free(ctx, d_img));
    CHECK(pp_free(ctx, d_tab));
    pp_context_destroy(ctx);
    free(img);
    free(tab);
    free(out);
    return bad;
}
