"""Issue 10, paths: every id that becomes a file name or URL follows the Hugging Face repo-id
grammar, checked by `validate` at file:line, and ids that differ only in case or Unicode
normalisation are an error. Each case is a real build into a sandbox, then a look at the disk."""

from __future__ import annotations

import os
import unicodedata

import pytest
import security_kit as kit

from recipes_site.catalog import load_catalog
from recipes_site.catalog.ids import collision_key, id_problem

HOSTILE_IDS = [
    "../x",
    "zz/..",
    "/abs",
    "../templates",
    "acme/../../x",
    "acme/.",
    "./x",
    "acme/x/y",
    "acme/",
    "acme/-x",
    "acme/x.",
    "acme/a--b",
    "acme/x y",
    "acme/x\ny",
    "acme\\..\\x",
    "acme/Widget\u00e9",
    "acme/" + "a" * 97,
    "acme/" + "x" * 100_000,
]


@pytest.mark.parametrize("bad", HOSTILE_IDS, ids=lambda s: repr(s[:20]))
def test_hostile_variant_model_id_is_refused_at_its_line(tmp_path, bad):
    root, out = kit.sandbox(tmp_path)
    text = kit.recipe(variants=kit.variant("evil", bad))
    kit.write(root, "acme/Widget-7B.yaml", text)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    # a newline in the value is also hidden text (text_rules.py), reported at the same key
    [err, *also] = sorted(att.errors, key=lambda e: "invisible" in e.message)
    assert all("invisible" in e.message and e.key_path == err.key_path for e in also)
    line = text.splitlines().index("  evil:") + 4
    assert (err.line, err.key_path) == (line, "variants.evil.model_id")
    assert err.path.endswith("models/acme/Widget-7B.yaml")
    assert "Hugging Face repo-id grammar" in err.hint
    assert len(err.format()) < 700 and "x" * 200 not in err.format()  # the 100k id is clipped


@pytest.mark.parametrize("where", ["model", "related"])
def test_hostile_model_id_and_related_recipe_are_refused(tmp_path, where):
    root, out = kit.sandbox(tmp_path)
    if where == "model":
        text, key = kit.recipe("../templates"), "model.model_id"
    else:
        text, key = (
            kit.recipe(meta='  related_recipes: ["acme/Widget-7B", "../../etc"]\n'),
            "meta.related_recipes[1]",
        )
    kit.write(root, "acme/Widget-7B.yaml", text)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    assert key in [e.key_path for e in att.errors]


@pytest.mark.parametrize(
    "rel",
    [
        "acme/a..b.yaml",
        "-acme/Widget.yaml",
        "acme/Widget-.yaml",
        "ac me/W.yaml",
        "acme/" + "w" * 97 + ".yaml",
    ],
)
def test_a_file_whose_path_is_no_valid_id_is_refused(tmp_path, rel):
    root, out = kit.sandbox(tmp_path)
    hf_id = rel.rsplit(".", 1)[0]
    kit.write(root, rel, kit.recipe(hf_id))
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    assert any("the file path names the recipe" in e.message for e in att.errors)


def test_a_hostile_hardware_profile_id_is_refused(tmp_path):
    att = kit.refused(
        tmp_path, {"acme/Widget-7B.yaml": kit.recipe()}, taxonomy=("  h200:", "  ../../h200:")
    )
    assert any(
        e.path.endswith("taxonomy.yaml") and "hardware profile id '../../h200'" in e.message
        for e in att.errors
    )


def test_recipe_files_differing_only_in_case_are_an_error_naming_both(tmp_path):
    att = kit.refused(
        tmp_path,
        {"acme/Widget-7B.yaml": kit.recipe(), "acme/widget-7b.yaml": kit.recipe("acme/widget-7b")},
    )
    [err] = att.errors
    assert err.path.endswith("acme/widget-7b.yaml") and "models/acme/Widget-7B.yaml" in err.message
    assert "letter case" in err.message


def test_a_checkpoint_colliding_with_another_recipe_in_case_is_an_error_at_its_line(tmp_path):
    other = kit.recipe("acme/Gadget-1B", variants=kit.variant("fp8", "ACME/widget-7b"))
    att = kit.refused(tmp_path, {"acme/Widget-7B.yaml": kit.recipe(), "acme/Gadget-1B.yaml": other})
    [err] = att.errors
    assert err.path.endswith("Gadget-1B.yaml") and err.key_path == "variants.fp8.model_id"
    assert err.line == other.splitlines().index("  fp8:") + 4
    assert "ACME/widget-7b" in err.message and "Widget-7B.yaml" in err.message


def test_org_folders_differing_only_in_case_are_an_error(tmp_path):
    att = kit.refused(
        tmp_path,
        {"acme/Widget-7B.yaml": kit.recipe(), "Acme/Gadget-1B.yaml": kit.recipe("Acme/Gadget-1B")},
    )
    assert ["organisation folder 'acme' differs from 'Acme'" in e.message for e in att.errors] == [
        True
    ]


def test_unicode_normalisation_variants_collide_and_are_refused(tmp_path):
    nfc, nfd = unicodedata.normalize("NFC", "Caf\u00e9"), unicodedata.normalize("NFD", "Caf\u00e9")
    assert nfc != nfd and collision_key(f"acme/{nfc}") == collision_key(f"acme/{nfd}")
    assert collision_key("acme/\ufb01ne") == collision_key("acme/FINE")  # ligature, case
    root, out = kit.sandbox(tmp_path)
    kit.write(
        root,
        "acme/Widget-7B.yaml",
        kit.recipe(variants=kit.variant("a", f"acme/{nfc}") + kit.variant("b", f"acme/{nfd}")),
    )
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    assert {e.key_path for e in att.errors} == {"variants.a.model_id", "variants.b.model_id"}


def test_valid_ids_at_the_limits_build_and_serve_exactly_that_id(tmp_path):
    root, out = kit.sandbox(tmp_path)
    longest = "a" * 96 + "/" + "B_.-9" * 19 + "z"  # 96 characters per part
    assert id_problem(longest) is None
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe(variants=kit.variant("fp8", longest)))
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    # every file landed inside the output folder (or the build cache recipes-site keeps beside it,
    # recipes_site/cache.py), the checkpoint got its redirect page
    inside = os.path.relpath(out, tmp_path)
    cache = os.path.join(os.path.relpath(out.parent, tmp_path), ".recipes-site-cache")
    assert att.created and all(p.startswith((inside + os.sep, cache + os.sep)) for p in att.created)
    assert (out / longest / "index.html").is_file()
    assert any(c.startswith(f"vllm serve {longest} ") for c in kit.commands(out, "acme/Widget-7B"))


def test_model_id_differing_from_the_path_only_in_case_stays_a_warning(tmp_path):
    """The compat corpus has such recipes: the file names the page, model_id the command."""
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe("ACME/widget-7B"))
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    assert any("only in letter case" in d.message for d in att.result.diagnostics)
    assert (out / "acme" / "Widget-7B" / "index.html").is_file()
    assert not (out / "ACME").exists()
    assert all(
        c.startswith("vllm serve ACME/widget-7B ") for c in kit.commands(out, "acme/Widget-7B")
    )


def test_the_compat_corpus_has_no_id_errors():
    if not kit.COMPAT_CORPUS.is_dir():
        pytest.skip("compat corpus not available")
    _, diags = load_catalog(kit.COMPAT_CORPUS)
    assert [d.format() for d in diags if d.level == "error"] == []
