/* fuzz_attention.c - libFuzzer target: tw_attention_io. */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    tw_attention_input x;
    tw_attention_result r;
    const char *bad = NULL;
    int st;

    x.seq_len = fuzz_double(&in);
    x.head_dim = fuzz_double(&in);
    x.heads = fuzz_double(&in);
    x.elem_bytes = fuzz_double(&in);
    x.sram_bytes = fuzz_double(&in);
    st = tw_attention_io(&x, &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_gt0(r.standard_bytes) && finite_gt0(r.flash_bytes), "non-finite traffic");
        check(finite_gt0(r.standard_mem_bytes) && finite_gt0(r.flash_mem_bytes), "non-finite memory");
        check(finite_gt0(r.standard_bwd_bytes) && finite_gt0(r.flash_bwd_bytes), "non-finite backward traffic");
        check(finite_gt0(r.block_cols) && finite_gt0(r.block_rows) && finite_gt0(r.passes), "non-finite blocks");
    }
    return 0;
}
