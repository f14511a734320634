/* tw_collective.c - alpha-beta cost of collectives (Thakur, Rabenseifner &
 * Gropp 2005, "Optimization of Collective Communication Operations in MPICH"). */
#include <math.h>
#include <stddef.h>

#include "tilewave.h"

static int positive(double x) { return isfinite(x) && x > 0.0; }

int tw_collective(const tw_collective_input *in, tw_collective_result *out, const char **bad_field)
{
    const char *bad = NULL;
    double p, n, a, b, steps, wire;

    if (in == NULL) bad = "in";
    else if (out == NULL) bad = "out";
    else if (in->kind < TW_ALLREDUCE_RING || in->kind > TW_ALLTOALL) bad = "kind";
    else if (!positive(in->bytes)) bad = "bytes";
    else if (!isfinite(in->group) || in->group < 1.0 || in->group != floor(in->group) || in->group > 1e6) bad = "group";
    else if (!positive(in->link_bw)) bad = "link_bw";
    else if (!isfinite(in->latency_s) || in->latency_s < 0.0) bad = "latency_s";
    if (bad != NULL) {
        if (bad_field != NULL) *bad_field = bad;
        return TW_EINVAL;
    }
    p = in->group;
    n = in->bytes;
    a = in->latency_s;
    b = in->link_bw;
    if (p == 1.0 && in->kind != TW_P2P) {
        out->time_s = 0.0;
        out->steps = 0.0;
        out->wire_bytes = 0.0;
        out->bus_bw = 0.0;
        return TW_OK;
    }
    switch (in->kind) {
    case TW_ALLREDUCE_RING:
        steps = 2.0 * (p - 1.0);
        wire = 2.0 * (p - 1.0) / p * n;
        break;
    case TW_ALLREDUCE_TREE:
        steps = 2.0 * ceil(log2(p));
        wire = 2.0 * n;
        break;
    case TW_ALLGATHER_RING:
    case TW_REDUCESCATTER_RING:
    case TW_ALLTOALL: /* pairwise exchange: p-1 rounds, (p-1)/p of the buffer leaves each rank */
        steps = p - 1.0;
        wire = (p - 1.0) / p * n;
        break;
    default: /* TW_P2P */
        steps = 1.0;
        wire = n;
        break;
    }
    out->steps = steps;
    out->wire_bytes = wire;
    out->time_s = steps * a + wire / b;
    out->bus_bw = wire / out->time_s;
    /* a tiny message on a link with no latency underflows to zero time */
    if (!positive(out->time_s) || !positive(out->bus_bw) || !positive(out->wire_bytes)) {
        if (bad_field != NULL) *bad_field = "bytes/link_bw";
        return TW_ERANGE;
    }
    return TW_OK;
}
