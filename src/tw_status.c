/* tw_status.c - status codes, bound names and field expectations as text. */
#include <string.h>

#include "tilewave.h"

const char *tw_strerror(int status)
{
    switch (status) {
    case TW_OK: return "ok";
    case TW_EINVAL: return "invalid argument";
    case TW_ERANGE: return "out of range";
    default: return "unknown status";
    }
}

const char *tw_bound_name(int bound)
{
    switch (bound) {
    case TW_BOUND_COMPUTE: return "compute";
    case TW_BOUND_MEMORY: return "memory";
    case TW_BOUND_OVERHEAD: return "overhead";
    default: return "unknown";
    }
}

/* a product or quotient of valid inputs that overflows or underflows */
#define NULL_POINTER "expected a non-NULL pointer"
#define RESULT_RANGE "expected inputs whose result is finite and non-zero (each field in a physical range)"

static const struct {
    const char *field;
    const char *expect;
} expectations[] = {
    {"m", "expected positive integer"},
    {"n", "expected positive integer"},
    {"k", "expected positive integer"},
    {"batch", "expected positive integer"},
    {"m*n*batch", "expected M*N*batch <= 2^53"},
    {"in_bytes", "expected 0.5, 1, 2, 4 or 8"},
    {"out_bytes", "expected 1, 2, 4 or 8"},
    {"w_bytes", "expected 0 (as in_bytes) or a number in (0, 8]"},
    {"flops", "expected positive number"},
    {"bytes", "expected positive number"},
    {"peak_flops", "expected positive number"},
    {"mem_bw", "expected positive number"},
    {"compute_frac", "expected number in (0, 1]"},
    {"mem_frac", "expected number in (0, 1]"},
    {"device.sm_count", "expected integer in [1, 100000]"},
    {"device.peak_flops", "expected positive number"},
    {"device.compute_frac", "expected number in (0, 1]"},
    {"device.mem_bw", "expected positive number"},
    {"device.mem_frac", "expected number in (0, 1]"},
    {"device.l2_bytes", "expected non-negative number"},
    {"device.call_overhead_s", "expected non-negative number"},
    {"device.tma_overhead_s", "expected non-negative number"},
    {"device.reduce_overhead_s", "expected non-negative number"},
    {"device.splitk_tma_latency_s", "expected non-negative number"},
    {"device.unsplit_reduce_m", "expected non-negative number"},
    {"device.unsplit_reduce_n", "expected non-negative number"},
    {"device.write_frac", "expected number in (0, 1]"},
    {"device.write_exposed", "expected number in [0, 1]"},
    {"device.write_exposed_non_tma", "expected number in [0, 1]"},
    {"device.fill_stages", "expected number in [0, 64]"},
    {"device.drain_exposed", "expected number in [0, 1]"},
    {"device.write_sector_cost", "expected number in [0, 16]"},
    {"device.tile_latency_s", "expected non-negative number"},
    {"device.kstep_latency_s", "expected non-negative number"},
    {"device.max_split_k", "expected integer in [1, 64]"},
    {"device.stream_k", "expected 0 or 1"},
    {"device.split_k_any", "expected 0 or 1"},
    {"device.streamk_fixup_s", "expected non-negative number"},
    {"device.n_off_tma_eff", "expected number in [0, 1 / compute_frac]"},
    {"device.n_off_tma_max_mn", "expected non-negative number"},
    {"device.n_off_tma_overhead_s", "expected non-negative number"},
    {"device.n_off_tma_tile", "expected a tile's index"},
    {"device.n_tiles", "expected integer in [1, 16]"},
    {"device.tiles.m", "expected integer in [1, 4096]"},
    {"device.tiles.n", "expected integer in [1, 4096]"},
    {"device.tiles.eff", "expected number in (0, 1]"},
    {"device.tiles.ctas_per_sm", "expected integer in [1, 32]"},
    {"device.tiles.tma", "expected 0 or 1, and at least one tile with 0"},
    {"device.align_eff", "expected number in (0, 1]"},
    {"device.align_mem_eff", "expected number in (0, 1]"},
    {"plan", "expected a plan filled by tw_gemm_prepare and not changed since"},
    {"in", NULL_POINTER},
    {"out", NULL_POINTER},
    {"device", NULL_POINTER},
    {"shape", NULL_POINTER},
    {"shapes", NULL_POINTER},
    {"time_s pointer", NULL_POINTER},
    {"ops pointer", NULL_POINTER},
    {"steps pointer", NULL_POINTER},
    {"weight_bytes", "expected positive number"},
    {"matmul_params", "expected positive number"},
    {"dequant_ops", "expected non-negative number"},
    {"layers", "expected positive integer"},
    {"kv_heads", "expected positive integer"},
    {"q_heads", "expected positive integer"},
    {"head_dim", "expected positive integer"},
    {"kv_elem_bytes", "expected positive number"},
    {"context", "expected positive integer"},
    {"context*batch", "expected KV cache elements <= 2^53"},
    {"act_bytes", "expected non-negative number"},
    {"vector_flops", "expected positive number"},
    {"kernels", "expected non-negative number"},
    {"launch_s", "expected non-negative number"},
    {"attn_dim", "expected non-negative number (0: 2 * head_dim)"},
    {"kv_bytes_per_token", "expected positive number"},
    {"workspace_bytes", "expected non-negative number"},
    {"memory_bytes", "expected positive number"},
    {"seq_len", "expected positive integer"},
    {"heads", "expected positive integer"},
    {"elem_bytes", "expected positive number"},
    {"sram_bytes", "expected positive number holding at least 4 * head_dim elements"},
    {"kind", "expected allreduce_ring, allreduce_tree, allgather_ring, reducescatter_ring, p2p or alltoall"},
    {"group", "expected integer in [1, 1000000]"},
    {"link_bw", "expected positive number"},
    {"latency_s", "expected non-negative number"},
    {"peak_flops*compute_frac", RESULT_RANGE},
    {"mem_bw*mem_frac", RESULT_RANGE},
    {"flops/(peak_flops*compute_frac)", RESULT_RANGE},
    {"bytes/(mem_bw*mem_frac)", RESULT_RANGE},
    {"flops/bytes", RESULT_RANGE},
    {"peak_flops/mem_bw", RESULT_RANGE},
    {"bytes/link_bw", RESULT_RANGE},
    {"sram_bytes/elem_bytes", RESULT_RANGE},
    {"heads*seq_len*seq_len*elem_bytes", RESULT_RANGE},
    {"q_heads*head_dim*context*batch", RESULT_RANGE},
    {"weight_bytes+kv_bytes", RESULT_RANGE},
    {"matmul_params*dequant_ops/vector_flops", RESULT_RANGE},
    {"kernels*launch_s", RESULT_RANGE},
    {"tpot_s", RESULT_RANGE},
    {"kv_bytes_per_token*context*batch", RESULT_RANGE},
    {"memory_bytes/kv_bytes_per_token", RESULT_RANGE},
    {"ops", "expected at most 4096 ops"},
    {"steps", "expected at most 65536 steps"},
    {"ops.count", "expected a number in [0, 2^31-1]"},
    {"ops.layer", "expected 0 or 1"},
    {"ops.steps", "expected step counts in [0, 65536] adding up to the steps given"},
    {"ops.floor_s", "expected a finite number of seconds >= 0"},
    {"steps.kind", "expected gemm, kernel or fused"},
    {"steps.part", "expected 0, 1 or 2 (1 or 2 only for a memory-bound kernel)"},
    {"steps.bytes", "expected non-negative number"},
    {"steps.bw", "expected positive number"},
    {"steps.work", "expected non-negative number"},
    {"steps.rate", "expected positive number"},
    {"steps.sfu", "expected non-negative number"},
    {"steps.sfu_rate", "expected positive number"},
    {"kernel_s", "expected non-negative number"},
    {"host_s", "expected non-negative number"},
    {"time_s", RESULT_RANGE},
    {"device.figures", "the device's figures give a non-finite or zero time (expected peak_flops, mem_bw, "
                       "fractions and latencies in a physical range)"},
};

const char *tw_field_expectation(const char *field)
{
    size_t i;
    if (field != NULL)
        for (i = 0; i < sizeof expectations / sizeof expectations[0]; i++)
            if (strcmp(field, expectations[i].field) == 0) return expectations[i].expect;
    return "expected a valid value";
}
