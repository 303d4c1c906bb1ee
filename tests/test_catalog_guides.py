"""Issue 6: every guide of our catalog has the same shape, so a reader finds the launch command,
a client call, a benchmark and the memory fixes in the same place on every model page.

Sections, in order: Overview, Prerequisites, Launch, Client usage, Benchmarking, Troubleshooting,
References. Benchmarking runs `vllm bench serve`; Troubleshooting covers memory; References link
the sources, among them every checkpoint a variant downloads. The rule itself is the library's
(`recipes_site/catalog/lint.py: check_guide`, run by `recipes-site validate`); these tests hold
every bundled recipe to it and show it has teeth."""

from __future__ import annotations

import dataclasses
import re

import pytest

from recipes_site.catalog import PROJECT_ROOT, lint, load_catalog

CATALOG, _ = load_catalog(PROJECT_ROOT)
DOCS = {doc.hf_id: doc for doc in CATALOG.recipes}


def guide_problems(hf_id: str, recipe: dict | None = None) -> list[str]:
    """`key.path: message` of the library's guide rule on a catalog recipe (its data replaced by
    ``recipe`` when given)."""
    doc = DOCS[hf_id] if recipe is None else dataclasses.replace(DOCS[hf_id], data=recipe)
    return [f"{d.key_path}: {d.message}" for d in lint.check_guide(lint.subject(doc))]


@pytest.mark.parametrize("hf_id", sorted(DOCS))
def test_guide_has_the_catalog_shape(hf_id):
    assert guide_problems(hf_id) == []


def test_the_shape_check_has_teeth():
    recipe = dict(DOCS["Qwen/Qwen3-32B"].data)
    assert guide_problems("Qwen/Qwen3-32B", recipe) == []
    without_bench = re.sub(
        r"## Benchmarking.*?(?=## Troubleshooting)", "", recipe["guide"], flags=re.S
    )
    problems = guide_problems("Qwen/Qwen3-32B", {**recipe, "guide": without_bench})
    assert problems == ["guide: the guide has no '## Benchmarking' section"]
    renamed = recipe["guide"].replace("Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-32B-F8")
    assert any(
        "downloads Qwen/Qwen3-32B-FP8, which the guide does not name" in p
        for p in guide_problems("Qwen/Qwen3-32B", {**recipe, "guide": renamed})
    )
    unlinked = re.sub(r"https://\S+", "(link)", recipe["guide"])
    assert "guide: References has no https:// link" in guide_problems(
        "Qwen/Qwen3-32B", {**recipe, "guide": unlinked}
    )


def test_new_recipes_start_with_the_sections():
    import yaml

    from recipes_site.scaffold import scaffold

    guide = yaml.safe_load(scaffold("acme/Thing-1B").text)["guide"]
    assert list(lint.guide_sections(guide)) == list(lint.GUIDE_SECTIONS)
