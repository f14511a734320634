/*
 * tilewave.h - the public C interface of libtilewave.
 *
 * A small numeric library: cost primitives for transformer workloads on GPUs.
 * No I/O, no globals, no allocation. Every function validates what it is given
 * and returns a status code; outputs are written only on TW_OK. When a status
 * other than TW_OK is returned and `bad_field` is not NULL, *bad_field names the
 * offending input field (a static string such as "m" or "device.mem_bw").
 *
 * Units, everywhere: FLOP, byte, second, FLOP/s, byte/s (SI, no prefixes).
 * Shape convention: C[M x N] = A[M x K] . B[K x N], K the reduction dimension.
 */
#ifndef TILEWAVE_H
#define TILEWAVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TW_VERSION "0.1.0"

/* Status codes. */
enum {
    TW_OK = 0,     /* success */
    TW_EINVAL = 1, /* a field is zero, negative, NaN, infinite or not allowed */
    TW_ERANGE = 2  /* a field, or a product of fields, is larger than supported */
};

/* Which resource limits an estimate. */
enum {
    TW_BOUND_COMPUTE = 0,  /* math throughput (tensor cores / ALUs) */
    TW_BOUND_MEMORY = 1,   /* DRAM bandwidth */
    TW_BOUND_OVERHEAD = 2  /* fixed per-call cost (launch, synchronization) */
};

/* Human-readable text for a status code ("ok", "invalid argument", ...). */
const char *tw_strerror(int status);

/* "compute", "memory" or "overhead"; "unknown" for any other value. */
const char *tw_bound_name(int bound);

/*
 * What a valid value of an input field looks like, for error messages:
 * tw_field_expectation("m") -> "expected positive integer". Unknown fields
 * give "expected a valid value". Never NULL.
 */
const char *tw_field_expectation(const char *field);

/* Largest accepted GEMM dimension (M, N, K) and batch count: 2^31 - 1. */
#define TW_DIM_MAX INT64_C(2147483647)
/* Largest accepted product M*N*batch (output elements): 2^53, exact in a double. */
#define TW_OUTPUT_MAX 9007199254740992.0

/* ------------------------------------------------------------------------ */
/* Roofline                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * Roofline input. Source: Williams, Waterman & Patterson, "Roofline" (CACM
 * 2009); NVIDIA GPU Performance Background guide, "Understanding Performance":
 * T_math = ops / BW_math, T_mem = bytes / BW_mem, time = max(T_math, T_mem).
 */
typedef struct {
    double flops;        /* work, FLOP; > 0, finite */
    double bytes;        /* DRAM traffic, byte; > 0, finite */
    double peak_flops;   /* peak math rate for the dtype, FLOP/s; > 0 */
    double compute_frac; /* achievable fraction of peak_flops; (0, 1] */
    double mem_bw;       /* peak memory bandwidth, byte/s; > 0 */
    double mem_frac;     /* achievable fraction of mem_bw; (0, 1] */
} tw_roofline_input;

typedef struct {
    double time_s;    /* max(compute_s, memory_s), s */
    double compute_s; /* flops / (peak_flops * compute_frac), s */
    double memory_s;  /* bytes / (mem_bw * mem_frac), s */
    double intensity; /* arithmetic intensity flops / bytes, FLOP/byte */
    double ridge;     /* ops:byte ratio (ridge point) of the achievable roof:
                         (peak_flops*compute_frac) / (mem_bw*mem_frac), FLOP/byte */
    int bound;        /* TW_BOUND_COMPUTE if intensity >= ridge, else TW_BOUND_MEMORY */
} tw_roofline_result;

/*
 * Roofline bound of a kernel. Returns TW_OK, or TW_EINVAL naming the field
 * (flops, bytes, peak_flops, compute_frac, mem_bw, mem_frac) that is not a
 * positive finite number (fractions must also be <= 1), or TW_ERANGE naming
 * the product or quotient that overflows or underflows ("peak_flops*compute_frac",
 * "flops/(peak_flops*compute_frac)", "flops/bytes", ...): every output of TW_OK
 * is finite and positive. Inputs within 1e-30..1e30 (fractions >= 1e-6) never
 * reach TW_ERANGE.
 * Example (NVIDIA matmul guide): V100 fp16, 125e12 / 900e9 -> ridge 138.9 FLOP/B.
 */
int tw_roofline(const tw_roofline_input *in, tw_roofline_result *out, const char **bad_field);

#include "tw_gemm.h" /* GEMM / batched GEMM: tw_tile, tw_device, tw_gemm_estimate() */
#include "tw_pass.h" /* a whole forward pass in one call: tw_pass_estimate() */
#include "tw_serve.h" /* a serving simulation over priced step costs: tw_serve_run() */

/* ------------------------------------------------------------------------ */
/* Decode step (LLM generation), KV cache and the memory budget              */
/* ------------------------------------------------------------------------ */

/*
 * One decode step: every sequence of the batch generates one token. It reads
 * every weight once (shared by the batch) and each sequence's whole KV cache.
 * Sources: the memory-bound decode analysis of Pope et al. 2022, "Efficiently
 * Scaling Transformer Inference" §2 (arXiv 2211.05102), and the gpt-fast
 * README (model bytes x tokens/s = achieved bandwidth); KV cache size
 * 2 * L * kv_heads * head_dim * context * batch * bytes (K and V per layer).
 *
 *   weight_s  = weight_bytes / (mem_bw * mem_frac)
 *   kv_s      = kv_bytes / (mem_bw * mem_frac * kv_eff)  (kv_eff: the share of the
 *               SMs the attention kernel keeps streaming, tw_splitkv; 0 means 1)
 *   act_s     = act_bytes / (mem_bw * mem_frac)
 *   memory_s  = weight_s + kv_s + act_s
 *   dequant_s = matmul_params * dequant_ops / vector_flops  (unpacking and
 *               scaling quantized weights on the ALUs, once per weight per step)
 *   compute_s = flops / (peak_flops * compute_frac), flops = 2 * matmul_params
 *               * batch + 2 * layers * q_heads * attn_dim * context * batch,
 *               attn_dim = the score width plus the value width per head (default
 *               2 * head_dim; MLA with absorbed projections: 576 + 512)
 *   overhead_s = kernels * launch_s
 *   tpot_s    = overhead_s + max(compute_s, memory_s + dequant_s)
 * All model figures are per tensor-parallel rank.
 */
typedef struct {
    double weight_bytes;   /* weight bytes read per step incl. quantization scales, byte; > 0 */
    double matmul_params;  /* weights multiplied per token (2 FLOP each), count; > 0 */
    double dequant_ops;    /* ALU operations per weight to dequantize; >= 0 (0 for native dtypes) */
    double layers;         /* L; integer >= 1 */
    double kv_heads;       /* key/value heads per rank; integer >= 1 */
    double q_heads;        /* query heads per rank; integer >= 1 */
    double head_dim;       /* elements per head; integer >= 1 */
    double kv_elem_bytes;  /* bytes per KV cache element (2 bf16/fp16, 1 fp8/int8); > 0 */
    double context;        /* tokens in each sequence's KV cache; integer >= 1 */
    double batch;          /* sequences decoded together; integer >= 1 */
    double act_bytes;      /* other DRAM traffic per step (activations, logits), byte; >= 0 */
    double peak_flops;     /* dense peak of the compute dtype, FLOP/s; > 0 */
    double compute_frac;   /* achievable fraction of peak_flops; (0, 1] */
    double vector_flops;   /* ALU (non-tensor-core) rate for dequantization, op/s; > 0 */
    double mem_bw;         /* DRAM bandwidth, byte/s; > 0 */
    double mem_frac;       /* achievable fraction of mem_bw; (0, 1] */
    double kernels;        /* kernel launches per step; >= 0 */
    double launch_s;       /* time per launch not hidden by the queue, s; >= 0 */
    double attn_dim;       /* score + value elements per query head per cached token (2 FLOP
                              each); 0 means 2 * head_dim; >= 0 */
    double kv_eff;         /* share of the DRAM rate the attention kernels reach on the KV cache
                              (tw_splitkv's efficiency); 0 means 1; [0, 1] */
} tw_decode_input;

typedef struct {
    double tpot_s;                 /* time per output token (one step), s */
    double tokens_per_s;           /* per sequence: 1 / tpot_s, token/s */
    double aggregate_tokens_per_s; /* batch / tpot_s, token/s */
    double bytes;                  /* weight + KV + activation bytes per step, byte */
    double weight_bytes;           /* byte */
    double kv_bytes;               /* 2 * layers * kv_heads * head_dim * context * batch * kv_elem_bytes, byte */
    double flops;                  /* FLOP per step */
    double compute_s, memory_s, dequant_s, overhead_s; /* s */
    double achieved_bw;            /* bytes / tpot_s, byte/s */
    double intensity;              /* flops / bytes, FLOP/byte */
    int bound;                     /* largest of compute_s, memory_s + dequant_s, overhead_s */
} tw_decode_result;

/* TW_OK; TW_EINVAL naming the first bad field; TW_ERANGE when element counts exceed 2^53
 * ("context*batch", "batch") or a product or quotient of valid fields leaves the finite
 * positive range ("q_heads*head_dim*context*batch", "flops/(peak_flops*compute_frac)",
 * "bytes/(mem_bw*mem_frac)", "tpot_s", ...). Every output of TW_OK is finite. */
int tw_decode_step(const tw_decode_input *in, tw_decode_result *out, const char **bad_field);

/*
 * Decode attention's occupancy: how many SMs a decode attention kernel keeps
 * streaming the KV cache. Without a split over the context, the kernel runs one
 * thread block per (sequence, query head) (FlashAttention before 2.2), so with
 * batch x heads below the SM count most SMs idle. FlashDecoding (Dao, Haziza, Massa, Sizov 2023, "Flash-Decoding for
 * long-context inference"; flash-attn >= 2.2) splits the context so that every
 * SM streams, choosing the split count as flash-attn's num_splits_heuristic
 * does (Dao-AILab/flash-attention csrc/flash_attn/flash_api.cpp):
 *
 *   blocks >= 0.8 * slots            -> 1 split
 *   else, for s = 1 .. min(max_splits, slots, kv_blocks), skipping an s whose
 *   ceil(kv_blocks / s) equals that of s - 1:  eff(s) = w / ceil(w),
 *   w = blocks * s / slots;  splits = the smallest s with eff(s) >= 0.85 * max eff
 *
 * with slots = 2 x SMs (flash-attn: 128-thread blocks, two per SM) and
 * kv_blocks = ceil(context / block_n), block_n = 256 for head_dim <= 64, 128
 * for <= 128, else 64. A memory-bound stream's rate scales with the SMs
 * issuing loads (each SM holds a bounded number of bytes in flight), and one
 * block per SM reaches the device's rate, so
 *
 *   efficiency = min(1, blocks * splits / sms)
 *
 * max_splits = 0 prices the kernel without a split (FlashAttention before
 * 2.2): splits = 1.
 */
typedef struct {
    double blocks;     /* thread blocks without a split: batch * query heads (FlashAttention before 2.2), or
                          batch * kv_heads * ceil(q_per_kv / 64) where the split kernel packs a GQA group's
                          queries into one block of 64 rows (flash-attn's seqlenq_ngroups_swapped); integer >= 1 */
    double kv_blocks;  /* key/value blocks along the context, ceil(context / block_n); integer >= 1 */
    double sms;        /* streaming multiprocessors; integer in [1, 65536] */
    double slots;      /* thread blocks resident at once (flash-attn: 2 x sms); integer in [1, 2^20] */
    double max_splits; /* 0: no split; else the most splits tried (flash-attn: 128); integer in [0, 4096] */
} tw_splitkv_input;

typedef struct {
    double splits;     /* context splits chosen; integer >= 1 */
    double blocks;     /* thread blocks launched: blocks * splits */
    double efficiency; /* min(1, blocks * splits / sms): the share of the DRAM rate reached; (0, 1] */
} tw_splitkv_result;

/* TW_OK; TW_EINVAL naming the first bad field (blocks, kv_blocks, sms, slots, max_splits).
 * Every output of TW_OK is finite. */
int tw_splitkv(const tw_splitkv_input *in, tw_splitkv_result *out, const char **bad_field);

/*
 * Memory budget of inference: resident weights + KV cache + workspace against
 * device memory. The KV cache holds kv_bytes_per_token * context * batch.
 */
typedef struct {
    double weight_bytes;       /* resident weight bytes (incl. embeddings, scales), byte; > 0 */
    double kv_bytes_per_token; /* per token of one sequence: 2 * L * kv_heads * head_dim * elem bytes; > 0 */
    double context;            /* tokens per sequence; integer >= 1 */
    double batch;              /* sequences; integer >= 1 */
    double workspace_bytes;    /* activations, allocator slack, runtime, byte; >= 0 */
    double memory_bytes;       /* device memory, byte; > 0 */
} tw_memory_input;

typedef struct {
    double kv_bytes;    /* kv_bytes_per_token * context * batch, byte */
    double total_bytes; /* weights + KV + workspace, byte */
    double free_bytes;  /* memory - total (negative when it does not fit), byte */
    int fits;           /* total_bytes <= memory_bytes */
    double max_batch;   /* largest batch at this context that fits; 0 if none */
    double max_context; /* largest context at this batch that fits; 0 if none */
} tw_memory_result;

/* TW_OK; TW_EINVAL naming the first bad field; TW_ERANGE when context*batch exceeds 2^53,
 * the KV bytes overflow ("kv_bytes_per_token*context*batch"), or max_batch / max_context
 * would exceed 2^53 ("memory_bytes/kv_bytes_per_token", a vanishing per-token size).
 * Every output of TW_OK is finite. */
int tw_memory_fit(const tw_memory_input *in, tw_memory_result *out, const char **bad_field);

/* ------------------------------------------------------------------------ */
/* Attention IO: standard against FlashAttention                              */
/* ------------------------------------------------------------------------ */

/*
 * HBM traffic and memory of exact attention over `heads` independent (batch x
 * head) problems of N tokens and head dim d. Source: Dao et al. 2022,
 * "FlashAttention" (arXiv 2205.14135): Algorithm 0 (standard) reads Q, K,
 * writes S, reads S, writes P, reads P and V, writes O: 4Nd + 4N^2 elements,
 * Theta(Nd + N^2) per head (§3.2, Theorem 2); Algorithm 1 (tiled) with SRAM
 * of M elements uses blocks Bc = ceil(M / 4d), Br = min(Bc, d), reads K and V
 * once and Q, O, l, m once per column block (Tc = ceil(N / Bc) passes):
 * 2Nd + Tc * (3Nd elements + 4N fp32 statistics), Theta(N^2 d^2 / M).
 * Memory: standard holds Q, K, V, O and the N x N matrices S and P; FlashAttention
 * holds Q, K, V, O and l, m.
 * Backward (same paper, Appendix B): the standard pass (Algorithm 3) reads P and dO
 * (dV), dO and V (writes dP), P and dP (writes dS), dS and K (dQ), dS and Q (dK):
 * 8Nd + 7N^2 elements; FlashAttention's (Algorithm 4) reads K, V and writes dK, dV
 * once and per column block reads Q, O, dO, dQ and writes dQ: 4Nd + Tc * 5Nd
 * elements, plus l and m (2N fp32) per block.
 */
typedef struct {
    double seq_len;     /* N, tokens; integer >= 1 */
    double head_dim;    /* d; integer >= 1 */
    double heads;       /* batch * heads (independent problems); integer >= 1 */
    double elem_bytes;  /* bytes per element of Q, K, V, S, P, O; > 0 */
    double sram_bytes;  /* on-chip SRAM per SM available to the kernel (M), byte; > 0 */
} tw_attention_input;

typedef struct {
    double standard_bytes;     /* HBM traffic of Algorithm 0, byte */
    double flash_bytes;        /* HBM traffic of Algorithm 1, byte */
    double standard_mem_bytes; /* memory held, byte */
    double flash_mem_bytes;    /* memory held, byte */
    double standard_bwd_bytes; /* HBM traffic of the standard backward pass (Algorithm 3), byte */
    double flash_bwd_bytes;    /* HBM traffic of the FlashAttention backward pass (Algorithm 4), byte */
    double block_cols;         /* Bc */
    double block_rows;         /* Br */
    double passes;             /* Tc = ceil(N / Bc) */
} tw_attention_result;

/* TW_OK; TW_EINVAL naming the first bad field (counts must be integers <= 2^53, and the SRAM
 * must hold 4 * head_dim elements); TW_ERANGE when sram_bytes/elem_bytes is not finite or the
 * traffic overflows ("heads*seq_len*seq_len*elem_bytes"). Every output of TW_OK is finite. */
int tw_attention_io(const tw_attention_input *in, tw_attention_result *out, const char **bad_field);

/* ------------------------------------------------------------------------ */
/* Collectives (alpha-beta model)                                            */
/* ------------------------------------------------------------------------ */

enum {
    TW_ALLREDUCE_RING = 0,
    TW_ALLREDUCE_TREE = 1,
    TW_ALLGATHER_RING = 2,
    TW_REDUCESCATTER_RING = 3,
    TW_P2P = 4,
    TW_ALLTOALL = 5
};

/*
 * Time of a collective over `group` ranks for a message of `bytes` (the full
 * buffer each rank holds at the end of all-reduce / all-gather, or starts
 * with in reduce-scatter), with per-step latency alpha and per-rank link
 * bandwidth beta (one direction). Source: Thakur, Rabenseifner & Gropp 2005,
 * "Optimization of Collective Communication Operations in MPICH" (IJHPCA 19:1):
 *   ring all-reduce      2(p-1) alpha + 2 (p-1)/p n / beta
 *   ring all-gather, reduce-scatter  (p-1) alpha + (p-1)/p n / beta
 *   tree all-reduce      2 ceil(log2 p) alpha + 2 n / beta (pipelined reduce + broadcast)
 *   point-to-point       alpha + n / beta
 *   all-to-all (pairwise exchange, long messages)  (p-1) alpha + (p-1)/p n / beta
 *                        (n: the bytes each rank holds; it keeps 1/p and sends the rest)
 * p = 1 costs 0.
 */
typedef struct {
    int kind;          /* TW_ALLREDUCE_RING ... TW_ALLTOALL */
    double bytes;      /* message size n, byte; > 0 */
    double group;      /* ranks p; integer >= 1 */
    double link_bw;    /* beta, byte/s per rank per direction; > 0 */
    double latency_s;  /* alpha, s per step; >= 0 */
} tw_collective_input;

typedef struct {
    double time_s;    /* s */
    double steps;     /* latency terms paid */
    double wire_bytes;/* bytes each rank sends, byte */
    double bus_bw;    /* wire_bytes / time_s, byte/s (NCCL tests' "bus bandwidth") */
} tw_collective_result;

/* TW_OK; TW_EINVAL naming the first bad field (kind, bytes, group <= 1e6, link_bw, latency_s);
 * TW_ERANGE "bytes/link_bw" when the time underflows to 0 (a subnormal message on a link with
 * no latency) or overflows. Every output of TW_OK is finite (p = 1: all zero). */
int tw_collective(const tw_collective_input *in, tw_collective_result *out, const char **bad_field);

#ifdef __cplusplus
}
#endif

#endif /* TILEWAVE_H */
