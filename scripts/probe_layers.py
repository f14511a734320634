"""Layer forwards and decode steps for scripts/probe (its `layers` and `decode` sets).

The code is plain, unfused PyTorch as Hugging Face's eager models run it, so the files match
../shared/reference/calibration/h100/layers.csv and decode.csv (that folder's README describes the layers):
- GPT-NeoX (Pythia): LayerNorm, fused QKV with bias, partial rotary (rotary_pct 0.25), parallel residual,
  GELU MLP with bias (transformers' modeling_gpt_neox.py);
- Llama (Llama, Mistral, Qwen2): RMSNorm computed in fp32 (upcast, pow, mean, rsqrt, mul, downcast), fused
  QKV (with bias where config.json's attention_bias / Qwen2 says so) and fused gate/up projections, rotary,
  SwiGLU (modeling_llama.py);
- ModernBERT global layer: LayerNorm without bias, fused QKV, rotary, bidirectional attention, GeGLU
  (modeling_modernbert.py).
Attention `standard` materializes the scores (QK^T, scale, causal mask add, softmax in bf16, PV; GQA repeats K/V heads with
repeat_interleave); `flash` is F.scaled_dot_product_attention (grouped-query support for GQA).

A layer's forward runs under torch.no_grad(), b x s tokens. `graph` = device time of a CUDA graph of
back-to-back forwards (scripts/probe's Timer), `eager` = back-to-back eager forwards timed with CUDA events.
A decode step is the whole model at one new token per sequence with a bf16 KV cache preallocated to the
context: embedding, the layers, final RMSNorm and LM head (logits only, no sampling).

Imported by scripts/probe only when these sets are measured; needs PyTorch >= 2.5 on a GPU (enable_gqa).
"""
import csv
import os
import sys
import time

# (kind, h, a, kv, ffn, qkv_bias): config.json's hidden_size, num_attention_heads, num_key_value_heads,
# intermediate_size, and attention_bias (Qwen2: bias on q, k, v), as listed in
# ../shared/reference/model_configs.md and tilewave's lua/tilewave/data/families/.
LAYER_MODELS = {
    "pythia-160m": ("neox", 768, 12, 12, 3072, True),
    "pythia-410m": ("neox", 1024, 16, 16, 4096, True),
    "pythia-1b": ("neox", 2048, 8, 8, 8192, True),
    "pythia-1.4b": ("neox", 2048, 16, 16, 8192, True),
    "pythia-2.8b": ("neox", 2560, 32, 32, 10240, True),
    "pythia-6.9b": ("neox", 4096, 32, 32, 16384, True),
    "pythia-12b": ("neox", 5120, 40, 40, 20480, True),
    "gpt-neox-20b": ("neox", 6144, 64, 64, 24576, True),
    "llama-3.2-1b": ("llama", 2048, 32, 8, 8192, False),
    "llama-3.2-3b": ("llama", 3072, 24, 8, 8192, False),
    "llama-2-7b": ("llama", 4096, 32, 32, 11008, False),
    "llama-3-8b": ("llama", 4096, 32, 8, 14336, False),
    "mistral-7b": ("llama", 4096, 32, 8, 14336, False),
    "qwen2.5-7b": ("llama", 3584, 28, 4, 18944, True),
    "llama-2-13b": ("llama", 5120, 40, 40, 13824, False),
    "modernbert-base-global": ("bert", 768, 12, 12, 1152, False),
}
# Decode models: LAYER_MODELS' shapes plus num_hidden_layers and vocab_size (config.json).
DECODE_MODELS = {"llama-2-7b": (32, 32000), "llama-3-8b": (32, 128256)}

LAYERS_HEADER = ["gpu", "id", "kind", "h", "a", "kv", "ffn", "b", "s", "attention", "timing", "time_s", "params"]
DECODE_HEADER = ["gpu", "id", "batch", "context", "timing", "step_s", "tokens_per_s", "weight_bytes", "kv_bytes"]
LAYER_KERNELS_HEADER = ["gpu", "id", "attention", "idx", "kernel", "time_us"]


def layer_plan(quick):
    """(id, b, s, attention): every model at b=4 s=2048, the two 7-8B Llamas also at b=1 s=8192."""
    ids = ("pythia-1b", "llama-2-7b", "llama-3-8b", "modernbert-base-global") if quick else tuple(LAYER_MODELS)
    out = []
    for mid in ids:
        shapes = ((4, 2048), (1, 8192)) if mid in ("llama-2-7b", "llama-3-8b") else ((4, 2048),)
        for b, s in shapes:
            for att in ("standard", "flash"):
                out.append((mid, b, s, att))
    return out


def decode_plan(quick):
    """(id, batch, context, timing): the shared decode.csv's grid for Llama-2-7B, a few points for Llama-3-8B."""
    grid = [(1, 512), (1, 2048), (1, 8192), (4, 512), (4, 2048), (4, 8192), (16, 512), (16, 2048), (64, 512)]
    out = []
    for mid, points in (("llama-2-7b", grid[::3] if quick else grid),
                        ("llama-3-8b", [] if quick else [(1, 2048), (16, 2048), (64, 512)])):
        for batch, ctx in points:
            for timing in ("graph", "eager"):
                out.append((mid, batch, ctx, timing))
    return out


def layer_params(kind, h, a, kv, ffn):
    """Weight-matrix elements of one layer (no biases, no norms), as layers.csv's `params` column."""
    hd = h // a
    attn = h * (a + 2 * kv) * hd + a * hd * h
    return attn + (3 if kind == "llama" else 2) * h * ffn + (h * ffn if kind == "bert" else 0)


class Rotary:
    """Rotary embedding over the first rd dimensions, base 10000: cos/sin tables [s, rd/2] for positions
    [pos0, pos0 + s) computed in fp32 and cast, then per tensor x1*cos - x2*sin and x2*cos + x1*sin on the two
    halves, concatenated (and concatenated with the pass-through dimensions when rd < head dim): the kernels
    of ../shared/reference/calibration/h100/kernels.csv (mul, mul, add twice, then cat)."""

    def __init__(self, torch, rd, pos0, s, dev, dtype):
        inv = 1.0 / (10000 ** (torch.arange(0, rd, 2, device=dev, dtype=torch.float32) / rd))
        ang = torch.outer(torch.arange(pos0, pos0 + s, device=dev, dtype=torch.float32), inv)
        self.cos, self.sin, self.rd = ang.cos().to(dtype), ang.sin().to(dtype), rd

    def apply(self, torch, x):
        rd, half = self.rd, self.rd // 2
        x1, x2 = x[..., :half], x[..., half:rd]
        out = torch.cat((x1 * self.cos - x2 * self.sin, x2 * self.cos + x1 * self.sin), dim=-1)
        return out if rd == x.shape[-1] else torch.cat((out, x[..., rd:]), dim=-1)


class Layer:
    """One transformer layer's weights and forward. x: [b, s, h] -> [b, s, h]. kv_cache = (k, v, pos) for a
    decode step: k, v [b, kv, context, hd] filled at pos, attention over [0, pos]."""

    def __init__(self, torch, kind, h, a, kv, ffn, qkv_bias, dev, dtype):
        nn, self.t = torch.nn, torch
        self.kind, self.h, self.a, self.kv, self.hd = kind, h, a, kv, h // a
        lin = lambda i, o, bias: nn.Linear(i, o, bias=bias, device=dev, dtype=dtype)  # noqa: E731
        if kind == "neox":
            self.n1, self.n2 = (nn.LayerNorm(h, device=dev, dtype=dtype) for _ in range(2))
            self.qkv, self.o = lin(h, 3 * h, True), lin(h, h, True)
            self.up, self.down = lin(h, ffn, True), lin(ffn, h, True)
        elif kind == "bert":
            self.n1, self.n2 = (nn.LayerNorm(h, bias=False, device=dev, dtype=dtype) for _ in range(2))
            self.qkv, self.o = lin(h, 3 * h, False), lin(h, h, False)
            self.up, self.down = lin(h, 2 * ffn, False), lin(ffn, h, False)
        else:
            self.w1, self.w2 = (torch.ones(h, device=dev, dtype=dtype) for _ in range(2))
            self.qkv, self.o = lin(h, (a + 2 * kv) * self.hd, qkv_bias), lin(a * self.hd, h, False)
            self.up, self.down = lin(h, 2 * ffn, False), lin(ffn, h, False)
        self.causal = kind != "bert"

    def rms(self, x, w):
        t = self.t
        x32 = x.to(t.float32)
        var = x32.pow(2).mean(-1, keepdim=True)
        return w * (x32 * t.rsqrt(var + 1e-5)).to(x.dtype)

    def attention(self, q, k, v, mode, mask, causal):
        """q [b, a, s, hd], k and v [b, kv, t, hd] -> [b, s, a*hd]; mask [1, 1, s, t] is added (standard mode)."""
        t, F = self.t, self.t.nn.functional
        b, _, s, hd = q.shape
        if mode == "flash":
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                               enable_gqa=self.kv < self.a)
        else:
            if self.kv < self.a:
                k = k.repeat_interleave(self.a // self.kv, dim=1)
                v = v.repeat_interleave(self.a // self.kv, dim=1)
            w = t.matmul(q, k.transpose(2, 3)) * hd ** -0.5
            if mask is not None:
                w = w + mask
            o = t.matmul(F.softmax(w, dim=-1), v)  # bf16 softmax, as the shared kernels.csv shows
        return o.transpose(1, 2).contiguous().reshape(b, s, self.a * hd)

    def forward(self, x, rope, mode, mask, kv_cache=None):
        t, F = self.t, self.t.nn.functional
        b, s, h = x.shape
        a, kv, hd = self.a, self.kv, self.hd
        if self.kind == "llama":
            y = self.rms(x, self.w1)
            q, k, v = self.qkv(y).split((a * hd, kv * hd, kv * hd), dim=-1)
            q, k, v = (z.view(b, s, -1, hd).transpose(1, 2) for z in (q, k, v))
        elif self.kind == "neox":
            y = self.n1(x)
            qkv = self.qkv(y).view(b, s, a, 3 * hd)
            q, k, v = (qkv[..., i * hd:(i + 1) * hd].permute(0, 2, 1, 3) for i in range(3))
        else:
            y = self.n1(x)
            q, k, v = self.qkv(y).view(b, s, 3, a, hd).transpose(3, 1).unbind(dim=2)
        q, k = rope.apply(t, q), rope.apply(t, k)
        causal = self.causal
        if kv_cache is not None:  # one new token per sequence attends to the whole cache: no mask
            kc, vc, pos = kv_cache
            kc[:, :, pos:pos + s].copy_(k)
            vc[:, :, pos:pos + s].copy_(v)
            k, v, mask, causal = kc[:, :, :pos + s], vc[:, :, :pos + s], None, False
        att = self.o(self.attention(q, k, v, mode, mask, causal))
        if self.kind == "neox":  # parallel residual: x + attn(ln1(x)) + mlp(ln2(x))
            return att + self.down(F.gelu(self.up(self.n2(x)))) + x
        x = x + att
        if self.kind == "llama":
            g, u = self.up(self.rms(x, self.w2)).chunk(2, dim=-1)
            return x + self.down(F.silu(g) * u)
        g_in, gate = self.up(self.n2(x)).chunk(2, dim=-1)
        return x + self.down(F.gelu(g_in) * gate)


def layer_setup(torch, mid, b, s, mode, dev, dtype, dry):
    """(forward function, kind, h, a, kv, ffn) for one layers.csv row; the input is random normal."""
    kind, h, a, kv, ffn, bias = LAYER_MODELS[mid]
    if dry:
        h, a, kv, ffn, b, s = 64, 4, (2 if kv < a else 4), 128, 1, 16
    layer = Layer(torch, kind, h, a, kv, ffn, bias, dev, dtype)
    hd = h // a
    rope = Rotary(torch, hd // 4 if kind == "neox" else hd, 0, s, dev, dtype)
    x = torch.randn(b, s, h, device=dev, dtype=dtype)
    mask = None
    if mode == "standard" and layer.causal:  # 0 on and below the diagonal, the dtype's lowest value above;
        lowest = torch.finfo(dtype).min  # ModernBERT adds none (the shared kernels.csv: scale, then softmax)
        mask = torch.zeros(1, 1, s, s, device=dev, dtype=dtype).masked_fill(
            torch.ones(s, s, dtype=torch.bool, device=dev).triu(1), lowest)

    def fn():
        with torch.no_grad():
            return layer.forward(x, rope, mode, mask)
    return fn, (kind, h, a, kv, ffn)


class Decoder:
    """A whole decoder model (Llama kind) with random weights and a KV cache: step() is one decode step."""

    def __init__(self, torch, mid, batch, ctx, dev, dtype, dry):
        kind, h, a, kv, ffn, bias = LAYER_MODELS[mid]
        n_layers, vocab = DECODE_MODELS[mid]
        if dry:
            h, a, kv, ffn, n_layers, vocab, batch, ctx = 64, 4, (2 if kv < a else 4), 128, 2, 100, 2, 16
        self.t, hd = torch, h // a
        self.layers = [Layer(torch, kind, h, a, kv, ffn, bias, dev, dtype) for _ in range(n_layers)]
        self.embed = torch.empty(vocab, h, device=dev, dtype=dtype).normal_(0, 0.02)
        self.norm = torch.ones(h, device=dev, dtype=dtype)
        self.head = torch.nn.Linear(h, vocab, bias=False, device=dev, dtype=dtype)
        self.cache = [(torch.zeros(batch, kv, ctx, hd, device=dev, dtype=dtype),
                       torch.zeros(batch, kv, ctx, hd, device=dev, dtype=dtype)) for _ in range(n_layers)]
        self.ids = torch.randint(0, vocab, (batch, 1), device=dev)
        self.pos, self.rope = ctx - 1, Rotary(torch, hd, ctx - 1, 1, dev, dtype)
        with torch.no_grad():
            for layer in self.layers:  # random weights of a trained model's scale: no overflow over the layers
                for lin in (layer.qkv, layer.o, layer.up, layer.down):
                    lin.weight.normal_(0, 0.02)
        per_layer = sum(2 * p.numel() for layer in self.layers[:1] for lin in (layer.qkv, layer.o, layer.up, layer.down)
                        for p in lin.parameters())
        self.weight_bytes = n_layers * per_layer + 2 * vocab * h  # + LM head; no norms, no embedding (decode.csv)
        self.kv_bytes = 2 * n_layers * batch * ctx * kv * hd * 2

    def step(self):
        t = self.t
        with t.no_grad():
            x = t.nn.functional.embedding(self.ids, self.embed)
            for layer, (kc, vc) in zip(self.layers, self.cache):
                x = layer.forward(x, self.rope, "flash", None, (kc, vc, self.pos))
            return self.head(self.layers[0].rms(x, self.norm))


def measure_layers(torch, dev, dry, timer, timer_eager, gpu, quick, out_dir, progress):
    """Write layers.csv; return the plan (for layer_kernels)."""
    plan = layer_plan(quick)
    if dry:  # one model of each kind, both attention modes, tiny shapes (layer_setup)
        plan = [r for r in plan if r[0] in ("pythia-1b", "llama-3-8b", "modernbert-base-global") and r[1] == 4]
    dtype = torch.float32 if dry else torch.bfloat16
    t0 = time.time()
    with open(os.path.join(out_dir, "layers.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(LAYERS_HEADER)
        for i, (mid, b, s, mode) in enumerate(plan, 1):
            try:
                fn, (kind, h, a, kv, ffn) = layer_setup(torch, mid, b, s, mode, dev, dtype, dry)
                for timing in ("graph", "eager"):
                    t = timer.measure(fn)[0] if timing == "graph" or dry else timer_eager(torch, fn)[0]
                    w.writerow([gpu, mid, kind, h, a, kv, ffn, b, s, mode, timing, "%.9g" % t,
                                layer_params(kind, h, a, kv, ffn)])
            except RuntimeError as e:  # out of memory, or no attention kernel for this shape
                sys.stderr.write("\nprobe: layer %s %s skipped: %s\n" % (mid, mode, str(e)[:100]))
            fn = None
            if not dry:
                torch.cuda.empty_cache()
            f.flush()
            progress(i, len(plan), "layer %s b%d s%d %s" % (mid, b, s, mode), t0)
    return plan


def measure_decode(torch, dev, dry, timer, timer_eager, gpu, quick, out_dir, progress):
    """Write decode.csv: graph and eager step time per (model, batch, context)."""
    plan = decode_plan(quick)[:2] if dry else decode_plan(quick)
    dtype = torch.float32 if dry else torch.bfloat16
    t0, model, key = time.time(), None, None
    with open(os.path.join(out_dir, "decode.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(DECODE_HEADER)
        for i, (mid, batch, ctx, timing) in enumerate(plan, 1):
            try:
                if key != (mid, batch, ctx):
                    model = None
                    if not dry:
                        torch.cuda.empty_cache()
                    model, key = Decoder(torch, mid, batch, ctx, dev, dtype, dry), (mid, batch, ctx)
                t = timer.measure(model.step)[0] if timing == "graph" or dry else timer_eager(torch, model.step)[0]
                w.writerow([gpu, mid, batch, ctx, timing, "%.9g" % t, "%.6g" % (batch / t),
                            model.weight_bytes, model.kv_bytes])
            except RuntimeError as e:
                sys.stderr.write("\nprobe: decode %s batch %d context %d skipped: %s\n" % (mid, batch, ctx, str(e)[:100]))
                model, key = None, None
            f.flush()
            progress(i, len(plan), "decode %s b%d ctx%d %s" % (mid, batch, ctx, timing), t0)


def layer_kernels(torch, dev, gpu, plan, out_dir):
    """layer_kernels.csv: every kernel of one eager forward of each b=4 s=2048 layer, in launch order, with its
    device time (torch.profiler), as the shared kernels.csv lists them. Run after every timing (see probe)."""
    from torch.profiler import ProfilerActivity, profile
    with open(os.path.join(out_dir, "layer_kernels.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(LAYER_KERNELS_HEADER)
        for mid, b, s, mode in plan:
            if (b, s) != (4, 2048):
                continue
            fn, _ = layer_setup(torch, mid, b, s, mode, dev, torch.bfloat16, False)
            fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                fn()
                torch.cuda.synchronize()
            events = sorted((e for e in prof.events() if str(e.device_type).endswith("CUDA")),
                            key=lambda e: e.time_range.start)
            for idx, e in enumerate(events):
                w.writerow([gpu, mid, mode, idx, e.name[:160], "%.3f" % e.time_range.elapsed_us()])
            fn = None
            torch.cuda.empty_cache()
