/* fuzz_collective.c - libFuzzer target: tw_collective, and the status helpers. */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    tw_collective_input x;
    tw_collective_result r;
    const char *bad = NULL;
    int st;

    x.kind = (int)fuzz_int(&in);
    x.bytes = fuzz_double(&in);
    x.group = fuzz_double(&in);
    x.link_bw = fuzz_double(&in);
    x.latency_s = fuzz_double(&in);
    st = tw_collective(&x, &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_ge0(r.time_s) && finite_ge0(r.steps) && finite_ge0(r.wire_bytes) && finite_ge0(r.bus_bw),
              "a non-finite collective");
        check(r.time_s > 0.0 || x.group == 1.0, "a free collective over more than one rank");
    }
    check(tw_strerror(x.kind) != NULL && tw_bound_name(x.kind) != NULL, "a NULL status or bound name");
    return 0;
}
