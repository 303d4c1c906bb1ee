"""recipes_site.catalog.load_catalog: traversal, fallbacks, file-level errors, the compat corpus."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import catalog_kit as kit
import pytest

from recipes_site.catalog import PROJECT_ROOT, Catalog, RecipeDoc, lint, load_catalog, loader
from recipes_site.catalog.diagnostics import Level, errors, summary, warnings

V = kit.VALID_RECIPE


def recipe_for(hf_id: str) -> str:
    return kit.replace(V, '  model_id: "acme/Widget-7B"\n', f'  model_id: "{hf_id}"\n')


def test_fixture_root_loads(tmp_path):
    root = kit.make_root(tmp_path, with_example=True)
    catalog, diags = load_catalog(root)
    assert diags == []
    assert isinstance(catalog, Catalog)
    assert catalog.root == root
    assert list(catalog.hardware_profiles()) == [
        "h100",
        "h200",
        "b200",
        "rtx_5090",
        "mi300x",
        "xeon6",
    ]
    assert list(catalog.strategies) == [
        "multi_node_tp",
        "pd_cluster",
        "single_node_tp",
    ]  # byte-sorted files
    assert catalog.strategies["pd_cluster"]["router"] == {"policy": "round_robin"}
    assert list(catalog.kv_stores) == ["kv_store_test"]
    assert catalog.kv_stores["kv_store_test"]["vllm"]["env"]["PYTHONHASHSEED"] == 0
    assert catalog.platforms["platforms"][0]["id"] == "modal"
    assert catalog.files_checked == 7
    doc = catalog.recipes[0]
    assert isinstance(doc, RecipeDoc)
    assert doc.hf_id == "acme/Widget-7B"
    assert doc.rel_path == "models/acme/Widget-7B.yaml"
    assert doc.path == root / "models" / "acme" / "Widget-7B.yaml"
    assert doc.positions[("variants", "default", "precision")] == (
        kit.line_of(V, "precision: bf16"),
        16,
    )
    assert doc.positions[("model", "base_args", 0)] == (kit.line_of(V, "--trust-remote-code"), 7)
    assert summary(diags, catalog.files_checked) == "7 files checked: 0 errors, 0 warnings"


def test_traversal_order_is_byte_order_recursive(tmp_path):
    root = kit.make_root(tmp_path)
    names = [
        "zai-org/GLM.yaml",
        "acme/b-model.yaml",
        "acme/B-Other.yaml",
        "Wan-AI/Wan.yaml",
        "ByteDance-Seed/Seed.yaml",
        "acme/a.yml",
        "Zeta/z.yaml",
    ]
    for rel in names:
        org, file = rel.split("/")
        kit.write_recipe(root, rel, recipe_for(f"{org}/{file.rsplit('.', 1)[0]}"))
    catalog, diags = load_catalog(root)
    assert diags == []
    assert [d.hf_id for d in catalog.recipes] == [
        "ByteDance-Seed/Seed",
        "Wan-AI/Wan",
        "Zeta/z",
        "acme/B-Other",
        "acme/a",
        "acme/b-model",
        "zai-org/GLM",
    ]


def test_misplaced_recipe_files(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, "Stray.yaml", V)
    kit.write_recipe(root, "acme/extra/Copy-Model.yaml", recipe_for("acme/Copy-Model"))
    kit.write_recipe(root, "acme/notes.txt", "hello\n")
    kit.write_recipe(root, "acme/.hidden.yaml", "not: [valid\n")
    catalog, diags = load_catalog(root)
    got = [(Path(d.path).as_posix().split("models/")[1], d.message) for d in diags]
    assert got == [
        (
            "Stray.yaml",
            "recipe file is directly under models/: recipes live at models/<hf_org>/<hf_repo>.yaml",
        ),
        (
            "acme/extra/Copy-Model.yaml",
            "recipe file is nested too deeply: recipes live at models/<hf_org>/<hf_repo>.yaml",
        ),
        ("acme/notes.txt", "not a recipe file: recipe files end in .yaml or .yml"),
    ]
    assert all(d.level is Level.ERROR for d in diags)
    # misplaced YAML still loads (and is validated); the id follows the reference rule
    assert [d.hf_id for d in catalog.recipes] == ["Stray", "acme/Copy-Model"]


def test_yaml_errors_keep_the_file_out_of_the_catalogue(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    kit.write_recipe(root, "acme/Broken.yaml", "meta:\n  title: a\n  title: b\n")
    kit.write_recipe(root, "acme/Empty.yaml", "")
    kit.write_recipe(root, "acme/List.yaml", "- a\n")
    catalog, diags = load_catalog(root)
    assert [d.hf_id for d in catalog.recipes] == ["acme/Widget-7B"]
    assert [(Path(d.path).name, d.line) for d in diags] == [
        ("Broken.yaml", 3),
        ("Empty.yaml", 1),
        ("List.yaml", 1),
    ]
    assert catalog.files_checked == 6 + 4


def test_every_problem_of_every_file_is_collected(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(
        root,
        "acme/A.yaml",
        kit.replace(recipe_for("acme/A"), "    precision: bf16\n", "    precision: bf17\n"),
    )
    kit.write_recipe(root, "acme/B.yaml", recipe_for("acme/B") + "unknown_key: 1\n")
    kit.write_recipe(root, "acme/C.yaml", "a: [\n")
    (root / "kv_store" / "kv_store_test.yaml").write_text(
        "name: kv_store_test\ndeploy_type: kv\n", encoding="utf-8"
    )
    diags = load_catalog(root)[1]
    assert [(Path(d.path).name, d.key_path) for d in errors(diags)] == [
        ("kv_store_test.yaml", "deploy_type"),
        ("A.yaml", "variants.default.precision"),
        ("B.yaml", "unknown_key"),
        ("C.yaml", ""),
    ]


def test_duplicate_recipe_ids(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    kit.write_recipe(root, "acme/Widget-7B.yml", V)
    kit.write_recipe(
        root, "ACME/widget-7b.yaml", recipe_for("ACME/widget-7b")
    )  # collides on case-insensitive disks
    diags = load_catalog(root)[1]
    assert [(Path(d.path).name, d.level) for d in diags] == [
        ("Widget-7B.yaml", Level.ERROR),
        ("Widget-7B.yaml", Level.ERROR),
        ("Widget-7B.yml", Level.ERROR),
    ]
    case_id, case_org, same = diags
    assert (
        "'acme/Widget-7B' differs from 'ACME/widget-7b'" in case_id.message
        and "letter case" in case_id.message
    )
    assert "organisation folder 'acme' differs from 'ACME'" in case_org.message
    assert "already used by" in same.message and same.message.endswith("Widget-7B.yaml")


def test_missing_pieces_come_from_the_project_root(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "PROJECT_ROOT", kit.FIXTURE_ROOT)
    root = tmp_path / "bare"
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    catalog, diags = load_catalog(root)
    assert diags == []
    assert "h200" in catalog.hardware_profiles()
    assert list(catalog.strategies) == ["multi_node_tp", "pd_cluster", "single_node_tp"]
    assert list(catalog.kv_stores) == ["kv_store_test"]
    assert catalog.platforms is not None
    assert [d.hf_id for d in catalog.recipes] == ["acme/Widget-7B"]  # recipes only from ROOT/models


def test_root_files_win_over_the_project_root(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "PROJECT_ROOT", kit.FIXTURE_ROOT)
    root = tmp_path / "own"
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    (root / "strategies").mkdir()
    (root / "strategies" / "only.yaml").write_text(
        "name: only\ndeploy_type: single_node\n", encoding="utf-8"
    )
    catalog, diags = load_catalog(root)
    assert list(catalog.strategies) == ["only"]
    assert [d.message for d in errors(diags)] == ["unknown strategy 'single_node_tp'"]
    # the project's taxonomy lists strategies this root does not define
    assert {Path(d.path).name for d in warnings(diags)} == {"taxonomy.yaml"}


def test_no_shared_files_anywhere_does_not_crash(tmp_path, monkeypatch):
    monkeypatch.setattr(loader, "PROJECT_ROOT", tmp_path / "nothing")
    root = tmp_path / "bare"
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    catalog, diags = load_catalog(root)
    assert catalog.taxonomy == {} and catalog.strategies == {} and catalog.platforms is None
    assert catalog.hardware_profiles() == {}
    assert errors(diags) == []
    assert len(catalog.recipes) == 1


def test_missing_root_and_missing_models(tmp_path):
    catalog, diags = load_catalog(tmp_path / "nope")
    assert catalog.recipes == [] and [d.message for d in diags] == [
        "recipes root not found (not a directory)"
    ]
    root = kit.make_root(tmp_path)
    os.rmdir(root / "models")
    diags = load_catalog(root)[1]
    assert [d.message for d in diags] == ["the recipes root has no models/ directory"]


def test_display_paths_are_relative_to_the_cwd(tmp_path, monkeypatch):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, "acme/Widget-7B.yaml", V + "oops: 1\n")
    monkeypatch.chdir(tmp_path)
    for given in (Path("root"), root):
        catalog, diags = load_catalog(given)
        assert diags[0].path == "root/models/acme/Widget-7B.yaml"
        assert catalog.recipes[0].display_path == "root/models/acme/Widget-7B.yaml"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    diags = load_catalog(Path("../root"))[1]
    assert diags[0].path == str(Path("../root/models/acme/Widget-7B.yaml"))


def test_project_root_is_the_repository():
    assert (PROJECT_ROOT / "recipes_site" / "__init__.py").is_file()


# ---- the reference corpus -------------------------------------------------------------------------------


def test_compat_corpus_has_no_errors():
    if not kit.COMPAT_CORPUS.is_dir():
        pytest.skip("compat corpus not available on this machine")
    catalog, diags = load_catalog(kit.COMPAT_CORPUS)
    assert errors(diags) == [], "\n".join(d.format() for d in errors(diags))
    assert len(catalog.recipes) == 103
    assert all(doc.spec is not None for doc in catalog.recipes)
    assert len(catalog.strategies) == 9 and len(catalog.kv_stores) == 2
    assert catalog.files_checked == 103 + 1 + 1 + 9 + 2
    contributor = {
        d for doc in catalog.recipes for d in lint.lint_recipe(doc, Level.WARNING)
    }  # test_validate_contrib
    kinds = Counter(
        d.message.split("'")[0].split(" GB")[0].rstrip("0123456789 ")
        for d in warnings(diags)
        if d not in contributor
    )
    assert set(kinds) <= {
        "related recipe",
        "model_id",
        "meta.hardware entry",
        "a hardware gate on a feature without modes is ignored",
        "declares",
        "variants",
        # shell_rules.py: the corpus's two legacy command-word shapes (warnings, not errors)
        "flag and value in one list item:",
        "docker_image is a command, not an image:",
    }
    assert kinds["variants"] == 1  # ERNIE: two variants serve one checkpoint
    rel = [doc.rel_path for doc in catalog.recipes]
    assert rel == sorted(rel, key=lambda p: [part.encode() for part in p.split("/")])
    assert rel[0].startswith("models/Google/") and rel[-1].startswith("models/zai-org/")
    assert kinds["model_id"] == 5  # Google/ files serving google/ ids
    dsv = next(d for d in catalog.recipes if d.hf_id == "deepseek-ai/DeepSeek-V3.2")
    assert dsv.data["meta"]["date_added"] == "2025-12-04"
    assert dsv.spec.variants["nvfp4"].model_id == "nvidia/DeepSeek-V3.2-NVFP4"


def test_strategy_names_must_be_unique_across_folders(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    (root / "strategies" / "zz_copy.yaml").write_text(
        "name: single_node_tp\ndeploy_type: single_node\n", encoding="utf-8"
    )
    (root / "kv_store" / "zz.yaml").write_text(
        "name: pd_cluster\ndeploy_type: kv_store_lb\n", encoding="utf-8"
    )
    catalog, diags = load_catalog(root)
    assert [(Path(d.path).name, d.line, d.level, d.message) for d in diags] == [
        (
            "zz_copy.yaml",
            1,
            Level.ERROR,
            f"the name 'single_node_tp' is already used by {root / 'strategies' / 'single_node_tp.yaml'}",
        ),
        (
            "zz.yaml",
            1,
            Level.ERROR,
            f"the name 'pd_cluster' is already used by {root / 'strategies' / 'pd_cluster.yaml'}",
        ),
    ]
    assert (
        catalog.strategies["single_node_tp"]["display_name"] == "Tensor Parallel"
    )  # first file wins
    assert "pd_cluster" not in catalog.kv_stores


def test_strategy_name_differing_from_its_file_is_a_warning(tmp_path):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, "acme/Widget-7B.yaml", V)
    (root / "strategies" / "single_node_tp.yaml").rename(root / "strategies" / "tp.yaml")
    catalog, diags = load_catalog(root)
    assert [(Path(d.path).name, d.level, d.message) for d in diags] == [
        ("tp.yaml", Level.WARNING, "name 'single_node_tp' differs from the file name 'tp.yaml'")
    ]
    assert "single_node_tp" in catalog.strategies
