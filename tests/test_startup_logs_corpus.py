"""The corpus of real vLLM startup logs is well formed.

Every entry under tests/data/startup_logs/ is a public startup log that the memory model is
calibrated and checked against, so each one must name its source, its environment and what
vLLM printed, in one fixed shape (tests/data/startup_logs/README.md describes it).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "data" / "startup_logs"

TOP_KEYS = [
    "source",
    "vllm_version",
    "engine",
    "gpu",
    "hardware",
    "gpu_count",
    "gpu_total_gib",
    "checkpoint",
    "recipe",
    "hf_config",
    "weights",
    "tags",
    "args",
    "logged",
    "excerpt",
    "notes",
]
ARG_KEYS = [
    "tensor_parallel_size",
    "gpu_memory_utilization",
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "kv_cache_dtype",
    "enforce_eager",
    "quantization",
    "speculative_config",
    "other",
]
LOGGED_KEYS = [
    "model_loading_gib",
    "weights_gib",
    "non_torch_gib",
    "activation_peak_gib",
    "available_kv_cache_gib",
    "kv_cache_tokens",
    "max_concurrency",
    "cuda_graph_gib",
    "failed",
]
# Figures that are sizes and therefore positive. available_kv_cache_gib is left out on
# purpose: vLLM prints negative values when the model does not fit (e.g. -2.14 GiB).
POSITIVE_LOGGED = [
    "model_loading_gib",
    "weights_gib",
    "non_torch_gib",
    "activation_peak_gib",
    "kv_cache_tokens",
    "cuda_graph_gib",
]
WEIGHT_FORMATS = {
    "bf16",
    "fp16",
    "fp8",
    "mxfp4",
    "nvfp4",
    "awq-int4",
    "gptq-int4",
    "gptq-int8",
    "int8",
    "int4",
    "mixed",
    "unknown",  # the source does not say which build was loaded
}
ID_PATTERN = re.compile(r"^[a-z0-9]+(-[a-z0-9.]+)*$")


def _entry_paths() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml"))


def _hardware_ids() -> set[str]:
    taxonomy = yaml.safe_load((REPO_ROOT / "taxonomy.yaml").read_text(encoding="utf-8"))
    return set(taxonomy["hardware_profiles"])


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def test_corpus_is_large_enough():
    assert len(_entry_paths()) >= 25


def test_ids_are_unique_kebab_case():
    ids = [path.stem for path in _entry_paths()]
    assert len(ids) == len(set(ids))
    for entry_id in ids:
        assert ID_PATTERN.match(entry_id), entry_id


@pytest.fixture(params=_entry_paths(), ids=lambda path: path.stem)
def entry(request) -> dict:
    return yaml.safe_load(request.param.read_text(encoding="utf-8"))


def test_keys_in_order(entry):
    assert list(entry) == TOP_KEYS
    assert list(entry["args"]) == ARG_KEYS
    assert list(entry["logged"]) == LOGGED_KEYS


def test_source_and_environment(entry):
    assert re.match(r"^https://\S+$", entry["source"]), entry["source"]
    assert entry["vllm_version"] is None or isinstance(entry["vllm_version"], str)
    assert entry["engine"] in {"v0", "v1"}
    assert entry["gpu"] is None or isinstance(entry["gpu"], str)
    assert entry["hardware"] is None or entry["hardware"] in _hardware_ids()
    assert isinstance(entry["gpu_count"], int) and entry["gpu_count"] >= 1
    total = entry["gpu_total_gib"]
    assert total is None or (_is_number(total) and total > 0)
    assert isinstance(entry["checkpoint"], str) and "/" in entry["checkpoint"]
    assert entry["weights"] in WEIGHT_FORMATS
    assert isinstance(entry["excerpt"], str) and entry["excerpt"].strip()
    assert entry["notes"] is None or isinstance(entry["notes"], str)


def test_tags(entry):
    tags = entry["tags"]
    assert isinstance(tags, list) and tags
    assert all(isinstance(tag, str) for tag in tags)
    assert len(tags) == len(set(tags))
    assert any(tag in tags for tag in ("nvidia", "amd")), tags
    assert f"tp{entry['args']['tensor_parallel_size']}" in tags
    assert ("failed" in tags) == (entry["logged"]["failed"] is not None)


def test_args(entry):
    args = entry["args"]
    assert isinstance(args["tensor_parallel_size"], int) and args["tensor_parallel_size"] >= 1
    utilization = args["gpu_memory_utilization"]
    assert utilization is None or (_is_number(utilization) and 0 < utilization <= 1)
    for key in ("max_model_len", "max_num_seqs", "max_num_batched_tokens"):
        assert args[key] is None or (isinstance(args[key], int) and args[key] > 0), key
    assert args["kv_cache_dtype"] is None or isinstance(args["kv_cache_dtype"], str)
    assert isinstance(args["enforce_eager"], bool)
    assert args["quantization"] is None or isinstance(args["quantization"], str)
    assert args["speculative_config"] is None or isinstance(args["speculative_config"], (str, dict))
    assert isinstance(args["other"], list)
    assert all(isinstance(flag, str) for flag in args["other"])
    assert args["tensor_parallel_size"] <= entry["gpu_count"]


def test_logged_figures(entry):
    logged = entry["logged"]
    for key in POSITIVE_LOGGED:
        value = logged[key]
        assert value is None or (_is_number(value) and value > 0), key
    available = logged["available_kv_cache_gib"]
    assert available is None or _is_number(available)
    concurrency = logged["max_concurrency"]
    if concurrency is not None:
        assert set(concurrency) == {"tokens_per_request", "x"}
        assert isinstance(concurrency["tokens_per_request"], int)
        assert concurrency["tokens_per_request"] > 0
        assert _is_number(concurrency["x"]) and concurrency["x"] > 0
    assert logged["failed"] is None or (
        isinstance(logged["failed"], str) and logged["failed"].strip()
    )
    figures = [logged[key] for key in LOGGED_KEYS if key != "failed"]
    assert any(value is not None for value in figures) or logged["failed"], (
        "an entry must carry at least one logged figure or a failure"
    )


def test_architecture_is_replayable_or_marked(entry):
    """Each entry names a recipe, carries the checkpoint's config, or says why not."""
    recipe = entry["recipe"]
    if recipe is not None:
        assert (REPO_ROOT / "models" / f"{recipe}.yaml").is_file(), recipe
    hf_config = entry["hf_config"]
    if hf_config is not None:
        assert isinstance(hf_config, dict)
        assert re.match(r"^https://\S+$", hf_config.get("config_source", "")), (
            "hf_config needs a config_source URL"
        )
        assert "num_hidden_layers" in hf_config
    if recipe is None and hf_config is None:
        assert "unreplayable" in entry["tags"]
        assert entry["notes"] and "unreplayable" in entry["notes"]
