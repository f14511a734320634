/* tw_pass.c - a whole forward pass priced in one call: the ops' kernels summed in a fixed
 * order (tw_pass.h gives the formulas and their sources). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"
#include "tw_gemm_internal.h"

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int nonneg(double x) { return isfinite(x) && x >= 0.0; }

static int fail(size_t i, const char *field, int status, size_t *bad_index, const char **bad_field)
{
    if (bad_index != NULL) *bad_index = i;
    if (bad_field != NULL) *bad_field = field;
    return status;
}

static const char *check_step(const tw_pass_step *s, int *status, const char **gemm_field)
{
    *status = TW_EINVAL;
    if (s->kind != TW_STEP_GEMM && s->kind != TW_STEP_KERNEL && s->kind != TW_STEP_FUSED) return "steps.kind";
    if (s->part < 0 || s->part > 2 || (s->kind != TW_STEP_KERNEL && s->part != 0)) return "steps.part";
    if (s->kind == TW_STEP_GEMM) {
        *status = tw_gemm__check_shape(&s->gemm, gemm_field);
        return *status == TW_OK ? NULL : *gemm_field;
    }
    if (!nonneg(s->bytes)) return "steps.bytes";
    if (!positive(s->bw)) return "steps.bw";
    if (s->kind == TW_STEP_FUSED) {
        if (!nonneg(s->work)) return "steps.work";
        if (!positive(s->rate)) return "steps.rate";
        if (!nonneg(s->sfu)) return "steps.sfu";
        if (!positive(s->sfu_rate)) return "steps.sfu_rate";
    }
    return NULL;
}

int tw_pass_validate(const tw_pass_op *ops, size_t n_ops, const tw_pass_step *steps, size_t n_steps,
                     size_t *bad_index, const char **bad_field)
{
    size_t i, total = 0;

    if (n_ops > TW_PASS_MAX_OPS) return fail(n_ops, "ops", TW_ERANGE, bad_index, bad_field);
    if (n_steps > TW_PASS_MAX_STEPS) return fail(n_steps, "steps", TW_ERANGE, bad_index, bad_field);
    if (n_ops > 0 && ops == NULL) return fail(0, "ops pointer", TW_EINVAL, bad_index, bad_field);
    if (n_steps > 0 && steps == NULL) return fail(0, "steps pointer", TW_EINVAL, bad_index, bad_field);
    for (i = 0; i < n_ops; i++) {
        const tw_pass_op *o = &ops[i];
        if (!(nonneg(o->count) && o->count <= (double)TW_DIM_MAX))
            return fail(i, "ops.count", TW_EINVAL, bad_index, bad_field);
        if (o->layer != 0 && o->layer != 1) return fail(i, "ops.layer", TW_EINVAL, bad_index, bad_field);
        if (o->steps < 0 || o->steps > TW_PASS_MAX_STEPS) return fail(i, "ops.steps", TW_EINVAL, bad_index, bad_field);
        if (!nonneg(o->floor_s)) return fail(i, "ops.floor_s", TW_EINVAL, bad_index, bad_field);
        total += (size_t)o->steps;
    }
    if (total != n_steps) return fail(n_ops, "ops.steps", TW_EINVAL, bad_index, bad_field);
    for (i = 0; i < n_steps; i++) {
        int status;
        const char *gemm_field = NULL, *bad = check_step(&steps[i], &status, &gemm_field);
        if (bad != NULL) return fail(i, bad, status, bad_index, bad_field);
    }
    return TW_OK;
}

/* One kernel's time with the host floor, s (tw_pass.h). */
static int step_time(const tw_gemm_plan *p, const tw_pass_step *s, double kernel_s, double host_s, double *t,
                     const char **bad_field)
{
    double g;
    if (s->kind == TW_STEP_GEMM) {
        int status = tw_gemm__time_checked(p, &s->gemm, &g, NULL, bad_field);
        if (status != TW_OK) return status;
    } else if (s->kind == TW_STEP_KERNEL) {
        g = s->bytes / s->bw + kernel_s;
    } else {
        double compute = s->work / s->rate + s->sfu / s->sfu_rate, memory = s->bytes / s->bw;
        g = (memory > compute ? memory : compute) + kernel_s;
    }
    *t = host_s > g ? host_s : g;
    return TW_OK;
}

int tw_pass_estimate(const tw_gemm_plan *p, const tw_pass_op *ops, size_t n_ops, const tw_pass_step *steps,
                     size_t n_steps, double kernel_s, double host_s, double *op_time_s, tw_pass_result *out,
                     const char **bad_field)
{
    tw_pass_result r = { 0.0, 0.0, 0.0 };
    size_t i, next = 0;

    if (!tw_gemm__plan_ok(p, bad_field)) return TW_EINVAL;
    if (out == NULL) return fail(0, "out", TW_EINVAL, NULL, bad_field);
    if (!nonneg(kernel_s)) return fail(0, "kernel_s", TW_EINVAL, NULL, bad_field);
    if (!nonneg(host_s)) return fail(0, "host_s", TW_EINVAL, NULL, bad_field);
    {
        size_t bad_index;
        int status = tw_pass_validate(ops, n_ops, steps, n_steps, &bad_index, bad_field);
        if (status != TW_OK) return status;
    }
    for (i = 0; i < n_ops; i++) {
        double part[3] = { 0.0, 0.0, 0.0 }, op_s, total_s;
        int j;
        for (j = 0; j < ops[i].steps; j++, next++) {
            double t;
            int status = step_time(p, &steps[next], kernel_s, host_s, &t, bad_field);
            if (status != TW_OK) return status;
            part[steps[next].part] += t;
        }
        op_s = part[0] + (part[1] + part[2]);
        if (ops[i].floor_s > op_s) op_s = ops[i].floor_s;
        total_s = op_s * ops[i].count;
        r.time_s += total_s;
        if (ops[i].layer) r.layer_s += total_s;
        r.gemm_s += part[0] * ops[i].count;
        if (op_time_s != NULL) op_time_s[i] = op_s;
    }
    if (!isfinite(r.time_s) || !isfinite(r.gemm_s)) return fail(0, "time_s", TW_ERANGE, NULL, bad_field);
    *out = r;
    return TW_OK;
}
