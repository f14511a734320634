/* tw_roofline.c - the roofline bound (Williams et al. 2009; NVIDIA GPU
 * Performance Background guide, "Understanding Performance"). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int fraction(double x) { return isfinite(x) && x > 0.0 && x <= 1.0; }

int tw_roofline(const tw_roofline_input *in, tw_roofline_result *out, const char **bad_field)
{
    const char *bad = NULL;
    double roof_flops, roof_bw;

    if (in == NULL) bad = "in";
    else if (out == NULL) bad = "out";
    else if (!positive(in->flops)) bad = "flops";
    else if (!positive(in->bytes)) bad = "bytes";
    else if (!positive(in->peak_flops)) bad = "peak_flops";
    else if (!fraction(in->compute_frac)) bad = "compute_frac";
    else if (!positive(in->mem_bw)) bad = "mem_bw";
    else if (!fraction(in->mem_frac)) bad = "mem_frac";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_EINVAL;
    }

    roof_flops = in->peak_flops * in->compute_frac;
    roof_bw = in->mem_bw * in->mem_frac;
    out->compute_s = in->flops / roof_flops;
    out->memory_s = in->bytes / roof_bw;
    out->time_s = out->compute_s > out->memory_s ? out->compute_s : out->memory_s;
    out->intensity = in->flops / in->bytes;
    out->ridge = roof_flops / roof_bw;
    out->bound = out->intensity >= out->ridge ? TW_BOUND_COMPUTE : TW_BOUND_MEMORY;
    /* products and quotients of valid inputs can still overflow or underflow */
    if (!positive(roof_flops)) bad = "peak_flops*compute_frac";
    else if (!positive(roof_bw)) bad = "mem_bw*mem_frac";
    else if (!positive(out->compute_s)) bad = "flops/(peak_flops*compute_frac)";
    else if (!positive(out->memory_s)) bad = "bytes/(mem_bw*mem_frac)";
    else if (!positive(out->intensity)) bad = "flops/bytes";
    else if (!positive(out->ridge)) bad = "peak_flops/mem_bw";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_ERANGE;
    }
    return TW_OK;
}
