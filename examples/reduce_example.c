/*
 * reduce_example.c -- sum and argmax of a float array with parprim, checked on the host.
 *
 * The same program runs on a GPU (PP_BACKEND_AUTO picks HIP when the library has it and a
 * device is present) and on the CPU: the data goes through pp_malloc / pp_memcpy into the
 * context's memory space, and the results come back to host memory (PP_RESULT_HOST).
 *
 * Build: cc -std=c11 reduce_example.c $(pkg-config --cflags --libs parprim) -lm
 * Exit status 0 when both results match the host loop, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(void)
{
    const size_t n = (size_t)1 << 22;
    float *host = malloc(n * sizeof *host);
    if (!host) return 1;
    /* A smooth signal with one clear peak, at an index the host loop must also find. */
    for (size_t i = 0; i < n; i++) host[i] = (float)sin(0.001 * (double)i);
    host[n / 3 + 7] = 4.0f;

    pp_context *ctx = NULL;
    CHECK(pp_context_create(&ctx, PP_BACKEND_AUTO, 0));
    printf("parprim %s\nbackend %s: %s\n", pp_version_string(),
           pp_backend_name(pp_context_backend(ctx)), pp_context_device_name(ctx));

    void *data = NULL;
    CHECK(pp_malloc(ctx, &data, n * sizeof(float)));
    CHECK(pp_memcpy(ctx, data, host, n * sizeof(float), PP_COPY_HOST_TO_CONTEXT));

    float sum = 0.0f, max_value = 0.0f;
    uint64_t max_index = 0;
    CHECK(pp_reduce(ctx, data, n, PP_F32, PP_OP_SUM, &sum, PP_F32, PP_RESULT_HOST));
    CHECK(pp_argmax(ctx, data, n, PP_F32, &max_value, &max_index, PP_RESULT_HOST));

    /* Host reference. The float sum is checked against the header's error bound:
     * |got - exact| <= g * sum|x|, g = D*u / (1 - D*u), D = ceil(log2 n) + slack, u = 2^-24. */
    double exact = 0.0, abs_sum = 0.0;
    size_t ref_index = 0;
    for (size_t i = 0; i < n; i++) {
        exact += host[i];
        abs_sum += fabs(host[i]);
        if (host[i] > host[ref_index]) ref_index = i;
    }
    double depth = ceil(log2((double)n)) + PP_SUM_DEPTH_SLACK;
    double u = ldexp(1.0, -24);
    double bound = depth * u / (1.0 - depth * u) * abs_sum;
    int sum_ok = fabs((double)sum - exact) <= bound;
    int argmax_ok = max_index == ref_index && max_value == host[ref_index];

    printf("sum    = %.6f (host %.6f, |diff| %.3g, bound %.3g) %s\n", sum, exact,
           fabs((double)sum - exact), bound, sum_ok ? "ok" : "MISMATCH");
    printf("argmax = %.6f at %llu (host %.6f at %llu) %s\n", max_value,
           (unsigned long long)max_index, host[ref_index], (unsigned long long)ref_index,
           argmax_ok ? "ok" : "MISMATCH");

    CHECK(pp_free(ctx, data));
    pp_context_destroy(ctx);
    free(host);
    return sum_ok && argmax_ok ? 0 : 1;
}
