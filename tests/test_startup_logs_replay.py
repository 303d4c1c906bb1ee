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
# A log without its version: the corpus's entries without one are V1 logs of the 0.10/0.11 era
# (their collect_env shows PyTorch 2.7/2.8), replayed as such.
UNKNOWN_VERSION = (0, 10)
QUANT_MARKERS = {"fp8": "fp8", "nvfp4": "nvfp4", "mxfp4": "mxfp4", "awq": "awq", "gptq": "gptq"}


@dataclass
class Replay:
    entry: str
    predicted: float | None = None
    logged: float | None = None
    failed: bool = False
    predicted_fits: bool | None = None
    skipped: str | None = None
    version: tuple = ()

    @property
    def error(self) -> float | None:
        if self.predicted is None or self.logged is None:
            return None
        return abs(self.predicted - self.logged) / abs(self.logged) if self.logged else None

    @property
    def within_tolerance(self) -> bool:
        assert self.predicted is not None and self.logged is not None
        slack = RELATIVE_TOLERANCE * abs(self.logged) + ABSOLUTE_TOLERANCE_GIB
        return abs(self.predicted - self.logged) <= slack


def entries() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml"))


def parse_version(text) -> tuple | None:
    match = re.match(r"\s*v?(\d+)\.(\d+)", str(text or ""))
    return (int(match.group(1)), int(match.group(2))) if match else None


def variant_for(recipe: dict, checkpoint: str | None) -> str | None:
    """The recipe variant serving `checkpoint`: the one naming it, else the variant of the same
    organisation's precision marker (`...-FP8` -> fp8) or the default for an unmarked checkpoint
    of the recipe's own organisation; None for third-party quantizations (unknown weights)."""
    variants = recipe.get("variants") or {}
    model_id = (recipe.get("model") or {}).get("model_id") or ""
    if not checkpoint:
        return None
    for key, v in variants.items():
        if (v.get("model_id") or (model_id if key == "default" else None)) == checkpoint:
            return key
    org = checkpoint.split("/")[0]
    if org != model_id.split("/")[0]:
        return None
    name = checkpoint.lower()
    marker = next((p for m, p in QUANT_MARKERS.items() if re.search(rf"[-_]{m}\b", name)), None)
    if marker is None:
        return "default" if "default" in variants else None
    return next((k for k, v in variants.items() if v.get("precision") == marker), None)


def profile_for(entry: dict, profiles: dict) -> dict | None:
    """The hardware profile of the log, its total memory replaced by what the log reports."""
    hw = entry.get("hardware")
    profile = dict(profiles.get(hw) or {}) if hw else {}
    total = entry.get("gpu_total_gib")
    if isinstance(total, (int, float)) and total > 0:
        profile.setdefault("vram_per_gpu_gb", total)
        profile["memory_total_gib"] = float(total)
    return profile or None


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
    if entry.get("engine") == "v0":
        out.skipped = (
            "vLLM V0 engine: its profiler (worker.py, removed in 0.11) is not the V1 accounting "
            "that 0.33 does and this model follows"
        )
        return out
    if out.logged is None:
        out.skipped = "no 'Available KV cache memory' in the log"
        return out
    recipe = recipes.get(entry.get("recipe") or "")
    if recipe is None or not fit.hf_config_of(recipe):
        out.skipped = "no recipe with model.hf_config (config facts unknown)"
        return out
    variant = variant_for(recipe, entry.get("checkpoint"))
    if variant is None:
        out.skipped = (
            f"checkpoint {entry.get('checkpoint')} is no variant of {entry.get('recipe')}: "
            "its weights are unknown"
        )
        return out
    profile = profile_for(entry, profiles)
    if profile is None:
        out.skipped = "neither a hardware profile nor the GPU's total memory"
        return out
    args = entry.get("args") or {}
    unusual = [a for a in args.get("other") or () if "kv-transfer-config" in str(a)]
    if args.get("speculative_config") or unusual:
        out.skipped = (
            f"unusual setup the model does not size: {(unusual or ['speculative decoding'])[0]}"
        )
        return out
    version = parse_version(entry.get("vllm_version")) or UNKNOWN_VERSION
    out.version = version
    result = fit.fit_deployment(
        recipe,
        variant,
        entry.get("hardware") or "log",
        profile,
        shape_for(entry, version),
        version=version,
    )
    out.predicted = result.kv_cache_gib_per_gpu
    out.predicted_fits = bool(result.context_fits)
    return out


def replay_corpus() -> list[Replay]:
    catalog, _ = load_catalog(PROJECT_ROOT)
    recipes = {doc.hf_id: doc.data for doc in catalog.recipes}
    profiles = catalog.hardware_profiles()
    return [replay(p, recipes, profiles) for p in entries()]


def table(rows: list[Replay]) -> str:
    lines = [f"{'entry':58} {'version':8} {'predicted':>10} {'logged':>8} {'error':>7}"]
    for r in rows:
        if r.skipped:
            lines.append(f"{r.entry:58} skipped: {r.skipped}")
            continue
        version = ".".join(map(str, r.version))
        err = "-" if r.error is None else f"{r.error:.1%}"
        lines.append(
            f"{r.entry:58} {version:8} {r.predicted:>10.2f} {r.logged:>8.2f} {err:>7}"
            + ("  (failed to start)" if r.failed else "")
        )
    errors = [r.error for r in rows if r.error is not None]
    if errors:
        lines.append(
            f"median error {statistics.median(errors):.1%}, worst {max(errors):.1%}, "
            f"{len(errors)} replayed, {sum(1 for r in rows if r.skipped)} skipped"
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
        if not r.skipped and r.predicted is not None and not r.within_tolerance
    ]
    assert not misses, "\n".join(misses)


def test_median_error(replays):
    errors = [r.error for r in replays if not r.skipped and r.error is not None]
    assert statistics.median(errors) <= MEDIAN_TOLERANCE


def test_no_failed_start_is_predicted_to_fit(replays):
    wrong = [r.entry for r in replays if not r.skipped and r.failed and r.predicted_fits]
    assert not wrong, wrong
