/* tw_attention.c - HBM traffic and memory of standard attention against
 * FlashAttention (Dao et al. 2022, Algorithms 0 and 1, §3.2; backward: Algorithms 3
 * and 4, Appendix B). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"

static int positive(double x) { return isfinite(x) && x > 0.0; }
static int count(double x) { return isfinite(x) && x >= 1.0 && x == floor(x) && x <= 9007199254740992.0; }

int tw_attention_io(const tw_attention_input *in, tw_attention_result *out, const char **bad_field)
{
    const char *bad = NULL;
    double n, d, h, e, m, bc, br, tc, std_el, fa_el, stats;

    if (in == NULL) bad = "in";
    else if (out == NULL) bad = "out";
    else if (!count(in->seq_len)) bad = "seq_len";
    else if (!count(in->head_dim)) bad = "head_dim";
    else if (!count(in->heads)) bad = "heads";
    else if (!positive(in->elem_bytes)) bad = "elem_bytes";
    else if (!positive(in->sram_bytes)) bad = "sram_bytes";
    else if (in->sram_bytes / in->elem_bytes < 4.0 * in->head_dim) bad = "sram_bytes";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_EINVAL;
    }
    n = in->seq_len;
    d = in->head_dim;
    h = in->heads;
    e = in->elem_bytes;
    m = in->sram_bytes / e;               /* SRAM in elements */
    bc = ceil(m / (4.0 * d));
    br = bc < d ? bc : d;
    tc = ceil(n / bc);
    std_el = 4.0 * n * d + 4.0 * n * n;   /* Algorithm 0 */
    fa_el = 2.0 * n * d + tc * 3.0 * n * d; /* K, V once; Q read, O read + write per pass */
    stats = tc * 4.0 * n * 4.0;           /* l, m read + write per pass, fp32 */
    out->standard_bytes = h * std_el * e;
    out->flash_bytes = h * (fa_el * e + stats);
    out->standard_mem_bytes = h * (4.0 * n * d + 2.0 * n * n) * e;
    out->flash_mem_bytes = h * (4.0 * n * d * e + 2.0 * n * 4.0);
    out->standard_bwd_bytes = h * (8.0 * n * d + 7.0 * n * n) * e;           /* Algorithm 3 */
    out->flash_bwd_bytes = h * ((4.0 * n * d + tc * 5.0 * n * d) * e + tc * 2.0 * n * 4.0); /* Algorithm 4 */
    out->block_cols = bc;
    out->block_rows = br;
    out->passes = tc;
    if (!isfinite(m) || !positive(bc)) bad = "sram_bytes/elem_bytes";
    else if (!positive(out->standard_bytes) || !positive(out->flash_bytes) ||
             !positive(out->standard_mem_bytes) || !positive(out->flash_mem_bytes) ||
             !positive(out->standard_bwd_bytes) || !positive(out->flash_bwd_bytes))
        bad = "heads*seq_len*seq_len*elem_bytes";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_ERANGE;
    }
    return TW_OK;
}
