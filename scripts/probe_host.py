"""The host as a measured property, for scripts/probe (`--host`, and the `hf` set).

host.csv (`--host`): PyTorch's per-op dispatch as an eager engine sees it. Each op is called `calls` times
back to back from Python and timed with the wall clock (time.perf_counter), the CUDA stream synchronized
once at the end; time_s is the median per call of 5 such loops, time_min_s the fastest. On the GPU the ops
are tiny, so the host is the bottleneck and time_s is the host's dispatch and launch time per op:
- `python_call`: an empty Python function call (the interpreter's speed; no PyTorch);
- `add`: x + 1 on a one-element tensor (an elementwise op: dispatcher, allocator, one kernel launch);
- `linear`: torch.nn.functional.linear on [1, 64] x [64, 64] (the cuBLAS path of a projection);
- `module_linear`: an nn.Linear module's call on the same shapes (Module.__call__ around it, as
  Hugging Face's eager modules run every projection).
Rows with device `cpu` need no GPU; `cuda` rows are written where PyTorch sees one.

hf_generate.csv (`--sets hf`): Hugging Face transformers generate() and a plain forward loop, batch 1, greedy,
dynamic cache, random weights, each family's config.json dimensions at two reduced depths (and some at full
depth): TPOT = (time for `new_tokens` tokens - time for `short` tokens) / (new_tokens - short). The reduced
depths separate the per-layer host work from the per-token work outside the layers. The columns extend
../shared/reference/calibration/h100/hf_generate.csv's: gpu, id, batch, prompt, new_tokens, time_s, tpot_s,
tokens_per_s, then mode (generate or forward), layers, model_type, attn, transformers, torch.

Imported by scripts/probe; PyTorch (and transformers for `hf`) are imported only to measure.
"""
import csv
import os
import statistics
import sys
import time

HOST_HEADER = ["gpu", "cpu", "op", "device", "calls", "time_s", "time_min_s"]
HF_HEADER = ["gpu", "id", "batch", "prompt", "new_tokens", "time_s", "tpot_s", "tokens_per_s", "mode", "layers",
             "model_type", "attn", "transformers", "torch"]

# id: (model_type, config.json fields, full num_hidden_layers); ids and fields as tilewave's
# lua/tilewave/data/families/ presets (config.json of each model on Hugging Face).
HF_MODELS = {
    "llama-2-7b": ("llama", dict(hidden_size=4096, intermediate_size=11008, num_attention_heads=32,
                                 num_key_value_heads=32, vocab_size=32000), 32),
    "llama-3-8b": ("llama", dict(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                                 num_key_value_heads=8, vocab_size=128256, rope_theta=500000.0), 32),
    "mistral-7b": ("mistral", dict(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                                   num_key_value_heads=8, vocab_size=32000, sliding_window=4096), 32),
    "qwen2.5-7b": ("qwen2", dict(hidden_size=3584, intermediate_size=18944, num_attention_heads=28,
                                 num_key_value_heads=4, vocab_size=152064), 28),
    "qwen3-8b": ("qwen3", dict(hidden_size=4096, intermediate_size=12288, num_attention_heads=32,
                               num_key_value_heads=8, head_dim=128, vocab_size=151936), 36),
    "phi-3-mini": ("phi3", dict(hidden_size=3072, intermediate_size=8192, num_attention_heads=32,
                                num_key_value_heads=32, vocab_size=32064), 32),
    "pythia-6.9b": ("gpt_neox", dict(hidden_size=4096, intermediate_size=16384, num_attention_heads=32,
                                     vocab_size=50432, rotary_pct=0.25), 32),
    "gemma-2-9b": ("gemma2", dict(hidden_size=3584, intermediate_size=14336, num_attention_heads=16,
                                  num_key_value_heads=8, head_dim=256, vocab_size=256000), 42),
    "gemma-3-1b": ("gemma3_text", dict(hidden_size=1152, intermediate_size=6912, num_attention_heads=4,
                                       num_key_value_heads=1, head_dim=256, vocab_size=262144,
                                       sliding_window=512), 26),
    "mixtral-8x7b": ("mixtral", dict(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                                     num_key_value_heads=8, vocab_size=32000, num_local_experts=8,
                                     num_experts_per_tok=2), 32),
    "gpt-oss-20b": ("gpt_oss", dict(hidden_size=2880, intermediate_size=2880, num_attention_heads=64,
                                    num_key_value_heads=8, head_dim=64, vocab_size=201088, num_local_experts=32,
                                    num_experts_per_tok=4, sliding_window=128), 24),
}
REDUCED_DEPTHS = (2, 10)
FULL_DEPTH = {"llama-2-7b": (1, 8), "qwen3-8b": (1,), "gemma-2-9b": (1,)}  # id: batches at full depth
PROMPT, SHORT, LONG = 128, 8, 40


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def per_call(fn, calls, sync=None, reps=5):
    for _ in range(min(calls, 500)):
        fn()
    if sync:
        sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        ts.append((time.perf_counter() - t0) / calls)
    return statistics.median(ts), min(ts)


def measure_host(torch, gpu, out_dir, cuda):
    """Write host.csv; cuda: also the CUDA variants."""
    cpu = cpu_name()
    rows = []

    def empty():
        return None
    t, tmin = per_call(empty, 200000)
    rows.append(("python_call", "cpu", 200000, t, tmin))
    devices = ["cpu"] + (["cuda"] if cuda else [])
    with torch.no_grad():
        for dev in devices:
            sync = torch.cuda.synchronize if dev == "cuda" else None
            x = torch.ones(1, device=dev, dtype=torch.float32)
            a = torch.randn(1, 64, device=dev, dtype=torch.bfloat16 if dev == "cuda" else torch.float32)
            w = torch.randn(64, 64, device=dev, dtype=a.dtype)
            mod = torch.nn.Linear(64, 64, bias=False, device=dev, dtype=a.dtype)
            for op, fn in (("add", lambda: x + 1), ("linear", lambda: torch.nn.functional.linear(a, w)),
                           ("module_linear", lambda: mod(a))):
                try:
                    t, tmin = per_call(fn, 20000, sync)
                    rows.append((op, dev, 20000, t, tmin))
                except RuntimeError as e:
                    sys.stderr.write("probe: host %s on %s skipped: %s\n" % (op, dev, str(e)[:100]))
    with open(os.path.join(out_dir, "host.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HOST_HEADER)
        for op, dev, calls, t, tmin in rows:
            w.writerow([gpu, cpu, op, dev, calls, "%.6g" % t, "%.6g" % tmin])
    for op, dev, calls, t, tmin in rows:
        print("probe: host %-13s %-4s %8.2f us per call" % (op, dev, t * 1e6))


def hf_plan(quick):
    """(id, layers, batch): every model at the reduced depths, batch 1; some at full depth."""
    ids = ("llama-2-7b", "qwen3-8b", "gemma-2-9b") if quick else tuple(HF_MODELS)
    out = []
    for mid in ids:
        for depth in REDUCED_DEPTHS:
            out.append((mid, depth, 1))
        for b in FULL_DEPTH.get(mid, ()):
            out.append((mid, HF_MODELS[mid][2], b))
    return out


def build_model(torch, transformers, mid, layers, dev, dtype):
    mtype, fields, _ = HF_MODELS[mid]
    cfg = transformers.AutoConfig.for_model(mtype, num_hidden_layers=layers, **fields)
    if hasattr(cfg, "layer_types") and cfg.layer_types is not None and len(cfg.layer_types) != layers:
        cfg.layer_types = None  # let the config derive its per-layer types for this depth
    with torch.device(dev):
        try:
            model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=dtype)
        except TypeError:
            model = transformers.AutoModelForCausalLM.from_config(cfg, torch_dtype=dtype)
    model = model.to(dev).eval()
    model.generation_config.eos_token_id = None
    model.generation_config.pad_token_id = 0
    return model


class Stamps:
    """A logits processor that notes the wall-clock time of every decode step (generate() calls it once per new
    token, before sampling): the gaps between stamps are the per-token times, stalls included."""

    def __init__(self):
        self.t = []

    def __call__(self, input_ids, scores):
        self.t.append(time.perf_counter())
        return scores


def tpot_from(stamps):
    """(mean, median) seconds per token over the steady part: stamps SHORT.. (as (t(LONG) - t(SHORT)) / n)."""
    gaps = [b - a for a, b in zip(stamps[SHORT:-1], stamps[SHORT + 1:])]
    return (stamps[-1] - stamps[SHORT]) / max(len(gaps), 1), statistics.median(gaps), max(gaps)


def measure_hf(torch, gpu, out_dir, quick, deadline, progress):
    """Write hf_generate.csv: generate() and forward-loop TPOT per family and depth, from per-token stamps."""
    import transformers
    dev, dtype = torch.device("cuda"), torch.bfloat16
    plan = hf_plan(quick)
    t0 = time.time()
    with open(os.path.join(out_dir, "hf_generate.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HF_HEADER + ["tpot_median_s", "gap_max_s", "rep"])
        for i, (mid, layers, batch) in enumerate(plan, 1):
            if time.time() > deadline:
                sys.stderr.write("probe: hf: time budget spent, %d runs left out\n" % (len(plan) - i + 1))
                break
            model = None
            try:
                torch.cuda.empty_cache()
                model = build_model(torch, transformers, mid, layers, dev, dtype)
                ids = torch.randint(3, 1000, (batch, PROMPT), device=dev)
                mask = torch.ones_like(ids)

                def gen(n):
                    st = Stamps()
                    with torch.no_grad():
                        model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=n, do_sample=False,
                                       logits_processor=transformers.LogitsProcessorList([st]))
                    st.t.append(time.perf_counter())
                    return st.t

                def fwd(n):
                    st = []
                    with torch.no_grad():
                        out = model(input_ids=ids, use_cache=True)
                        for _ in range(n):
                            st.append(time.perf_counter())
                            nxt = out.logits[:, -1:].argmax(-1)
                            bool((nxt < 0).any())  # a host sync per token, as generate()'s stopping check
                            out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
                    st.append(time.perf_counter())
                    return st
                attn = getattr(model.config, "_attn_implementation", "") or ""
                for mode, fn in (("generate", gen), ("forward", fwd)):
                    fn(4)  # warm-up: allocator, cuBLAS handles
                    for rep in (1, 2):
                        torch.cuda.synchronize()
                        ta = time.perf_counter()
                        st = fn(LONG)
                        torch.cuda.synchronize()
                        mean, med, gmax = tpot_from(st)
                        w.writerow([gpu, mid, batch, PROMPT, LONG, "%.6g" % (time.perf_counter() - ta),
                                    "%.6g" % mean, "%.6g" % (batch / mean), mode, layers, HF_MODELS[mid][0], attn,
                                    transformers.__version__, torch.__version__.split("+")[0],
                                    "%.6g" % med, "%.6g" % gmax, rep])
                        f.flush()
            except Exception as e:  # a family this transformers cannot build: left out, said why
                sys.stderr.write("probe: hf %s layers %d batch %d skipped: %s: %s\n"
                                 % (mid, layers, batch, type(e).__name__, str(e)[:160]))
            del model
            progress(i, len(plan), "hf %s L%d b%d" % (mid, layers, batch), t0)


def count_hf_kernels(torch, gpu, out_dir, quick):
    """hf_kernels.csv: CUDA kernels and launches of one decode forward (batch 1, after the prompt) per family and
    reduced depth, by torch.profiler; run in its own process, after any timing (the profiler slows later runs)."""
    import transformers
    from torch.profiler import ProfilerActivity, profile
    dev, dtype = torch.device("cuda"), torch.bfloat16
    with open(os.path.join(out_dir, "hf_kernels.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["gpu", "id", "layers", "model_type", "kernels", "launches", "cpu_ops", "transformers"])
        for mid, layers, batch in hf_plan(quick):
            if layers not in REDUCED_DEPTHS:
                continue
            try:
                torch.cuda.empty_cache()
                model = build_model(torch, transformers, mid, layers, dev, dtype)
                ids = torch.randint(3, 1000, (1, PROMPT), device=dev)
                with torch.no_grad():
                    out = model(input_ids=ids, use_cache=True)
                    nxt = out.logits[:, -1:].argmax(-1)
                    out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
                    nxt = out.logits[:, -1:].argmax(-1)
                    torch.cuda.synchronize()
                    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                        model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
                        torch.cuda.synchronize()
                kernels = launches = ops = 0
                for e in prof.events():
                    dt = str(getattr(e, "device_type", ""))
                    if dt.endswith("CUDA"):
                        kernels += 1
                    elif e.name in ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx"):
                        launches += 1
                    elif e.name.startswith("aten::"):
                        ops += 1
                w.writerow([gpu, mid, layers, HF_MODELS[mid][0], kernels, launches, ops, transformers.__version__])
                f.flush()
                del model, out, prof
            except Exception as e:
                sys.stderr.write("probe: hf kernels %s layers %d skipped: %s: %s\n" % (mid, layers, type(e).__name__, str(e)[:160]))
