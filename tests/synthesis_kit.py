"""Shared helpers for the synthesis tests (tests/ is on sys.path under pytest).

The Context is built from the project's own taxonomy.yaml, strategies/*.yaml and
kv_store/*.yaml, exactly as the build does: strategies keyed by their `name` (files in byte
order), kv-store specs merged into the same map after them and listed in `kv_ids`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from recipes_site.synthesis import Context

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "fixtures" / "synthesis"


def _load_dir(folder: Path) -> dict:
    specs = {}
    for path in sorted(folder.glob("*.yaml"), key=lambda p: p.name.encode()):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        specs[data["name"]] = data
    return specs


@functools.cache
def context() -> Context:
    taxonomy = yaml.safe_load((ROOT / "taxonomy.yaml").read_text(encoding="utf-8"))
    strategies = _load_dir(ROOT / "strategies")
    kv = _load_dir(ROOT / "kv_store")
    return Context(
        profiles=taxonomy["hardware_profiles"], strategies={**strategies, **kv}, kv_ids=tuple(kv)
    )


def hw(hw_id: str):
    return context().hardware(hw_id)


def recipe_fixture(name: str) -> dict:
    """A small recipe written for these tests (tests/fixtures/synthesis/<name>.yaml)."""
    return yaml.safe_load((HERE / f"{name}.yaml").read_text(encoding="utf-8"))


def recipe(model_id: str = "acme/Test-8B", vram: int = 16, precision: str = "bf16", **top) -> dict:
    """A minimal valid-looking recipe dict; keyword arguments add or replace top-level keys."""
    out = {
        "meta": {"title": "Test", "tasks": ["text"]},
        "model": {"model_id": model_id, "base_args": [], "base_env": {}},
        "variants": {"default": {"precision": precision, "vram_minimum_gb": vram}},
        "compatible_strategies": ["single_node_tp"],
    }
    out.update(top)
    return out
