"""Replay every real vLLM startup log of tests/data/startup_logs/ through the budget the pages use.

Each entry is sized by `fit.fit_deployment` (the function behind `panel_entry`, `kv_sizing` and
`engine_sizing`) on the recipe it names, with the log's flags, GPU and vLLM release. The
predicted "Available KV cache memory" per GPU must be within 15 % + 0.5 GiB of the logged one,
the median relative error at most 7 %, and no entry that failed to start may be predicted to
fit. Entries the model cannot replay are skipped with their reason (`replay` says which).

`python scripts/startup_logs_table.py` prints the table: entry, predicted, logged, error.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from recipes_site import fit
from recipes_site.catalog import PROJECT_ROOT, load_catalog

CORPUS = Path(__file__).resolve().parent / "data" / "startup_logs"
ABSOLUTE_TOLERANCE_GIB = 0.5
RELATIVE_TOLERANCE = 0.15
MEDIAN_TOLERANCE = 0.07
# A log without its version is replayed as the first release its entry's comment on `vllm_version`
# names ("vLLM 0.10.2 / 0.11.0 era" -> 0.10), else as the current release (the corpus's unversioned
# entries are recent community reports).
UNKNOWN_VERSION = fit.VLLM_VERSION
# Totals torch reports for GPUs that are no hardware profile (GiB, compute capability, where read).
# An A100 not named "40GB" is taken as the 80 GB part (the corpus's A100 logs load more than 40 GiB
# or leave more than 40 GiB of KV cache).
GPU_FACTS = [
    (
        r"A100.*40\s?GB",
        40960 / 1024,
        "8.0",
        "https://github.com/modal-labs/modal-client/pull/2797: nvidia-smi 'A100 40GB: 40960MiB' "
        "(torch's own total unknown: an upper bound)",
    ),
    (
        r"\bL4\b",
        22.03,
        "8.9",
        "corpus entry gemma-4-31b-nvfp4-l4-tp1-oom: 'GPU 0 has a total capacity of 22.03 GiB'",
    ),
    (
        r"\bA10\b",
        23028 / 1024,
        "8.6",
        "https://github.com/modal-labs/modal-client/pull/2797: nvidia-smi 'A10: 23028MiB' "
        "(an upper bound)",
    ),
    (
        r"L40S",
        46068 / 1024,
        "8.9",
        "https://github.com/modal-labs/modal-client/pull/2797: nvidia-smi 'L40S: 46068MiB' "
        "(an upper bound)",
    ),
    (
        r"A100(?!.*40\s?GB)",
        79.32,
        "8.0",
        "https://github.com/vllm-project/vllm-omni/issues/276: 'Free memory on device "
        "(0.49/79.32 GiB)' on A100 80GB",
    ),
    (
        r"RTX 5070 Ti",
        16303 / 1024,
        "12.0",
        "corpus entry qwen3-coder-30b-a3b-fp8-5070ti-5090d-pp2-fail: nvidia-smi's 16303MiB "
        "(torch's own total unknown: an upper bound)",
    ),
    (
        r"RTX 3090",
        23.58,
        "8.6",
        "corpus entry llama31-8b-rtx3090-v0-len20000: vLLM prints a 23.58 GiB RTX 3090",
    ),
]
# The corpus's `weights` names -> recipe precisions
WEIGHTS_PRECISIONS = {
    "awq-int4": ("awq", "int4"),
    "gptq-int4": ("gptq", "int4"),
    "int4": ("int4", "awq", "gptq"),
}


@dataclass
class Replay:
    entry: str
    predicted: float | None = None
    logged: float | None = None
    failed: bool = False
    predicted_fits: bool | None = None
    skipped: str | None = None
    version: tuple = ()
    predicted_weights: float | None = None  # GiB per GPU as loaded
    logged_weights: float | None = None  # "Model loading took X GiB"
    uma_before_fix: bool = (
        False  # an integrated GPU before 0.33's free-memory reading: verdict only
    )

    @property
    def error(self) -> float | None:
        if self.predicted is None or self.logged is None or self.uma_before_fix:
            return None
        return abs(self.predicted - self.logged) / abs(self.logged) if self.logged else None

    @property
    def within_tolerance(self) -> bool:
        assert self.predicted is not None and self.logged is not None
        slack = RELATIVE_TOLERANCE * abs(self.logged) + ABSOLUTE_TOLERANCE_GIB
        return abs(self.predicted - self.logged) <= slack


# a failure the memory budget is about says so; others (a missing attention backend, say) are
# not a memory verdict to replay
MEMORY_FAILURE_WORDS = (
    "memory",
    "kv cache",
    "initialize_kv_caches",
    "oom",
    "max seq len",
    "cache blocks",
)
# integrated (unified-memory) GPUs, whose free memory vLLM reads differently since 0.33
UMA_GPUS = ("GB10",)
# graphs are inside the budget from this release on, outside it (and outside a breakdown) before
BREAKDOWN_TOLERANCE = 0.01  # of the GPU's memory


def breakdown_mismatch(entry: dict, version: tuple) -> str | None:
    """Why a logged breakdown cannot be trusted: before CUDA graphs joined the budget, weights,
    activation peak, non-torch memory and the KV cache add up to total x utilization exactly; a
    source whose figures do not has copied one of them wrong."""
    logged = entry.get("logged") or {}
    args = entry.get("args") or {}
    parts = [
        logged.get("weights_gib") or logged.get("model_loading_gib"),
        logged.get("activation_peak_gib"),
        logged.get("non_torch_gib"),
        logged.get("available_kv_cache_gib"),
    ]
    total, utilization = entry.get("gpu_total_gib"), args.get("gpu_memory_utilization")
    if None in parts or not total or not utilization or version >= fit.CUDA_GRAPH_PROFILING_SINCE:
        return None
    added = sum(parts)
    if abs(added - total * utilization) <= BREAKDOWN_TOLERANCE * total:
        return None
    return (
        f"its breakdown adds up to {added:.2f} GiB, not the {total * utilization:.2f} GiB of "
        f"{total} GiB x {utilization}: the source copied a figure or the utilization wrong"
    )


def entries() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml"))


def parse_version(text) -> tuple | None:
    match = re.match(r"\s*v?(\d+)\.(\d+)", str(text or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def stated_version(path: Path) -> tuple | None:
    """The release named in the comment of an unversioned entry's `vllm_version` line."""
    match = re.search(r"^vllm_version:\s*null\s*#.*?\bv?0\.(\d+)", path.read_text(), re.M)
    return (0, int(match.group(1))) if match else None


def variant_for(recipe: dict, checkpoint: str | None, weights: str | None) -> str | None:
    """The recipe variant serving the log's checkpoint: the one naming it (when its precision is
    the log's weights), else the first variant of the log's weights precision; None when the
    weights are unknown or no variant has them."""
    variants = recipe.get("variants") or {}
    model_id = (recipe.get("model") or {}).get("model_id") or ""
    wanted = WEIGHTS_PRECISIONS.get(weights or "", (weights,) if weights else ())
    for key, v in variants.items():
        served = v.get("model_id") or (model_id if key == "default" else None)
        if checkpoint and served == checkpoint and (not wanted or v.get("precision") in wanted):
            return key
    for precision in wanted:
        for key, v in variants.items():
            if v.get("precision") == precision:
                return key
    return None


def profile_for(entry: dict, profiles: dict) -> tuple[dict | None, str]:
    """The hardware profile of the log with the total memory the log reports, else the profile
    of the card it names, else a profile from `GPU_FACTS`; and where the total comes from."""
    hw = entry.get("hardware")
    profile = dict(profiles.get(hw) or {}) if hw else {}
    total = entry.get("gpu_total_gib")
    if isinstance(total, (int, float)) and total > 0:
        profile.setdefault("vram_per_gpu_gb", total)
        profile["memory_total_gib"] = float(total)
        return profile, "logged total"
    if profile:
        return profile, f"profile {hw}"
    name = str(entry.get("gpu") or "")
    for pattern, gib, cc, _ in GPU_FACTS:
        if re.search(pattern, name):
            return {
                "display_name": name,
                "vram_per_gpu_gb": gib,
                "memory_total_gib": gib,
                "compute_capability": cc,
            }, f"GPU_FACTS {pattern}"
    return None, ""


def shape_for(entry: dict, version: tuple) -> fit.Shape:
    args = entry.get("args") or {}
    util = args.get("gpu_memory_utilization") or fit.default_utilization(version)
    return fit.Shape(
        tp=args.get("tensor_parallel_size") or 1,
        pp=args.get("pipeline_parallel_size") or 1,
        dp=args.get("data_parallel_size") or 1,
        kv_cache_dtype=args.get("kv_cache_dtype") or "auto",
        gpu_memory_utilization=float(util),
        max_model_len=args.get("max_model_len"),
        max_num_batched_tokens=args.get("max_num_batched_tokens"),
        max_num_seqs=args.get("max_num_seqs"),
        enforce_eager=bool(args.get("enforce_eager")),
        expert_parallel=bool(args.get("enable_expert_parallel")),
    )


def replay(path: Path, recipes: dict, profiles: dict) -> Replay:
    entry = yaml.safe_load(path.read_text())
    logged = entry.get("logged") or {}
    out = Replay(
        path.stem,
        logged=logged.get("available_kv_cache_gib"),
        failed=bool(logged.get("failed")),
    )
    if "unreplayable" in (entry.get("tags") or ()):
        note = " ".join(str(entry.get("notes") or "").split())
        out.skipped = "tagged unreplayable: " + (note[:110] + "..." if len(note) > 110 else note)
        return out
    if entry.get("engine") == "v0":
        out.skipped = (
            "vLLM V0 engine: its profiler (worker.py, removed in 0.11) is not the V1 accounting "
            "that 0.33 does and this model follows"
        )
        return out
    # "Model loading took X GiB", or the weights term of V1's breakdown line
    out.logged_weights = logged.get("model_loading_gib") or logged.get("weights_gib")
    if out.logged is None and not out.failed and out.logged_weights is None:
        out.skipped = "no 'Available KV cache memory' (nor model loading) in the log"
        return out
    version = parse_version(entry.get("vllm_version")) or stated_version(path) or UNKNOWN_VERSION
    failure = str(logged.get("failed") or "")
    if out.failed and version < fit.CUDA_GRAPH_PROFILING_SINCE and "capture" in failure:
        out.skipped = (
            "failed in CUDA graph capture after the KV cache was sized, which releases before "
            "0.21 did not budget for (vLLM >= 0.21 profiles the graphs first)"
        )
        return out
    if out.failed and not any(word in failure.lower() for word in MEMORY_FAILURE_WORDS):
        out.skipped = f"failed for a reason other than memory: {failure[:90]}"
        return out
    mismatch = breakdown_mismatch(entry, version)
    if mismatch:
        out.skipped = mismatch
        return out
    recipe = recipes.get(entry.get("recipe") or "")
    inline = entry.get("hf_config")
    if isinstance(inline, dict):  # the log's own config.json facts, cited in the entry
        config = {k: v for k, v in inline.items() if k != "config_source"}
        recipe = {
            "model": {"model_id": entry.get("checkpoint"), "hf_config": config},
            "variants": {},
        }
    if recipe is None or not fit.hf_config_of(recipe):
        out.skipped = "no recipe with model.hf_config (config facts unknown)"
        return out
    weights = entry.get("weights")
    if not weights or weights == "unknown":
        out.skipped = "the checkpoint's weights format is not in the log"
        return out
    variant = variant_for(recipe, entry.get("checkpoint"), weights)
    if variant is None:
        precision = WEIGHTS_PRECISIONS.get(weights, (weights,))[0]
        if precision not in fit.QUANTIZED_BYTES_PER_PARAM and precision not in ("bf16", "fp16"):
            out.skipped = f"weights {weights}: no recipe variant and no per-component count"
            return out
        # the log's own checkpoint, sized per component from hf_config
        recipe = {
            **recipe,
            "variants": {**recipe.get("variants", {}), "log": {"precision": precision}},
        }
        variant = "log"
    if "+" in str(entry.get("gpu") or ""):
        out.skipped = "mixed GPUs in one engine: the budget is per card"
        return out
    profile, _ = profile_for(entry, profiles)
    if profile is None:
        out.skipped = f"the memory of its GPU ({entry.get('gpu')}) is neither logged nor known"
        return out
    args = entry.get("args") or {}
    unusual = [a for a in args.get("other") or () if "kv-transfer-config" in str(a)]
    if args.get("speculative_config") or unusual:
        out.skipped = (
            f"unusual setup the model does not size: {(unusual or ['speculative decoding'])[0]}"
        )
        return out
    out.version = version
    result = fit.fit_deployment(
        recipe,
        variant,
        entry.get("hardware") or "log",
        profile,
        shape_for(entry, version),
        version=version,
    )
    if result.weights_gib_per_gpu is not None:
        out.predicted_weights = result.weights_gib_per_gpu + result.overhead.weights_padding_gib
    if out.logged is None and not out.failed:
        return out  # a weights check only
    out.predicted = result.kv_cache_gib_per_gpu
    if version < fit.VLLM_VERSION and any(g in str(entry.get("gpu")) for g in UMA_GPUS):
        # verdict only: 0.33 reads an integrated GPU's free memory from psutil, since
        # cudaMemGetInfo leaves out the OS's reclaimable page cache (vllm/utils/mem_utils.py:143-151
        # of 0.33.0); earlier releases counted that cache as memory other processes hold
        out.uma_before_fix = True
    # the verdict the pages give: one request of the length the command asks for (its
    # --max-model-len, else the model's context) fits in the KV cache
    wanted = result.shape.max_model_len or result.context_length
    out.predicted_fits = bool(
        result.max_model_len and (wanted is None or result.max_model_len >= wanted)
    )
    return out


def replay_corpus() -> list[Replay]:
    catalog, _ = load_catalog(PROJECT_ROOT)
    recipes = {doc.hf_id: doc.data for doc in catalog.recipes}
    profiles = catalog.hardware_profiles()
    return [replay(p, recipes, profiles) for p in entries()]


def table(rows: list[Replay]) -> str:
    lines = [
        f"{'entry':58} {'version':8} {'predicted':>10} {'logged':>8} {'error':>7}"
        f" {'weights':>8} {'loaded':>7}"
    ]
    for r in rows:
        if r.skipped:
            lines.append(f"{r.entry:58} skipped: {r.skipped}")
            continue
        version = ".".join(map(str, r.version))
        err = "-" if r.error is None else f"{r.error:.1%}"
        predicted = "-" if r.predicted is None else f"{r.predicted:.2f}"
        logged = "-" if r.logged is None else f"{r.logged:.2f}"
        verdict = ""
        if r.failed:
            verdict = "  (failed to start; predicted " + (
                "fits)" if r.predicted_fits else "does not fit)"
            )
        weights = "-" if r.predicted_weights is None else f"{r.predicted_weights:.2f}"
        loaded = "-" if r.logged_weights is None else f"{r.logged_weights:.2f}"
        lines.append(
            f"{r.entry:58} {version:8} {predicted:>10} {logged:>8} {err:>7} {weights:>8} {loaded:>7}"
            + verdict
        )
    errors = [r.error for r in rows if r.error is not None]
    if errors:
        others = sum(1 for r in rows if not r.skipped and r.error is None)
        lines.append(
            f"median error {statistics.median(errors):.1%}, worst {max(errors):.1%}: "
            f"{len(errors)} entries against their logged KV memory, {others} for their verdict or "
            f"weights only, {sum(1 for r in rows if r.skipped)} skipped"
        )
    return "\n".join(lines)


@pytest.fixture(scope="module")
def replays() -> list[Replay]:
    rows = replay_corpus()
    print("\n" + table(rows))
    return rows


def test_the_corpus_has_replayable_entries(replays):
    assert [r for r in replays if not r.skipped], "no entry of the corpus could be replayed"


def test_every_skip_states_its_reason(replays):
    for r in replays:
        assert r.skipped is None or len(r.skipped) > 20, r.entry


def test_available_kv_cache_within_tolerance(replays):
    misses = [
        f"{r.entry}: predicted {r.predicted:.2f} GiB, logged {r.logged:.2f} GiB"
        for r in replays
        if not r.skipped
        and r.predicted is not None
        and r.logged is not None
        and not r.uma_before_fix
        and not r.within_tolerance
    ]
    assert not misses, "\n".join(misses)


def test_weights_as_loaded_within_tolerance(replays):
    """The weights term alone: the predicted weights per GPU (padding included) against
    "Model loading took X GiB", with the same tolerance."""
    checked = [r for r in replays if r.predicted_weights is not None and r.logged_weights]
    assert checked
    misses = [
        f"{r.entry}: predicted {r.predicted_weights:.2f} GiB, loaded {r.logged_weights:.2f} GiB"
        for r in checked
        if abs(r.predicted_weights - r.logged_weights)
        > RELATIVE_TOLERANCE * r.logged_weights + ABSOLUTE_TOLERANCE_GIB
    ]
    assert not misses, "\n".join(misses)


def test_median_error(replays):
    errors = [r.error for r in replays if not r.skipped and r.error is not None]
    assert statistics.median(errors) <= MEDIAN_TOLERANCE


def test_no_failed_start_is_predicted_to_fit(replays):
    wrong = [r.entry for r in replays if not r.skipped and r.failed and r.predicted_fits]
    assert not wrong, wrong
