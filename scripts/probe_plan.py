"""The measurement plans of scripts/probe: which GEMMs and attention kernels each set measures.

Pure Python (no PyTorch), so that --help, --dry-run and the plan work on any machine.
"""
import re

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
GEMM_SETS = ("peak", "paper", "linears", "align", "bmm", "splitk", "store", "misalign", "random", "layout", "dtypes")
DEFAULT_SETS = GEMM_SETS[:-2] + ("bw", "attention")
# only when asked for: the random shapes under bf16/fp16 x nn/nt, random shapes in every dtype, layer forwards
# and decode steps
ALL_SETS = DEFAULT_SETS + ("layout", "dtypes", "layers", "decode", "hf")



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
    if "dtypes" in sets:
        plan.extend(dtype_shapes(60 if quick else 300))
    if "layout" in sets:
        # the random set's shapes under bf16 and fp16, nn and nt each: does the layout change the rate?
        for _, label, m, n, k, batch, _, _ in random_shapes(60 if quick else 240):
            for dt in ("bf16", "fp16"):
                for layout in ("nn", "nt"):
                    plan.append(("layout", label, m, n, k, batch, dt, layout))
    return plan


SHAPE_DTYPES = ("bf16", "fp16", "tf32", "fp32", "fp8", "int8")


def shapes_from_csv(path):
    """Rows (set, label, m, n, k, batch, dtype, layout) from a CSV file with a header naming at least m, n and k
    (the columns of gemm.csv do; batch 1, dtype bf16, layout nn, set `shapes` and label s0, s1, ... where a
    column is absent). Raises ValueError with a one-line message naming the row, the field and the value."""
    import csv
    try:
        f = open(path, newline="")
    except OSError as e:
        raise ValueError("--shapes: cannot read %s: %s" % (path, e.strerror))
    with f:
        reader = csv.DictReader(f)
        fields = [c.strip() for c in (reader.fieldnames or [])]
        missing = [c for c in ("m", "n", "k") if c not in fields]
        if missing:
            raise ValueError("--shapes %s: expected a header with columns m, n, k; missing %s"
                             % (path, ", ".join(missing)))
        out = []
        for i, raw in enumerate(reader, 2):
            row = {(key or "").strip(): (val or "").strip() for key, val in raw.items()}
            dims = []
            for col, default in (("m", None), ("n", None), ("k", None), ("batch", "1")):
                val = row.get(col) or default
                if val is None or not re.fullmatch(r"[0-9]+", val) or int(val) < 1:
                    raise ValueError("--shapes %s line %d: %s: expected a positive integer, got %r" % (path, i, col, val))
                dims.append(int(val))
            dt = row.get("dtype") or "bf16"
            if dt not in SHAPE_DTYPES:
                raise ValueError("--shapes %s line %d: dtype: expected one of %s, got %r"
                                 % (path, i, ", ".join(SHAPE_DTYPES), dt))
            layout = row.get("layout") or "nn"
            if layout not in ("nn", "nt"):
                raise ValueError("--shapes %s line %d: layout: expected nn or nt, got %r" % (path, i, layout))
            out.append((row.get("set") or "shapes", row.get("label") or "s%d" % len(out)) + tuple(dims) + (dt, layout))
    if not out:
        raise ValueError("--shapes %s: expected at least one row of shapes, got none" % path)
    return out


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


# dtype, layout and share of the `dtypes` set: the dtypes whose kernels the bf16/fp16 sets do not reach
DTYPE_MIX = (("tf32", "nn", 0.25), ("int8", "nt", 0.25), ("fp8", "nt", 0.2), ("fp32", "nn", 0.1), ("bf16", "nt", 0.2))


def dtype_shapes(count, seed=1126):
    """Random shapes in every dtype, drawn as ../shared/reference/calibration/random_half/README.md describes its
    set (a fitted set here, with its own seed): M, N, K log-uniform over [16, 16384], each rounded down to a
    multiple of 64 (40%) or of 8 (30%) or left as drawn; redrawn above 4 TFLOP (0.4 for fp32) or below 1 MFLOP.
    The dtypes' API rules: fp8 (torch._scaled_mm) M, N, K multiples of 16; int8 (torch._int_mm) N and K multiples
    of 8, M at least 32. Dtypes and layouts in the shares of DTYPE_MIX."""
    import math
    import random
    rng, out = random.Random(seed), []
    for dt, layout, share in DTYPE_MIX:
        made = 0
        while made < int(round(count * share)):
            dims = []
            for _ in range(3):
                x = int(math.exp(rng.uniform(math.log(16), math.log(16384))))
                u = rng.random()
                q = 64 if u < 0.4 else (8 if u < 0.7 else 1)
                dims.append(max(q, x // q * q))
            m, n, k = dims
            if dt == "fp8":
                m, n, k = (max(16, x // 16 * 16) for x in (m, n, k))
            elif dt == "int8":
                m, n, k = max(32, m), max(8, n // 8 * 8), max(8, k // 8 * 8)
            flop = 2.0 * m * n * k
            if flop < 1e6 or flop > (0.4e12 if dt == "fp32" else 4e12):
                continue
            out.append(("dtypes", "d%03d" % len(out), m, n, k, 1, dt, layout))
            made += 1
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
