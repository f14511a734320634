/* fuzz_gemm.c - libFuzzer target: tw_device_validate, tw_gemm_estimate, tw_gemm_estimate_many
 * and the prepared device (tw_gemm_prepare, tw_gemm_plan_estimate) on arbitrary devices and
 * shapes. TW_OK must come with finite, in-range outputs that agree between the one-shot,
 * batched and prepared calls. */
#include "fuzz_input.h"

static void fill_device(fuzz_in *in, tw_device *d)
{
    int i;
    memset(d, 0, sizeof *d);
    d->sm_count = (int)fuzz_int(in);
    d->peak_flops = fuzz_double(in);
    d->compute_frac = fuzz_double(in);
    d->mem_bw = fuzz_double(in);
    d->mem_frac = fuzz_double(in);
    d->write_frac = fuzz_double(in);
    d->l2_bytes = fuzz_double(in);
    d->call_overhead_s = fuzz_double(in);
    d->reduce_overhead_s = fuzz_double(in);
    d->splitk_tma_latency_s = fuzz_double(in);
    d->unsplit_reduce_m = fuzz_double(in);
    d->unsplit_reduce_n = fuzz_double(in);
    d->tile_latency_s = fuzz_double(in);
    d->kstep_latency_s = fuzz_double(in);
    d->max_split_k = (int)fuzz_int(in);
    d->n_tiles = (int)fuzz_int(in);
    for (i = 0; i < TW_MAX_TILES; i++) {
        d->tiles[i].m = fuzz_int(in);
        d->tiles[i].n = fuzz_int(in);
        d->tiles[i].eff = fuzz_double(in);
        d->tiles[i].ctas_per_sm = (int)fuzz_int(in);
        if (in->n == 0) break;
    }
    for (i = 0; i < TW_ALIGN_CLASSES; i++) {
        d->align_eff[i] = fuzz_double(in);
        d->align_mem_eff[i] = fuzz_double(in);
    }
    /* read last, so the seed corpus keeps its meaning for the fields above */
    d->write_exposed = fuzz_double(in);
    d->stream_k = (int)fuzz_int(in);
    d->streamk_fixup_s = fuzz_double(in);
    for (i = 0; i < TW_MAX_TILES; i++) d->tiles[i].tma = (int)fuzz_int(in);
    d->write_sector_cost = fuzz_double(in);
    d->write_exposed_non_tma = fuzz_double(in);
    d->fill_stages = fuzz_double(in);
    d->drain_exposed = fuzz_double(in);
    d->tma_overhead_s = fuzz_double(in);
    d->split_k_any = (int)fuzz_int(in);
    d->n_off_tma_eff = fuzz_double(in);
    d->n_off_tma_max_mn = fuzz_double(in);
    d->n_off_tma_overhead_s = fuzz_double(in);
    d->n_off_tma_tile = (int)fuzz_int(in);
}

static void fill_shape(fuzz_in *in, tw_gemm_shape *s)
{
    s->m = fuzz_int(in);
    s->n = fuzz_int(in);
    s->k = fuzz_int(in);
    s->batch = fuzz_int(in);
    s->in_bytes = fuzz_elem_bytes(fuzz_int(in));
    s->out_bytes = (int)fuzz_int(in);
    s->w_bytes = (fuzz_byte(in) & 1) ? fuzz_double(in) : 0.0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in in = {data, size};
    tw_device d;
    tw_gemm_shape s[2];
    tw_gemm_result r;
    double t[2], rate[2];
    size_t bad_index = 99;
    const char *bad = NULL;
    int st;

    fill_device(&in, &d);
    fill_shape(&in, &s[0]);
    fill_shape(&in, &s[1]);
    st = tw_device_validate(&d, &bad);
    check_status(st, bad);
    bad = NULL;
    st = tw_gemm_estimate(&d, &s[0], &r, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_gt0(r.time_s) && finite_gt0(r.flop_rate) && finite_gt0(r.flops), "a non-finite time or rate");
        check(finite_gt0(r.bytes) && finite_gt0(r.dram_bytes) && finite_gt0(r.intensity), "non-finite bytes");
        check(finite_ge0(r.compute_s) && finite_ge0(r.memory_s) && finite_ge0(r.overhead_s), "a non-finite part");
        check(r.time_s >= r.overhead_s, "a time below the call overhead");
        check(r.tile_eff > 0.0 && r.tile_eff <= 1.0, "tile_eff outside (0, 1]");
        check(r.wave_eff > 0.0 && r.wave_eff <= 1.0, "wave_eff outside (0, 1]");
        check(r.align_eff > 0.0 && r.align_eff <= 1.0, "align_eff outside (0, 1]");
        check(r.tiles >= 1 && r.waves >= 1 && r.split_k >= 1, "no tiles, waves or split");
        check(r.tile_m >= 1 && r.tile_n >= 1, "an unset tile");
        check(r.bound >= TW_BOUND_COMPUTE && r.bound <= TW_BOUND_OVERHEAD, "an unknown bound");
        check(r.align_bytes >= 1 && r.align_bytes <= 128, "an alignment outside 1..128 bytes");
    }
    bad = NULL;
    st = tw_gemm_estimate_many(&d, s, 2, t, rate, &bad_index, &bad);
    check_status(st, bad);
    if (st == TW_OK) {
        check(finite_gt0(t[0]) && finite_gt0(t[1]) && finite_gt0(rate[0]) && finite_gt0(rate[1]),
              "a non-finite batched time");
        check(t[0] == r.time_s, "a batched time that differs from the single estimate");
    } else if (strncmp(bad, "device.", 7) != 0 || strcmp(bad, "device.figures") == 0) {
        check(bad_index <= 1, "a shape's error with no index"); /* a bad device has none */
    }
    {
        tw_gemm_plan plan;
        tw_gemm_result pr;
        int sp;
        bad = NULL;
        sp = tw_gemm_prepare(&d, &plan, &bad);
        check_status(sp, bad);
        if (sp == TW_OK) {
            tw_gemm_result r1;
            int s1 = tw_gemm_estimate(&d, &s[1], &r1, NULL);
            sp = tw_gemm_plan_estimate(&plan, &s[1], &pr, &bad);
            check(sp == s1, "a prepared status that differs from the one-shot estimate");
            if (sp == TW_OK)
                check(pr.time_s == r1.time_s && pr.tile_m == r1.tile_m && pr.split_k == r1.split_k,
                      "a prepared estimate that differs from the one-shot estimate");
        }
    }
    return 0;
}
