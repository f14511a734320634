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
    const char *bad = NULL;
    double bw, kv, attn, flops, mem, busy;

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
    if (bad != NULL) return fail(bad_field, bad, TW_EINVAL);

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
    out->memory_s = out->bytes / bw;
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
