/* fuzz_decode.c - libFuzzer target: tw_decode_step, tw_splitkv and tw_memory_fit. */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    tw_decode_input x;
    tw_decode_result r;
    tw_splitkv_input si;
    tw_splitkv_result sr;
    tw_memory_input mi;
    tw_memory_result mr;
    const char *bad = NULL;
    int st;

    x.weight_bytes = fuzz_double(&in);
    x.matmul_params = fuzz_double(&in);
    x.dequant_ops = fuzz_double(&in);
    x.layers = fuzz_double(&in);
    x.kv_heads = fuzz_double(&in);
    x.q_heads = fuzz_double(&in);
    x.head_dim = fuzz_double(&in);
    x.kv_elem_bytes = fuzz_double(&in);
    x.context = fuzz_double(&in);
    x.batch = fuzz_double(&in);
    x.act_bytes = fuzz_double(&in);
    x.peak_flops = fuzz_double(&in);
    x.compute_frac = fuzz_double(&in);
    x.vector_flops = fuzz_double(&in);
    x.mem_bw = fuzz_double(&in);
    x.mem_frac = fuzz_double(&in);
    x.kernels = fuzz_double(&in);
    x.launch_s = fuzz_double(&in);
    x.attn_dim = fuzz_double(&in);
    x.kv_eff = fuzz_double(&in);
    st = tw_decode_step(&x, &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_gt0(r.tpot_s) && finite_gt0(r.tokens_per_s) && finite_gt0(r.aggregate_tokens_per_s),
              "a non-finite TPOT or token rate");
        check(finite_gt0(r.bytes) && finite_gt0(r.weight_bytes) && finite_gt0(r.kv_bytes) && finite_gt0(r.flops),
              "non-finite bytes or FLOP");
        check(finite_gt0(r.compute_s) && finite_gt0(r.memory_s) && finite_ge0(r.dequant_s) &&
                  finite_ge0(r.overhead_s),
              "a non-finite part");
        check(finite_gt0(r.achieved_bw) && finite_gt0(r.intensity), "a non-finite bandwidth or intensity");
    }
    si.blocks = fuzz_double(&in);
    si.kv_blocks = fuzz_double(&in);
    si.sms = fuzz_double(&in);
    si.slots = fuzz_double(&in);
    si.max_splits = fuzz_double(&in);
    bad = NULL;
    st = tw_splitkv(&si, &sr, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(sr.splits >= 1.0 && sr.splits <= (si.max_splits > 1.0 ? si.max_splits : 1.0) &&
                  sr.splits == floor(sr.splits),
              "a split count outside [1, max_splits]");
        check(finite_gt0(sr.blocks) && finite_gt0(sr.efficiency) && sr.efficiency <= 1.0,
              "an efficiency outside (0, 1]");
    }
    mi.weight_bytes = fuzz_double(&in);
    mi.kv_bytes_per_token = fuzz_double(&in);
    mi.context = fuzz_double(&in);
    mi.batch = fuzz_double(&in);
    mi.workspace_bytes = fuzz_double(&in);
    mi.memory_bytes = fuzz_double(&in);
    bad = NULL;
    st = tw_memory_fit(&mi, &mr, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_ge0(mr.kv_bytes) && finite_ge0(mr.total_bytes) && isfinite(mr.free_bytes), "non-finite bytes");
        check(finite_ge0(mr.max_batch) && finite_ge0(mr.max_context), "a non-finite max batch or context");
        check(mr.fits == (mr.total_bytes <= mi.memory_bytes), "fits disagreeing with the totals");
    }
    return 0;
}
