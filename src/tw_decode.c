/* tw_decode.c - LLM decode step cost and the inference memory budget
 * (Pope et al. 2022 §2; gpt-fast README; see tilewave.h for the formulas). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"

#define EXACT 9007199254740992.0 /* 2^53 */

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int nonneg(double x) { return isfinite(x) && x >= 0.0; }
static int fraction(double x) { return isfinite(x) && x > 0.0 && x <= 1.0; }
static int count(double x, double lo) { return isfinite(x) && x >= lo && x == floor(x); }

static int fail(const char **bad_field, const char *field, int status)
{
    if (bad_field != NULL) *bad_field = field;
    return status;
}

int tw_decode_step(const tw_decode_input *in, tw_decode_result *out, const char **bad_field)
{
    /* 72 lines, one function: each input checked in struct order (one line each), then the step's
     * few terms, which share the checked inputs */
    const char *bad = NULL;
    double bw, kv, kv_eff, attn, flops, mem, busy;

    if (in == NULL) bad = "in";
    else if (out == NULL) bad = "out";
    else if (!positive(in->weight_bytes)) bad = "weight_bytes";
    else if (!positive(in->matmul_params)) bad = "matmul_params";
    else if (!nonneg(in->dequant_ops)) bad = "dequant_ops";
    else if (!count(in->layers, 1)) bad = "layers";
    else if (!count(in->kv_heads, 1)) bad = "kv_heads";
    else if (!count(in->q_heads, 1)) bad = "q_heads";
    else if (!count(in->head_dim, 1)) bad = "head_dim";
    else if (!positive(in->kv_elem_bytes)) bad = "kv_elem_bytes";
    else if (!count(in->context, 1)) bad = "context";
    else if (!count(in->batch, 1)) bad = "batch";
    else if (!nonneg(in->act_bytes)) bad = "act_bytes";
    else if (!positive(in->peak_flops)) bad = "peak_flops";
    else if (!fraction(in->compute_frac)) bad = "compute_frac";
    else if (!positive(in->vector_flops)) bad = "vector_flops";
    else if (!positive(in->mem_bw)) bad = "mem_bw";
    else if (!fraction(in->mem_frac)) bad = "mem_frac";
    else if (!nonneg(in->kernels)) bad = "kernels";
    else if (!nonneg(in->launch_s)) bad = "launch_s";
    else if (!nonneg(in->attn_dim) || in->attn_dim > EXACT) bad = "attn_dim";
    else if (!nonneg(in->kv_eff) || in->kv_eff > 1.0) bad = "kv_eff";
    if (bad != NULL) return fail(bad_field, bad, TW_EINVAL);
    kv_eff = in->kv_eff > 0.0 ? in->kv_eff : 1.0;

    /* per-step element counts must stay exact in a double */
    kv = 2.0 * in->layers * in->kv_heads * in->head_dim * in->context * in->batch;
    if (kv > EXACT) return fail(bad_field, "context*batch", TW_ERANGE);
    if (in->matmul_params * in->batch > EXACT) return fail(bad_field, "batch", TW_ERANGE);

    bw = in->mem_bw * in->mem_frac;
    kv *= in->kv_elem_bytes;
    attn = 2.0 * in->layers * in->q_heads * (in->attn_dim > 0.0 ? in->attn_dim : 2.0 * in->head_dim) *
           in->context * in->batch;
    flops = 2.0 * in->matmul_params * in->batch + attn;

    out->weight_bytes = in->weight_bytes;
    out->kv_bytes = kv;
    out->bytes = in->weight_bytes + kv + in->act_bytes;
    out->flops = flops;
    out->compute_s = flops / (in->peak_flops * in->compute_frac);
    /* kv_eff = 1 keeps the one division: the same bits as a kernel without an occupancy loss */
    out->memory_s = kv_eff < 1.0 ? (in->weight_bytes + in->act_bytes) / bw + kv / (bw * kv_eff) : out->bytes / bw;
    out->dequant_s = in->matmul_params * in->dequant_ops / in->vector_flops;
    out->overhead_s = in->kernels * in->launch_s;
    mem = out->memory_s + out->dequant_s;
    busy = out->compute_s > mem ? out->compute_s : mem;
    out->tpot_s = out->overhead_s + busy;
    out->tokens_per_s = 1.0 / out->tpot_s;
    out->aggregate_tokens_per_s = in->batch / out->tpot_s;
    out->achieved_bw = out->bytes / out->tpot_s;
    out->intensity = flops / out->bytes;
    if (out->overhead_s > busy) out->bound = TW_BOUND_OVERHEAD;
    else out->bound = out->compute_s > mem ? TW_BOUND_COMPUTE : TW_BOUND_MEMORY;
    /* valid inputs whose products overflow (or whose quotients underflow) */
    if (!positive(attn) || !positive(flops)) bad = "q_heads*head_dim*context*batch";
    else if (!positive(out->bytes)) bad = "weight_bytes+kv_bytes";
    else if (!positive(out->compute_s)) bad = "flops/(peak_flops*compute_frac)";
    else if (!positive(out->memory_s)) bad = "bytes/(mem_bw*mem_frac)";
    else if (!nonneg(out->dequant_s)) bad = "matmul_params*dequant_ops/vector_flops";
    else if (!nonneg(out->overhead_s)) bad = "kernels*launch_s";
    else if (!positive(out->tpot_s) || !positive(out->aggregate_tokens_per_s) ||
             !positive(out->achieved_bw) || !positive(out->intensity))
        bad = "tpot_s";
    if (bad != NULL) return fail(bad_field, bad, TW_ERANGE);
    return TW_OK;
}

int tw_splitkv(const tw_splitkv_input *in, tw_splitkv_result *out, const char **bad_field)
{
    const char *bad = NULL;
    double best = 0.0, n_max, s, w, eff, splits = 1.0;

    if (in == NULL) bad = "in";
    else if (out == NULL) bad = "out";
    else if (!count(in->blocks, 1) || in->blocks > EXACT) bad = "blocks";
    else if (!count(in->kv_blocks, 1) || in->kv_blocks > EXACT) bad = "kv_blocks";
    else if (!count(in->sms, 1) || in->sms > 65536.0) bad = "sms";
    else if (!count(in->slots, 1) || in->slots > 1048576.0) bad = "slots";
    else if (!count(in->max_splits, 0) || in->max_splits > 4096.0) bad = "max_splits";
    if (bad != NULL) return fail(bad_field, bad, TW_EINVAL);

    /* flash-attn's num_splits_heuristic (see tilewave.h) */
    if (in->max_splits > 0.0 && in->blocks < 0.8 * in->slots) {
        n_max = in->max_splits;
        if (in->slots < n_max) n_max = in->slots;
        if (in->kv_blocks < n_max) n_max = in->kv_blocks;
        for (int pass = 0; pass < 2; pass++) {
            for (s = 1.0; s <= n_max; s += 1.0) {
                if (s > 1.0 && ceil(in->kv_blocks / s) == ceil(in->kv_blocks / (s - 1.0))) continue;
                w = in->blocks * s / in->slots;
                eff = w / ceil(w);
                if (pass == 0 && eff > best) best = eff;
                if (pass == 1 && eff >= 0.85 * best) {
                    splits = s;
                    break;
                }
            }
        }
    }
    out->splits = splits;
    out->blocks = in->blocks * splits;
    out->efficiency = out->blocks >= in->sms ? 1.0 : out->blocks / in->sms;
    return TW_OK;
}

int tw_memory_fit(const tw_memory_input *in, tw_memory_result *out, const char **bad_field)
{
    const char *bad = NULL;
    double room;

    if (in == NULL) bad = "in";
    else if (out == NULL) bad = "out";
    else if (!positive(in->weight_bytes)) bad = "weight_bytes";
    else if (!positive(in->kv_bytes_per_token)) bad = "kv_bytes_per_token";
    else if (!count(in->context, 1)) bad = "context";
    else if (!count(in->batch, 1)) bad = "batch";
    else if (!nonneg(in->workspace_bytes)) bad = "workspace_bytes";
    else if (!positive(in->memory_bytes)) bad = "memory_bytes";
    if (bad != NULL) return fail(bad_field, bad, TW_EINVAL);
    if (in->context * in->batch > EXACT) return fail(bad_field, "context*batch", TW_ERANGE);

    out->kv_bytes = in->kv_bytes_per_token * in->context * in->batch;
    out->total_bytes = in->weight_bytes + out->kv_bytes + in->workspace_bytes;
    out->free_bytes = in->memory_bytes - out->total_bytes;
    out->fits = out->total_bytes <= in->memory_bytes;
    room = in->memory_bytes - in->weight_bytes - in->workspace_bytes;
    if (room <= 0.0) {
        out->max_batch = 0.0;
        out->max_context = 0.0;
    } else {
        out->max_batch = floor(room / (in->kv_bytes_per_token * in->context));
        out->max_context = floor(room / (in->kv_bytes_per_token * in->batch));
    }
    /* a vanishing per-token size makes the counts unbounded; report, do not return inf */
    if (!nonneg(out->kv_bytes) || !nonneg(out->total_bytes) || !isfinite(out->free_bytes))
        return fail(bad_field, "kv_bytes_per_token*context*batch", TW_ERANGE);
    if (!nonneg(out->max_batch) || !nonneg(out->max_context) || out->max_batch > EXACT ||
        out->max_context > EXACT)
        return fail(bad_field, "memory_bytes/kv_bytes_per_token", TW_ERANGE);
    return TW_OK;
}
