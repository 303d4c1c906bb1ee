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
from recipes_site.cache import cache_dir, keep_in_memory
from recipes_site.catalog import PROJECT_ROOT

RECIPES = [
    "Qwen/Qwen3-8B",
    "microsoft/Phi-4-mini-instruct",
    "microsoft/Phi-4-multimodal-instruct",
    "microsoft/Phi-4-reasoning",
    "google/gemma-4-E4B-it",
    "meta-llama/Llama-3.1-8B-Instruct",
    "meta-llama/Llama-3.3-70B-Instruct",
]
LINK = "\n  See also [Gemma 4 E4B](/google/gemma-4-E4B-it/).\n"


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _inodes(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_ino for p in folder.rglob("*") if p.is_file()}


def _recipe_paths(paths, hf_id: str) -> set[str]:
    """The files one recipe produces (its pages and API documents), among `paths`."""
    own = (f"{hf_id}/", f"api/v1/models/{hf_id}/")
    return {
        p for p in paths if p.startswith(own) or p in (f"{hf_id}.md", f"api/v1/models/{hf_id}.json")
    }


def _edit(root: Path, hf_id: str, old: str, new: str) -> None:
    path = root / "models" / f"{hf_id}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _clean(root: Path, out: Path) -> dict[str, bytes]:
    result = build(root, out, incremental=False)
    assert result.ok and result.files_reused == 0
    return _tree(out)


def _root(root: Path) -> Path:
    for name in ("strategies", "kv_store"):
        shutil.copytree(PROJECT_ROOT / name, root / name)
    for name in ("taxonomy.yaml", "platforms.yaml"):
        shutil.copy(PROJECT_ROOT / name, root / name)
    for hf_id in RECIPES:
        (root / "models" / hf_id).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PROJECT_ROOT / "models" / f"{hf_id}.yaml", root / "models" / f"{hf_id}.yaml")
    _edit(root, "Qwen/Qwen3-8B", "guide: |\n", "guide: |" + LINK)
    return root


def _steps(base: Path, build_step=build):
    """(root, out, {step: (result, tree, inodes, clean tree)}) over: first build, no change, an edit
    of one recipe's description, a retitled related recipe, a removed recipe that a guide links to.
    `build_step(root, out, name)` is the incremental build of each step."""
    root, out = _root(base / "root"), base / "site"
    out_steps = {}

    def step(name):
        result = build_step(root, out) if build_step is build else build_step(root, out, name)
        assert result.ok, [d.format() for d in result.diagnostics]
        out_steps[name] = (result, _tree(out), _inodes(out), _clean(root, base / f"clean-{name}"))

    step("first")
    step("unchanged")
    _edit(root, "Qwen/Qwen3-8B", '  description: "Compact', '  description: "Small')
    step("description")
    _edit(root, "microsoft/Phi-4-reasoning", 'title: "Phi-4-reasoning"', 'title: "Phi-4 Reasoning"')
    step("title")
    (root / "models" / "google" / "gemma-4-E4B-it.yaml").unlink()
    step("removed")
    return root, out, out_steps


@pytest.fixture(scope="module")
def steps(tmp_path_factory):
    return _steps(tmp_path_factory.mktemp("incremental"))


@pytest.fixture(scope="module")
def kept_steps(tmp_path_factory):
    """The same steps in a process that keeps parses, cache entries and rendered pages between
    builds, as `serve` does (cache.keep_in_memory), plus {step: the catalog-wide pages its
    incremental build rendered}."""
    from recipes_site.render import pages

    rendered: dict[str, list[str]] = {}
    original = pages._Pages.render

    def build_step(root, out, name):
        def counting(self, template, path, **page):
            rendered[name].append(path)
            return original(self, template, path, **page)

        rendered[name] = []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(pages._Pages, "render", counting)
            return build(root, out)

    keep_in_memory()
    try:
        yield *_steps(tmp_path_factory.mktemp("kept"), build_step), rendered
    finally:
        keep_in_memory(False)


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
    assert rewritten == [
        ".recipes-site-manifest.json"
    ]  # the rest, indexes included, is hard-linked


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
    page = "microsoft/Phi-4-multimodal-instruct/index.html"  # lists Phi-4-reasoning as related
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
    from recipes_site import build as build_module
    from recipes_site.render import pages

    templates = tmp_path / "templates"
    shutil.copytree(pages.TEMPLATES, templates)
    monkeypatch.setattr(pages, "TEMPLATES", templates)
    monkeypatch.setattr(build_module, "TEMPLATES", templates)  # (the cache's fingerprint)
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
    # one entry per recipe (one was removed) and one for the catalog-wide files, and the
    # templates' compiled code (pages._bytecode_cache)
    entries = [n for n in os.listdir(cache_dir(out)) if n.endswith(".json")]
    assert cache_dir(out).is_dir() and len(entries) == len(RECIPES) - 1 + 1
    assert sorted(os.listdir(cache_dir(out))) == sorted([*entries, "templates"])
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


@pytest.mark.parametrize("name", ["first", "unchanged", "description", "title", "removed"])
def test_a_build_in_a_process_that_keeps_builds_in_memory_is_byte_identical_to_a_clean_one(
    kept_steps, name
):
    _, _, by_step, _ = kept_steps
    _, tree, _, clean = by_step[name]
    assert tree.keys() == clean.keys()
    assert [p for p in tree if tree[p] != clean[p]] == []


def test_a_kept_process_renders_again_only_the_catalog_pages_whose_arguments_changed(kept_steps):
    _, _, by_step, rendered = kept_steps
    assert (
        "hardware/index.html" in rendered["first"] and "microsoft/index.html" in rendered["first"]
    )
    assert rendered["unchanged"] == []  # the catalog-wide entry: every file hard-linked
    # Qwen's description shows on its provider page and the home page, not on Microsoft's page
    assert "Qwen/index.html" in rendered["description"] and "index.html" in rendered["description"]
    assert "microsoft/index.html" not in rendered["description"]
    assert "microsoft/index.html" in rendered["title"]  # Phi-4-reasoning's new title


def test_an_unchanged_catalog_reuses_the_catalog_wide_files_without_building_them(
    steps, tmp_path, monkeypatch
):
    root, _, _ = steps
    site = tmp_path / "site"
    assert build(root, site).ok
    before = _tree(site)
    import recipes_site.build as build_module

    monkeypatch.setattr(
        build_module, "catalog_files", lambda *a, **k: pytest.fail("catalog files built again")
    )
    assert build(root, site).ok and _tree(site) == before


def test_a_hand_edited_output_file_is_built_again_in_a_kept_process(tmp_path):
    root, site = _root(tmp_path / "root"), tmp_path / "site"
    keep_in_memory()
    try:
        assert build(root, site).ok
        page, home = site / "Qwen/Qwen3-8B/index.html", site / "index.html"
        good_page, good_home = page.read_bytes(), home.read_bytes()
        for path in (page, home):
            with open(path, "r+b") as f:  # in place: same inode, new size and mtime
                f.write(b"tampered")
        assert build(root, site).ok
        assert page.read_bytes() == good_page and home.read_bytes() == good_home
    finally:
        keep_in_memory(False)


def test_a_kept_process_recycles_the_previous_site_whatever_it_holds(tmp_path):
    """`serve` keeps the site before the current one beside it and rebuilds into it: what it
    holds beyond the files to reuse (stale pages, a planted symlink, an empty folder) is gone
    from the next site, and nothing outside is touched."""
    from recipes_site.write import spare_path

    root, site, outside = _root(tmp_path / "root"), tmp_path / "site", tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    keep_in_memory()
    try:
        assert build(root, site).ok and build(root, site).ok
        spare = spare_path(site)
        assert spare.is_dir() and (spare / ".recipes-site-manifest.json").is_file()
        (spare / "Qwen/Qwen3-8B/index.html").unlink()
        (spare / "Qwen/Qwen3-8B/index.html").write_text("stale")
        (spare / "google/planted").symlink_to(outside, target_is_directory=True)
        (spare / "empty/folder").mkdir(parents=True)
        (spare / "hardware/stray.html").write_text("stray")
        _edit(root, "Qwen/Qwen3-8B", '  description: "Compact', '  description: "Small')
        assert build(root, site).ok
        assert _tree(site) == _clean(root, tmp_path / "clean")
        assert not (site / "empty").exists() and not os.path.lexists(site / "google/planted")
        assert (outside / "keep.txt").read_text() == "mine"
    finally:
        keep_in_memory(False)


def test_a_spare_folder_that_is_not_ours_is_left_alone(tmp_path):
    from recipes_site.write import spare_path

    root, site = _root(tmp_path / "root"), tmp_path / "site"
    spare = spare_path(site)
    spare.mkdir(parents=True)
    (spare / "notes.txt").write_text("mine")
    keep_in_memory()
    try:
        assert build(root, site).ok and build(root, site).ok
    finally:
        keep_in_memory(False)
    assert os.listdir(spare) == ["notes.txt"] and (spare / "notes.txt").read_text() == "mine"
    assert _tree(site) == _clean(root, tmp_path / "clean")


def test_a_one_shot_build_keeps_no_spare_and_uses_one_that_serve_left(tmp_path):
    from recipes_site.write import spare_path

    root, site = _root(tmp_path / "root"), tmp_path / "site"
    assert build(root, site).ok and build(root, site).ok
    assert not os.path.lexists(spare_path(site))
    keep_in_memory()
    try:
        assert build(root, site).ok
    finally:
        keep_in_memory(False)
    assert spare_path(site).is_dir()
    assert build(root, site).ok
    assert not os.path.lexists(spare_path(site))  # recycled as the staging folder, then deleted
    assert _tree(site) == _clean(root, tmp_path / "clean")


def test_a_kept_process_building_a_new_folder_keeps_a_spare_of_hard_links(tmp_path):
    from recipes_site.write import spare_path

    root, site = _root(tmp_path / "root"), tmp_path / "site"
    keep_in_memory()
    try:
        assert build(root, site).ok
        spare = spare_path(site)
        assert _inodes(spare) == _inodes(site)
        _edit(root, "Qwen/Qwen3-8B", '  description: "Compact', '  description: "Small')
        assert build(root, site).ok
    finally:
        keep_in_memory(False)
    assert _tree(site) == _clean(root, tmp_path / "clean")
