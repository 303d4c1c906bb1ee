"""Incremental builds (cache.py): a cached build equals a clean one byte for byte, an edit rebuilds
only what shows the edited recipe, and a template change rebuilds everything.

One small root (seven of our recipes over four providers, with related recipes and a guide link
to another recipe's page) is built step by step in one module-scoped fixture; each step is also
built clean (no cache, fresh folder) to compare against.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from recipes_site.build import build
from recipes_site.cache import cache_dir
from recipes_site.catalog import PROJECT_ROOT

RECIPES = ["Qwen/Qwen3-8B", "microsoft/Phi-4-mini-instruct", "microsoft/Phi-4-multimodal-instruct",
           "microsoft/Phi-4-reasoning", "google/gemma-4-E4B-it", "meta-llama/Llama-3.1-8B-Instruct",
           "meta-llama/Llama-3.3-70B-Instruct"]
LINK = "\n  See also [Gemma 4 E4B](/google/gemma-4-E4B-it/).\n"


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _inodes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


def _recipe_paths(paths, hf_id: str) -> set[str]:
    """The files one recipe produces (its pages and API documents), among `paths`."""
    own = (f"{hf_id}/", f"api/v1/models/{hf_id}/")
    return {p for p in paths if p.startswith(own) or p in (f"{hf_id}.md", f"api/v1/models/{hf_id}.json")}


def _edit(root: Path, hf_id: str, old: str, new: str) -> None:
    path = root / "models" / f"{hf_id}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _clean(root: Path, out: Path) -> dict[str, bytes]:
    result = build(root, out, incremental=False)
    assert result.ok and result.files_reused == 0
    return _tree(out)


@pytest.fixture(scope="module")
def steps(tmp_path_factory):
    """(root, out, {step: (result, tree, inodes, clean tree)}) over: first build, no change, an edit
    of one recipe's description, a retitled related recipe, a removed recipe that a guide links to."""
    base = tmp_path_factory.mktemp("incremental")
    root, out = base / "root", base / "site"
    for name in ("strategies", "kv_store"):
        shutil.copytree(PROJECT_ROOT / name, root / name)
    for name in ("taxonomy.yaml", "platforms.yaml"):
        shutil.copy(PROJECT_ROOT / name, root / name)
    for hf_id in RECIPES:
        (root / "models" / hf_id).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / "models" / f"{hf_id}.yaml", root / "models" / f"{hf_id}.yaml")
    _edit(root, "Qwen/Qwen3-8B", "guide: |\n", "guide: |" + LINK)
    out_steps = {}

    def step(name):
        result = build(root, out)
        assert result.ok, [d.format() for d in result.diagnostics]
        out_steps[name] = (result, _tree(out), _inodes(out), _clean(root, base / f"clean-{name}"))

    step("first")
    step("unchanged")
    _edit(root, "Qwen/Qwen3-8B", "  description: \"Compact", "  description: \"Small")
    step("description")
    _edit(root, "microsoft/Phi-4-reasoning", 'title: "Phi-4-reasoning"', 'title: "Phi-4 Reasoning"')
    step("title")
    (root / "models" / "google" / "gemma-4-E4B-it.yaml").unlink()
    step("removed")
    return root, out, out_steps


@pytest.mark.parametrize("name", ["first", "unchanged", "description", "title", "removed"])
def test_a_cached_build_is_byte_identical_to_a_clean_one(steps, name):
    _, _, by_step = steps
    _, tree, _, clean = by_step[name]
    assert tree.keys() == clean.keys()
    assert [p for p in tree if tree[p] != clean[p]] == []


def test_an_unchanged_rebuild_reuses_every_file(steps):
    _, _, by_step = steps
    result, _, inodes, _ = by_step["unchanged"]
    assert result.files_reused > 0
    assert result.files_reused == sum(len(_recipe_paths(inodes, h)) for h in RECIPES)
    first = by_step["first"][2]
    rewritten = [p for p in inodes if inodes[p] != first.get(p)]
    assert rewritten == [".recipes-site-manifest.json"]   # the rest, indexes included, is hard-linked


def test_an_edit_rebuilds_only_that_recipes_files(steps):
    _, _, by_step = steps
    before, after = by_step["unchanged"][2], by_step["description"][2]
    changed = {p for p in after if before.get(p) != after[p]}
    assert _recipe_paths(changed, "Qwen/Qwen3-8B")
    others = set().union(*(_recipe_paths(after, h) for h in RECIPES if h != "Qwen/Qwen3-8B"))
    assert changed & others == set()
    assert by_step["description"][0].files_reused == len(others)


def test_a_retitled_recipe_rebuilds_the_pages_that_show_its_title(steps):
    _, _, by_step = steps
    before, after = by_step["description"], by_step["title"]
    page = "microsoft/Phi-4-multimodal-instruct/index.html"   # lists Phi-4-reasoning as related
    assert b"Phi-4 Reasoning" in after[1][page] and b"Phi-4 Reasoning" not in before[1][page]
    assert before[2][page] != after[2][page]
    unrelated = "meta-llama/Llama-3.3-70B-Instruct/index.html"
    assert before[2][unrelated] == after[2][unrelated]


def test_a_removed_recipe_unlinks_the_guides_that_pointed_at_it(steps):
    _, _, by_step = steps
    page = "Qwen/Qwen3-8B/index.html"
    assert b'href="/google/gemma-4-E4B-it/"' in by_step["title"][1][page]
    assert b'href="/google/gemma-4-E4B-it/"' not in by_step["removed"][1][page]
    assert not any(p.startswith("google/gemma-4-E4B-it") for p in by_step["removed"][1])


def test_a_template_change_rebuilds_everything(steps, tmp_path, monkeypatch):
    root, out, _ = steps
    from recipes_site.render import pages
    templates = tmp_path / "templates"
    shutil.copytree(pages.TEMPLATES, templates)
    monkeypatch.setattr(pages, "TEMPLATES", templates)
    site = tmp_path / "site"
    assert build(root, site).ok
    assert build(root, site).files_reused > 0
    page = templates / "base.html"
    page.write_text(page.read_text(encoding="utf-8") + "\n<!-- changed -->\n", encoding="utf-8")
    result = build(root, site)
    assert result.ok and result.files_reused == 0
    assert (site / "Qwen/Qwen3-8B/index.html").read_bytes().endswith(b"<!-- changed -->")


def test_the_cache_lives_beside_the_output_and_is_never_published(steps):
    _, out, _ = steps
    assert cache_dir(out).is_dir() and len(os.listdir(cache_dir(out))) == len(RECIPES) - 1
    assert not any(".recipes-site-cache" in p for p in _tree(out))


def test_a_cache_folder_that_is_a_symlink_is_neither_read_nor_written(steps, tmp_path):
    root, _, _ = steps
    site, elsewhere = tmp_path / "site", tmp_path / "elsewhere"
    elsewhere.mkdir()
    cache_dir(site).parent.mkdir(parents=True)
    cache_dir(site).symlink_to(elsewhere)
    assert build(root, site).ok
    assert build(root, site).files_reused == 0
    assert list(elsewhere.iterdir()) == []
