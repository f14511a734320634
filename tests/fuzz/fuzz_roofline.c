/* fuzz_roofline.c - libFuzzer target: tw_roofline. */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    tw_roofline_input x;
    tw_roofline_result r;
    const char *bad = NULL;
    int st;

    x.flops = fuzz_double(&in);
    x.bytes = fuzz_double(&in);
    x.peak_flops = fuzz_double(&in);
    x.compute_frac = fuzz_double(&in);
    x.mem_bw = fuzz_double(&in);
    x.mem_frac = fuzz_double(&in);
    st = tw_roofline(&x, &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_gt0(r.time_s) && finite_gt0(r.compute_s) && finite_gt0(r.memory_s), "a non-finite time");
        check(finite_gt0(r.intensity) && finite_gt0(r.ridge), "a non-finite intensity or ridge");
        check(r.time_s >= r.compute_s && r.time_s >= r.memory_s, "a time below a roof");
    }
    return 0;
}
