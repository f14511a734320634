"""The measurement plans of scripts/probe: which GEMMs and attention kernels each set measures.

Pure Python (no PyTorch), so that --help, --dry-run and the plan work on any machine.
"""

# Model shapes for the `linears` set: hidden size h, query heads, KV heads, head dim, MLP width
# (gate/up fused for SwiGLU models), vocabulary, SwiGLU?  Source: Hugging Face config.json values
# as listed in ../shared/reference/model_configs.md (hidden_size, num_attention_heads,
# num_key_value_heads, intermediate_size, vocab_size).
MODELS = {
    "llama-2-7b": (4096, 32, 32, 128, 11008, 32000, True),
    "llama-2-13b": (5120, 40, 40, 128, 13824, 32000, True),
    "llama-2-70b": (8192, 64, 8, 128, 28672, 32000, True),
    "llama-3-8b": (4096, 32, 8, 128, 14336, 128256, True),
    "llama-3.2-1b": (2048, 32, 8, 64, 8192, 128256, True),
    "pythia-2.8b": (2560, 32, 32, 80, 10240, 50304, False),
    "pythia-12b": (5120, 40, 40, 128, 20480, 50688, False),
}
QUICK_MODELS = ("llama-2-7b", "llama-3-8b")
TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
QUICK_TOKENS = (1, 16, 128, 1024, 4096, 16384)
GEMM_SETS = ("peak", "paper", "linears", "align", "bmm", "splitk", "store", "misalign", "random", "layout")
DEFAULT_SETS = GEMM_SETS[:-1] + ("bw", "attention")
# only when asked for: the random shapes under every (dtype, layout), layer forwards and decode steps
ALL_SETS = DEFAULT_SETS + ("layout", "layers", "decode")



def linears(quick):
    """(label, m, n, k) of every projection of the models, tensor-parallel shards t = 1, 2, 4, 8."""
    out = []
    for name in (QUICK_MODELS if quick else MODELS):
        h, a, kv, hd, ffn, vocab, glu = MODELS[name]
        for t in (1, 2, 4, 8):
            if a % t or (kv % t and kv >= t):
                continue
            kv_t = max(1, kv // t)
            ops = [("qkv", (a // t + 2 * kv_t) * hd, h), ("o", h, a // t * hd),
                   ("up", (2 if glu else 1) * ffn // t, h), ("down", h, ffn // t)]
            if t == 1:
                ops.append(("lm_head", vocab, h))
            for tokens in (QUICK_TOKENS if quick else TOKENS):
                for op, n, k in ops:
                    out.append(("%s/%s/t%d" % (name, op, t), tokens, n, k))
    return out


def gemm_plan(sets, quick):
    """Rows (set, label, m, n, k, batch, dtype, layout) to measure."""
    plan = []
    if "peak" in sets:
        dtypes = ("bf16", "fp16", "fp8") if quick else ("bf16", "fp16", "tf32", "fp32", "fp8", "int8")
        for dt in dtypes:
            for s in ((4096, 8192) if quick else (4096, 8192, 16384)):
                if dt == "fp32" and s > 8192:
                    continue
                plan.append(("peak", "square%d" % s, s, s, s, 1, dt, "nn"))
    if "paper" in sets:
        # The co-design paper's sweeps (arXiv 2401.14489, Sec. IV and VI): squares, a tile-quantization sweep
        # (M=27648, K=4096), a wave-quantization sweep (M=2304, K=4096), the logit GEMM over vocabulary sizes
        # and the SwiGLU batched GEMM near 8h/3.
        step = 4 if quick else 1
        for s in (128, 256, 512, 1024, 2048, 4096, 8192, 16384)[::(2 if quick else 1)]:
            plan.append(("paper", "square", s, s, s, 1, "fp16", "nn"))
        for n in range(64, 2048 + 1, 32 * step):
            plan.append(("paper", "tile_sweep", 27648, n, 4096, 1, "fp16", "nn"))
        for n in range(1728, 8640 + 1, 96 * step):
            plan.append(("paper", "wave_sweep", 2304, n, 4096, 1, "fp16", "nn"))
        for v in range(50257, 50320, 3 if not quick else 9):
            plan.append(("paper", "logit_v", 8192, v, 4096, 1, "bf16", "nn"))
        for k in range(10880, 10960, 4 if not quick else 16):
            plan.append(("paper", "swiglu_bmm", 4096, 4096, k, 4, "bf16", "nn"))
    if "linears" in sets:
        for label, m, n, k in linears(quick):
            plan.append(("linears", label, m, n, k, 1, "bf16", "nt"))
    if "align" in sets:
        for dt in ("bf16", "fp16", "tf32", "fp8"):
            for d in (0, 1, 2, 4, 8, 16, 32, 64)[:(4 if quick else 8)]:
                if dt == "fp8" and d % 16:
                    continue  # torch._scaled_mm needs multiples of 16
                s = 4096 + d
                plan.append(("align", "all", s, s, s, 1, dt, "nn"))
                if d:
                    plan.append(("align", "k_only", 4096, 4096, s, 1, dt, "nn"))
                    plan.append(("align", "n_only", 4096, s, 4096, 1, dt, "nn"))
                    plan.append(("align", "m_only", s, 4096, 4096, 1, dt, "nn"))
        # memory-bound shapes off alignment (short K, large C): the bandwidth of the misaligned kernels
        for d in (0, 1, 2, 4, 8, 16)[:(3 if quick else 6)]:
            plan.append(("align", "mem_n", 8192, 4096 + d, 128, 1, "bf16", "nn"))
            if d:
                plan.append(("align", "mem_k", 8192, 4096, 128 + d, 1, "bf16", "nn"))
    if "bmm" in sets:
        for hd in (64, 128):
            for s in ((512, 2048) if quick else (512, 1024, 2048, 4096)):
                for bh in (32, 128, 512):
                    plan.append(("bmm", "score/hd%d" % hd, s, s, hd, bh, "bf16", "nn"))
                    plan.append(("bmm", "aov/hd%d" % hd, s, hd, s, bh, "bf16", "nn"))
    if "splitk" in sets:
        # small outputs with long K: split-K (and its reduction kernel) or a latency-bound main loop
        for m, n in ((64, 64), (64, 256), (128, 128), (256, 256))[:(2 if quick else 4)]:
            for k in (256, 512, 1024, 2048, 4096, 8192, 16384)[::(2 if quick else 1)]:
                plan.append(("splitk", "out%dx%d" % (m, n), m, n, k, 1, "bf16", "nn"))
    if "store" in sets:
        # short K, large C (M x N up to 16384^2): the output store, not the main loop, sets the time; the
        # number of tiles and waves varies over three orders of magnitude
        sizes = (1024, 2048, 4096, 8192, 16384)[::(2 if quick else 1)]
        for k in ((64,) if quick else (64, 128)):
            for m in sizes:
                for n in sizes:
                    plan.append(("store", "k%d" % k, m, n, k, 1, "bf16", "nn"))
    if "misalign" in sets:
        plan.extend(misaligned_shapes(40 if quick else 160))
    if "random" in sets:
        plan.extend(random_shapes(60 if quick else 240))
    if "layout" in sets:
        # the random set's shapes under bf16 and fp16, nn and nt each: does the layout change the rate?
        for _, label, m, n, k, batch, _, _ in random_shapes(60 if quick else 240):
            for dt in ("bf16", "fp16"):
                for layout in ("nn", "nt"):
                    plan.append(("layout", label, m, n, k, batch, dt, layout))
    return plan


def misaligned_shapes(count, seed=90):
    """Small and mid-size GEMMs off 16-byte alignment, each in bf16 and fp16 (a fitted set, unlike `random`):
    M, N, K log-uniform over [16, 8192]; N and K each any integer (50%) or a multiple of 8, at least one of them
    not a multiple of 8. cuBLAS runs such shapes on its older CUTLASS kernels, whose tiles differ by dtype
    (hw/measured/h200_layout_2026-11-22/README.md)."""
    import math
    import random
    rng, out = random.Random(seed), []
    while len(out) < 2 * count:
        m, n, k = (int(round(math.exp(rng.uniform(math.log(16), math.log(8192))))) for _ in range(3))
        n, k = (x if rng.random() < 0.5 else max(8, x // 8 * 8) for x in (n, k))
        if n % 8 == 0 and k % 8 == 0:
            continue
        for dt in ("bf16", "fp16"):
            out.append(("misalign", "m%03d" % (len(out) // 2), m, n, k, 1, dt, "nn"))
    return out


def random_shapes(count, seed=2401):
    """Held-out check shapes: M, N, K log-uniform over [16, 16384], each a multiple of 64 (60%), of 8 (25%)
    or any integer (15%); bf16 (75%) or fp16; layout nn or nt. The fit leaves this set out
    (`tilewave calibrate --holdout`), so its error measures how the fitted file generalizes. A fixed seed
    makes the plan the same on every machine."""
    import math
    import random
    rng, out = random.Random(seed), []
    for i in range(count):
        dims = []
        for _ in range(3):
            x = math.exp(rng.uniform(math.log(16), math.log(16384)))
            u = rng.random()
            q = 64 if u < 0.6 else (8 if u < 0.85 else 1)
            dims.append(max(q, int(round(x / q)) * q))
        dt = "bf16" if rng.random() < 0.75 else "fp16"
        layout = "nn" if rng.random() < 0.5 else "nt"
        out.append(("random", "r%03d" % i, dims[0], dims[1], dims[2], 1, dt, layout))
    return out


def attention_plan(quick):
    """(impl, b, heads, s, hd, pass): 16384 tokens per batch, as the shared attention.csv."""
    out = []
    for impl in ("cudnn", "flash", "efficient"):
        for hd in (64, 128):
            for s in ((512, 2048, 8192) if quick else (512, 1024, 2048, 4096, 8192, 16384)):
                for p in ("fwd", "fwd+bwd"):
                    out.append((impl, 16384 // s, 32, s, hd, p))
    return out
