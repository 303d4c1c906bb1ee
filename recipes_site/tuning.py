"""The tuning table: five `vllm serve` flags a reader may change, and the memory plan that follows.

Python stays the one source of truth. For a single-process rendering this module publishes, per
flag key (u --gpu-memory-utilization, m --max-num-batched-tokens, t --tensor-parallel-size,
L --max-model-len, d --kv-cache-dtype):

* the values a reader may pick (`v`; 0 for m and L, "auto" for d: the flag left out), the
  rendered one's index (`at`) and each value's command line (`line`: `unit_line` of the flag and
  value, None for vLLM's default), with every spelling vLLM reads for the flag (`spellings`);
* the plan's coefficients by option index, as `fit.memory_split` computes them: `w[t]` weights per
  GPU (GiB; `dw[t]` a draft model's share, as plan.py `_figures` adds it), `o[t][m]` the overhead
  per GPU (GiB), `k[t][d][m]` an index into the document's KV entries (the inputs of the page
  formula `fit.panel_figures`) and `c` the model's context; the hardware gives `r`, the GPU
  memory vLLM multiplies by --gpu-memory-utilization (`fit.gpu_memory`).

The page's arithmetic, which `apply` writes in Python and static/verify.js transcribes:

    budget = r x u;   weights = w[t] + dw[t];   kv = budget - w[t] - o[t][m] - dw[t]
    kv_cache_bytes_per_gpu = max(0, floor(kv x 2^30));  entry = kv entry k[t][d][m] with those
    bytes and the served length L (the model's context when the flag is left out)
    concurrency = requests(entry, L); verdict over (weights > budget), no_kv (kv <= 0),
    short (longest(entry, 1) < L), else fits

These are the floating-point operations of plan.py in its order, so for every option the page's
figures equal `plan.plan_of` of the tuned command (tests/test_tuning.py,
tests/browser/test_browser_verify.py). --max-model-len leaves the overhead alone for the lengths
offered: vLLM caps its default token budget at max_num_seqs x max_model_len
(`fit.scheduler_limits`), and only lengths where that cap is above the budget are offered.
"""

from __future__ import annotations

import math
from dataclasses import replace

from recipes_site import fit, plan, sizing
from recipes_site.synthesis.shell import unit_line

GIB = fit.GIB
# vLLM 0.33.0's spellings of each flag (fit.SHAPE_FLAGS; `_` forms: data.vllm_spelling)
UTIL, MBT, TP, LEN, DTYPE = (
    "--gpu-memory-utilization",
    "--max-num-batched-tokens",
    "--tensor-parallel-size",
    "--max-model-len",
    "--kv-cache-dtype",
)
UTILIZATIONS = (0.85, 0.9, fit.GPU_MEMORY_UTILIZATION, fit.RAISED_GPU_MEMORY_UTILIZATION)
BATCHED_TOKENS = (2048, 8192, 16384)
TP_SIZES = (1, 2, 4, 8, 16)
LENGTHS = (4096, 8192, 16384, 32768, 65536, 131072)
DTYPES = ("auto", "fp8")

# The rows of the table, in order: what each flag does and which way to move it.
ROWS = (
    {
        "key": "u",
        "flag": UTIL,
        "default": "0.92 (vLLM 0.33; 0.9 before)",
        "meaning": "The share of each GPU's memory vLLM plans with: weights, activations and KV "
        "cache. The rest stays free for the CUDA context, NCCL and other processes.",
        "direction": "Raise it (up to 0.95 on a GPU vLLM has to itself) for more KV cache and "
        "throughput; lower it when the GPU is shared or startup runs out of memory.",
        "source": "vllm/config/cache.py:215",
    },
    {
        "key": "m",
        "flag": MBT,
        "default": "2048, 8192 or 16384 by GPU memory",
        "meaning": "Tokens the scheduler puts in one forward pass. Chunked prefill (on by default) "
        "splits a long prompt into chunks of this size and batches them with the running "
        "requests' decode steps, so one long prompt does not stall the others.",
        "direction": "Above 8192 raises throughput (more prompt tokens per step); smaller keeps "
        "steps short and lowers inter-token latency. Activation memory grows with it.",
        "source": "vllm/engine/arg_utils.py:2973-3006; vllm/config/scheduler.py:134",
    },
    {
        "key": "t",
        "flag": TP,
        "default": "1",
        "meaning": "GPUs one copy of the model is split across: each holds 1/TP of the weights "
        "and of the KV heads.",
        "direction": "Larger leaves more KV cache per GPU but adds an all-reduce per layer; the "
        "smallest size that fits, with replicas filling the node, serves the most requests.",
        "source": "vllm/config/parallel.py:142",
    },
    {
        "key": "L",
        "flag": LEN,
        "default": "the model's context length",
        "meaning": "The longest request (prompt and output) the server accepts. vLLM refuses to "
        "start when one request of this length does not fit the KV cache.",
        "direction": "Reduce it when memory runs out: the same KV cache then holds more, "
        "shorter requests.",
        "source": "vllm/config/model.py:249",
    },
    {
        "key": "d",
        "flag": DTYPE,
        "default": "auto (the model's dtype)",
        "meaning": "The data type of the cached keys and values.",
        "direction": "fp8 halves KV memory per token, so twice the tokens fit, at a small "
        "accuracy cost; it needs a GPU and attention backend with FP8 KV support.",
        "source": "vllm/config/cache.py:235",
    },
)
FLAGS = {row["key"]: row["flag"] for row in ROWS}
DEFAULTS = {"u": fit.GPU_MEMORY_UTILIZATION, "m": 0, "t": 1, "L": 0, "d": "auto"}


def spellings(flag: str) -> list[str]:
    """Every spelling vLLM reads for `flag` (its short aliases, `_` for `-`)."""
    names = [flag] + [
        k for k, v in fit.SHAPE_FLAGS.items() if v == fit.SHAPE_FLAGS[flag] and k != flag
    ]
    return names + [n.replace("-", "_").replace("__", "--", 1) for n in names if n.startswith("--")]


def line(key: str, value) -> str | None:
    """The command line of a flag's option; None for vLLM's default (the flag left out)."""
    return None if value == DEFAULTS[key] else unit_line((FLAGS[key], str(value)))


def values(shape: fit.Shape, profile: dict, context: int | None, cfg: dict | None) -> dict:
    """Per flag key, the values a reader may pick (the rendered one among them; 0 is "left out"
    for the lengths)."""
    per_node = int(profile.get("gpu_count") or 1)
    plain = shape.pp == 1 and shape.dp == 1 and shape.dcp == 1
    tps = {shape.tp} | {
        t for t in TP_SIZES if plain and t <= per_node and not fit.kv_cache.tp_problem(cfg, t)
    }
    # lengths at which vLLM's token budget stays what it is (`fit.scheduler_limits` caps it at
    # max_num_seqs x max_model_len), so the overhead does not depend on the length
    tokens, seqs = fit.scheduler_defaults(fit.gpu_memory(profile))
    seqs = shape.max_num_seqs or seqs
    lengths = {x for x in LENGTHS if context and x < context and seqs * x >= tokens}
    lengths |= {shape.max_model_len or 0}
    return {
        "u": sorted(set(UTILIZATIONS) | {shape.gpu_memory_utilization}),
        "m": sorted(set(BATCHED_TOKENS) | {0, shape.max_num_batched_tokens or 0}),
        "t": sorted(tps),
        "L": sorted(lengths | {0}),
        "d": list(dict.fromkeys((*DTYPES, shape.kv_cache_dtype))),
    }


def rendered(shape: fit.Shape) -> dict:
    """The value of each flag in the command as rendered."""
    return {
        "u": shape.gpu_memory_utilization,
        "m": shape.max_num_batched_tokens or 0,
        "t": shape.tp,
        "L": shape.max_model_len or 0,
        "d": shape.kv_cache_dtype,
    }


def _entry(split: fit.MemorySplit, shape: fit.Shape) -> dict | None:
    """The KV inputs of the page formula for a memory split (plan.py `_figures`'s entry, without
    the KV bytes and the length, which the page computes)."""
    if split.kv_bytes_per_token_per_gpu is None:
        return None
    out: dict = {
        "kv_bytes_per_token_per_gpu": round(split.kv_bytes_per_token_per_gpu, 3),
        "kv_bytes_per_block_per_gpu": split.kv_bytes_per_block_per_gpu,
        "block_size": split.kv_block_size,
        "dp": shape.dp,
    }
    if split.kv_groups:
        out["null_block_bytes"] = split.kv_groups.block_bytes
    if split.windows_per_gpu:
        out["windows_per_gpu"] = [fit.published_window(w) for w in split.windows_per_gpu]
    if split.state_bytes_per_sequence_per_gpu:
        out["state_bytes_per_sequence_per_gpu"] = split.state_bytes_per_sequence_per_gpu
    return out


class Entries:
    """The KV entries of one document, each once (`index`)."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self._seen: dict[str, int] = {}

    def index(self, entry: dict) -> int:
        key = repr(sorted(entry.items()))
        if key not in self._seen:
            self._seen[key] = len(self.items)
            self.items.append(entry)
        return self._seen[key]


def tuning(plans: plan.RecipePlans, rendering, profile: dict, entries: Entries) -> dict | None:
    """The tuning data of a single-process rendering with KV facts (None otherwise): the values
    of each flag (`v`), the rendered one's index (`at`), the coefficients by option index
    (`w[ti]`, `dw[ti]`, `o[ti][mi]`, `k[ti][di][mi]`) and the model's context (`c`)."""
    proc = rendering.single
    if proc is None or rendering.node_count != 1:
        return None
    read = plans.reading(tuple(proc.argv))
    facts = plans.facts(rendering.variant)
    shape = read.shape
    if not facts.context_length:
        return None
    vs = values(shape, profile, facts.context_length, facts.cfg)
    vram = sizing.per_gpu_gib(profile)
    # a size whose weights alone exceed the largest budget offered is never an option
    most = fit.gpu_memory(profile).total_gib * max(vs["u"]) * GIB
    if facts.weights_bytes is not None:
        vs["t"] = [
            t
            for t in vs["t"]
            if t == shape.tp
            or fit.weights_per_gpu(facts.weights_bytes, replace(shape, tp=t), facts.expert_fraction)
            <= most
        ]
    now = rendered(shape)
    served = shape.max_model_len or facts.context_length
    no_flag = replace(shape, max_num_batched_tokens=None)
    default_tokens = fit.scheduler_limits(no_flag, fit.gpu_memory(profile), served)[0]
    draft = plan.draft_weights_bytes(facts.cfg, read.spec)
    w: list[float] = []
    o: list[list[float]] = []
    k: list[list[list[int]]] = []
    for t in vs["t"]:
        o_t: list[float] = []
        k_t: list[list[int]] = [[] for _ in vs["d"]]
        for di, d in enumerate(vs["d"]):
            for mi, m in enumerate(vs["m"]):
                # the flag set to vLLM's own token budget splits memory as leaving it out does, and
                # without windowed layers the KV entry does not depend on the budget
                same = m == default_tokens
                if mi and (same or di and "windows_per_gpu" not in entries.items[k_t[0][0]]):
                    k_t[di].append(k_t[di][0])
                    if di == 0:
                        o_t.append(o_t[0])
                    continue
                tuned = replace(shape, tp=t, max_num_batched_tokens=m or None, kv_cache_dtype=d)
                split = fit.memory_split(facts, vram, tuned, profile=profile)
                weights, overhead, entry = (
                    split.weights_gib_per_gpu,
                    split.overhead.total_gib,
                    _entry(split, tuned),
                )
                if weights is None or entry is None:
                    return None
                if di == 0:
                    o_t.append(overhead)
                    if mi == 0:
                        w.append(weights)
                k_t[di].append(entries.index(entry))
        o.append(o_t)
        k.append(k_t)
    out = {
        "v": vs,
        "at": {key: vs[key].index(now[key]) for key in vs},
        "c": facts.context_length,
        "w": w,
        "o": o,
        "k": k,
    }
    if draft:
        out["dw"] = [draft / t / GIB for t in vs["t"]]
    return out


def apply(doc: dict, kv: list, r: float, pick: dict) -> dict:
    """The page's arithmetic (site.js `tuned`) for one choice: the figures plan.py computes for the
    tuned command. `doc` is a rendering's tuning data, `kv` the document's KV entries, `r` the
    GPU memory of its hardware and `pick` the option index of each flag key."""
    ti, mi, di = pick["t"], pick["m"], pick["d"]
    u = doc["v"]["u"][pick["u"]]
    length = doc["v"]["L"][pick["L"]] or doc["c"]
    budget = r * u
    raw = doc["w"][ti]
    extra = doc["dw"][ti] if "dw" in doc else 0
    weights = raw + extra
    kv_gib = budget - raw - doc["o"][ti][mi] - extra
    kv_bytes = max(0, math.floor(kv_gib * GIB))
    entry = {
        "null_block_bytes": 0,
        **kv[doc["k"][ti][di][mi]],
        "kv_cache_bytes_per_gpu": kv_bytes,
        "context_length": length,
    }
    figures = fit.panel_figures(entry, length, 1)
    if weights > budget:
        verdict = plan.OVER
    elif kv_gib <= 0:
        verdict = plan.NO_KV
    elif figures["longest"] < length:
        verdict = plan.SHORT
    else:
        verdict = plan.FITS
    return {
        "budget_gib_per_gpu": budget,
        "weights_gib_per_gpu": weights,
        "kv_cache_bytes_per_gpu": kv_bytes,
        "concurrency": figures["requests"],
        "verdict": verdict,
    }
