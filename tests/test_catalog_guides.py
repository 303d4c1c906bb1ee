"""Issue 6: every guide of our catalog has the same shape, so a reader finds the launch command,
a client call, a benchmark and the memory fixes in the same place on every model page.

Sections, in order: Overview, Prerequisites, Launch, Client usage, Benchmarking, Troubleshooting,
References. Benchmarking runs `vllm bench serve`; Troubleshooting covers memory; References link
the sources, among them every checkpoint a variant downloads."""
from __future__ import annotations

import re

import pytest

from recipes_site.catalog import PROJECT_ROOT, load_catalog

SECTIONS = ("Overview", "Prerequisites", "Launch", "Client usage", "Benchmarking", "Troubleshooting", "References")
MEMORY = re.compile(r"memory|KV cache|OOM|--max-model-len|--gpu-memory-utilization", re.I)

CATALOG, _ = load_catalog(PROJECT_ROOT)
RECIPES = {doc.hf_id: doc.data for doc in CATALOG.recipes}


def sections(guide: str) -> dict[str, str]:
    """`## ` heading -> its text (up to the next `## `)."""
    parts = re.split(r"^## +(.+?)\s*$", guide, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def guide_problems(hf_id: str, recipe: dict) -> list[str]:
    guide = recipe.get("guide") or ""
    found = sections(guide)
    problems = []
    if list(found) != list(SECTIONS):
        problems.append(f"sections {list(found)}, expected {list(SECTIONS)}")
    if "vllm bench serve" not in found.get("Benchmarking", ""):
        problems.append("Benchmarking has no `vllm bench serve` command")
    if not MEMORY.search(found.get("Troubleshooting", "")):
        problems.append("Troubleshooting says nothing about memory")
    if not re.search(r"https://", found.get("References", "")):
        problems.append("References has no link")
    for key, variant in (recipe.get("variants") or {}).items():
        repo = (variant or {}).get("model_id")
        if repo and repo not in guide:
            problems.append(f"variant {key}'s checkpoint {repo} is not named in the guide")
    return [f"{hf_id}: {p}" for p in problems]


@pytest.mark.parametrize("hf_id", sorted(RECIPES))
def test_guide_has_the_catalog_shape(hf_id):
    assert guide_problems(hf_id, RECIPES[hf_id]) == []


def test_the_shape_check_has_teeth():
    recipe = dict(RECIPES["Qwen/Qwen3-32B"])
    assert guide_problems("Qwen/Qwen3-32B", recipe) == []
    without_bench = re.sub(r"## Benchmarking.*?(?=## Troubleshooting)", "", recipe["guide"], flags=re.S)
    problems = guide_problems("x", {**recipe, "guide": without_bench})
    assert any("sections" in p for p in problems) and any("vllm bench serve" in p for p in problems)
    renamed = recipe["guide"].replace("Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-32B-F8")
    assert any("checkpoint Qwen/Qwen3-32B-FP8" in p for p in guide_problems("x", {**recipe, "guide": renamed}))


def test_new_recipes_start_with_the_sections():
    import yaml
    from recipes_site.scaffold import scaffold
    guide = yaml.safe_load(scaffold("acme/Thing-1B").text)["guide"]
    assert list(sections(guide)) == list(SECTIONS)
