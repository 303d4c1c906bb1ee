"""Schema validation of recipes (types.py) and how its errors read (schema_errors.py)."""

from __future__ import annotations

import json
from pathlib import Path

import catalog_kit as kit
import jsonschema
import pytest

from recipes_site.catalog import load_catalog
from recipes_site.catalog.diagnostics import errors
from recipes_site.catalog.types import Recipe, recipe_json_schema

REL = "acme/Widget-7B.yaml"


def check(tmp_path: Path, text: str):
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, REL, text)
    catalog, diags = load_catalog(root)
    return catalog, diags


def single_error(diags, key_path: str):
    found = [d for d in errors(diags) if d.key_path == key_path]
    assert len(found) == 1, [d.format() for d in diags]
    return found[0]


def test_valid_recipe_has_no_diagnostics(tmp_path):
    catalog, diags = check(tmp_path, kit.VALID_RECIPE)
    assert diags == []
    doc = catalog.recipes[0]
    assert isinstance(doc.spec, Recipe)
    assert doc.spec.variants["default"].precision == "bf16"
    assert doc.data["meta"]["date_added"] == "2025-01-02"
    # absent stays None, {} stays {}
    assert doc.spec.strategy_overrides == {} and doc.spec.kv_offload_support is None


def test_unknown_top_level_key_with_did_you_mean(tmp_path):
    text = kit.VALID_RECIPE + "varaints:\n  fp8: {precision: fp8, vram_minimum_gb: 8}\n"
    catalog, diags = check(tmp_path, text)
    diag = single_error(diags, "varaints")
    assert diag.message == "unknown key 'varaints'"
    assert diag.hint == "did you mean 'variants'?"
    assert (diag.line, diag.col) == (kit.line_of(text, "varaints:"), 1)
    assert diag.path.endswith("models/acme/Widget-7B.yaml")
    assert catalog.recipes[0].spec is None  # still in the catalogue, but without a spec


def test_unknown_nested_key_points_at_the_key(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE, "    precision: bf16\n", "    precision: bf16\n    precision_hardwre: x\n"
    )
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "variants.default.precision_hardwre")
    assert diag.message == "unknown key 'precision_hardwre'"
    assert diag.hint == "did you mean 'precision_hardware'?"
    assert (diag.line, diag.col) == (kit.line_of(text, "precision_hardwre"), 5)


def test_unknown_key_without_near_miss_lists_the_allowed_keys(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE, '  slug: "widget-7b"\n', '  slug: "widget-7b"\n  zzzzzz: 1\n'
    )
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "meta.zzzzzz")
    assert diag.hint.startswith("allowed keys: title, slug, provider")


def test_string_instead_of_list(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE,
        '  base_args:\n    - "--trust-remote-code"\n',
        '  base_args: "--trust-remote-code"\n',
    )
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "model.base_args")
    assert diag.message.startswith("expected a list of strings, got a string")
    assert diag.hint == 'write it as a YAML list: - "--trust-remote-code"'
    assert (diag.line, diag.col) == (kit.line_of(text, "base_args"), 14)


def test_number_inside_args_list(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE,
        '    - "--trust-remote-code"\n',
        '    - "--trust-remote-code"\n    - "--max-num-seqs"\n    - 8\n',
    )
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "model.base_args[2]")
    assert diag.message == "expected a string, got an integer (8)"
    assert diag.hint == 'quote it: "8"'
    assert (diag.line, diag.col) == (kit.line_of(text, "    - 8"), 7)


@pytest.mark.parametrize(
    "old, new, key_path, message, hint",
    [
        (
            "    precision: bf16\n",
            "    precision: nvpf4\n",
            "variants.default.precision",
            "unknown value 'nvpf4'; expected one of:",
            "did you mean 'nvfp4'?",
        ),
        (
            "  difficulty: beginner\n",
            "  difficulty: beginer\n",
            "meta.difficulty",
            "unknown value 'beginer'",
            "did you mean 'beginner'?",
        ),
        (
            "  architecture: dense\n",
            "  architecture: moE\n",
            "model.architecture",
            "unknown value 'moE'",
            "did you mean 'moe'?",
        ),
        (
            "    h200: verified\n",
            "    h200: verifed\n",
            "meta.hardware.h200",
            "unknown value 'verifed'",
            "did you mean 'verified'?",
        ),
        (
            "    vram_minimum_gb: 16\n",
            '    vram_minimum_gb: "16"\n',
            "variants.default.vram_minimum_gb",
            'expected an integer, got a string ("16")',
            "write the number without quotes: 16",
        ),
        (
            "    vram_minimum_gb: 16\n",
            "    vram_minimum_gb: -1\n",
            "variants.default.vram_minimum_gb",
            "expected an integer ≥ 0, got an integer (-1)",
            "",
        ),
        (
            '  min_vllm_version: "0.10.0"\n',
            "  min_vllm_version: 0.18\n",
            "model.min_vllm_version",
            "expected a string, got a number (0.18)",
            'quote it: "0.18"',
        ),
        (
            "  date_added: 2025-01-02\n",
            "  date_added: yesterday\n",
            "meta.date_added",
            'expected a date YYYY-MM-DD, got a string ("yesterday")',
            "",
        ),
        (
            "  base_env: {}\n",
            '  base_env: {"BAD-NAME": "1"}\n',
            "model.base_env.BAD-NAME",
            "'BAD-NAME' is not a valid environment variable name",
            "use letters, digits and underscores, not starting with a digit",
        ),
        (
            "  base_env: {}\n",
            "  base_env: {FOO: [1]}\n",
            "model.base_env.FOO",
            "expected a string, number or boolean, got a list",
            "",
        ),
        (
            "  tasks:\n    - text\n",
            "  tasks: text\n",
            "meta.tasks",
            "expected a list of values among: text, multimodal, omni, embedding, got a string",
            "write it as a YAML list",
        ),
        (
            "  related_recipes: []\n",
            "  related_recipes: []\n  hardware_notes: 1\n",
            "meta.hardware_notes",
            "unknown key 'hardware_notes'",
            "",
        ),
    ],
)
def test_type_and_enum_errors(tmp_path, old, new, key_path, message, hint):
    text = kit.replace(kit.VALID_RECIPE, old, new)
    _, diags = check(tmp_path, text)
    diag = single_error(diags, key_path)
    assert diag.message.startswith(message), diag.format()
    assert diag.hint.startswith(hint), diag.format()
    assert diag.line == kit.line_of(text, new.strip().split("\n")[-1].split(":")[0].strip())


def test_yes_is_not_a_boolean(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE,
        "  context_length: 32768\n",
        "  context_length: 32768\n  nightly_required: yes\n",
    )
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "model.nightly_required")
    assert diag.message == 'expected true or false, got a string ("yes")'
    assert "yes/no/on/off are strings" in diag.hint


def test_tp_accepts_int_or_hardware_map_and_reports_once(tmp_path):
    good = kit.replace(
        kit.VALID_RECIPE,
        "    vram_minimum_gb: 16\n",
        "    vram_minimum_gb: 16\n    tp: {h200: 2, hopper: 4}\n",
    )
    assert check(tmp_path / "a", good)[1] == []
    bad = kit.replace(
        kit.VALID_RECIPE, "    vram_minimum_gb: 16\n", '    vram_minimum_gb: 16\n    tp: "2"\n'
    )
    _, diags = check(tmp_path / "b", bad)
    assert len(diags) == 1
    assert (
        diags[0].message
        == 'expected an integer or a mapping of hardware key to integer, got a string ("2")'
    )
    assert diags[0].key_path == "variants.default.tp"
    inner = kit.replace(
        kit.VALID_RECIPE,
        "    vram_minimum_gb: 16\n",
        "    vram_minimum_gb: 16\n    tp: {h200: two}\n",
    )
    _, diags = check(tmp_path / "c", inner)
    assert [d.key_path for d in diags] == ["variants.default.tp.h200"]
    assert diags[0].message == 'expected an integer, got a string ("two")'


def test_env_values_keep_their_types(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE, "  base_env: {}\n", '  base_env: {A: "1", B: 0, C: true, D: 1.5}\n'
    )
    catalog, diags = check(tmp_path, text)
    assert diags == []
    assert catalog.recipes[0].spec.model.base_env == {"A": "1", "B": 0, "C": True, "D": 1.5}


@pytest.mark.parametrize(
    "install, ok",
    [
        ('{pip: false, docker: {note: "n"}}', True),
        ("{pip: null, docker: null}", True),
        ("{pip: {}, docker: {}}", True),
        ("{pip: true}", False),
        ('{pip: "uv pip install x"}', False),
    ],
)
def test_install_block(tmp_path, install, ok):
    text = kit.replace(
        kit.VALID_RECIPE, "  base_env: {}\n", f"  base_env: {{}}\n  install: {install}\n"
    )
    _, diags = check(tmp_path, text)
    assert (diags == []) is ok, [d.format() for d in diags]
    if not ok:
        assert diags[0].key_path == "model.install.pip"


@pytest.mark.parametrize(
    "image, ok",
    [
        ("vllm/vllm-openai:v1", True),
        ("{nvidia: a, amd: b}", True),
        ("{nvidia: {cu130: c}}", True),
        ("{cu129: a, cu130: b}", True),
        ("{nvida: a}", False),
        ("[a]", False),
    ],
)
def test_docker_image_shapes(tmp_path, image, ok):
    text = kit.replace(
        kit.VALID_RECIPE, "  base_env: {}\n", f"  base_env: {{}}\n  docker_image: {image}\n"
    )
    _, diags = check(tmp_path, text)
    assert (diags == []) is ok, [d.format() for d in diags]


def test_missing_meta_is_an_error(tmp_path):
    text = kit.VALID_RECIPE.split("model:\n", 1)[1]
    _, diags = check(tmp_path, "model:\n" + text)
    diag = single_error(diags, "meta")
    assert diag.message == "missing required key 'meta'"
    assert (diag.line, diag.col) == (1, 1)


def test_missing_nested_key_points_at_the_parent(tmp_path):
    text = kit.replace(kit.VALID_RECIPE, '  title: "Widget 7B"\n', "")
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "meta.title")
    assert diag.message == "missing required key 'title'"
    assert (diag.line, diag.col) == (1, 1)  # the `meta:` key
    text = kit.replace(kit.VALID_RECIPE, "    vram_minimum_gb: 16\n", "")
    _, diags = check(tmp_path / "2", text)
    diag = single_error(diags, "variants.default.vram_minimum_gb")
    assert diag.line == kit.line_of(text, "  default:")


def test_missing_default_variant(tmp_path):
    text = kit.replace(kit.VALID_RECIPE, "  default:\n", "  bf16:\n")
    _, diags = check(tmp_path, text)
    diag = single_error(diags, "variants")
    assert diag.message == "missing required variant 'default'"
    assert diag.line == kit.line_of(text, "variants:")


def test_all_errors_of_a_file_are_reported(tmp_path):
    text = kit.VALID_RECIPE + "foo: 1\nbar: 2\n"
    text = kit.replace(text, "    precision: bf16\n", "    precision: bf17\n")
    _, diags = check(tmp_path, text)
    assert sorted(d.key_path for d in diags) == ["bar", "foo", "variants.default.precision"]
    assert [d.line for d in diags] == sorted(d.line for d in diags)


# ---- JSON Schema -------------------------------------------------------------------------------------


def test_json_schema_is_valid_deterministic_and_documented():
    schema = recipe_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("recipe.schema.json")
    assert schema["title"]
    assert json.dumps(schema) == json.dumps(recipe_json_schema())
    variant = schema["$defs"]["Variant"]
    assert "nvfp4" in variant["properties"]["precision"]["enum"]
    assert variant["properties"]["precision"]["description"]
    assert schema["$defs"]["Meta"]["properties"]["difficulty"]["enum"] == [
        "beginner",
        "intermediate",
        "advanced",
        "hard",
    ]
    assert schema["properties"]["variants"]["required"] == ["default"]
    assert schema["additionalProperties"] is False


def test_json_schema_accepts_the_valid_recipe_and_rejects_typos(tmp_path):
    catalog, _ = check(tmp_path, kit.VALID_RECIPE)
    validator = jsonschema.Draft202012Validator(recipe_json_schema())
    data = catalog.recipes[0].data
    assert list(validator.iter_errors(data)) == []
    data = dict(data, varaints={})
    assert list(validator.iter_errors(data))
    env = dict(data["model"], base_env={"PYTHONHASHSEED": 0})
    assert (
        list(
            jsonschema.Draft202012Validator(recipe_json_schema()).iter_errors(
                dict(catalog.recipes[0].data, model=env)
            )
        )
        == []
    )


# ---- deferred model building (types._CONFIG defer_build) ------------------------------------------------

_DEFERRED_PROBE = r'''
import json
from pathlib import Path
from pydantic import BaseModel
from recipes_site.catalog import load_catalog
from recipes_site.catalog import types as T

def inlined(node, definitions):
    """The core schema with every definition reference replaced by the definition itself."""
    if isinstance(node, dict):
        if node.get("type") == "definitions":
            definitions = {**definitions, **{d["ref"]: d for d in node["definitions"]}}
            return inlined(node["schema"], definitions)
        if node.get("type") == "definition-ref":
            extra = {k: v for k, v in node.items() if k not in ("type", "schema_ref")}
            target = inlined(definitions[node["schema_ref"]], definitions)
            return {"ref-with": inlined(extra, definitions), "schema": target} if extra else target
        return {k: inlined(v, definitions) for k, v in node.items()}
    if isinstance(node, list):
        return [inlined(v, definitions) for v in node]
    return node

models = [v for v in vars(T).values() if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == T.__name__]
roots = (T.Recipe, T.Taxonomy, T.Strategy, T.KvStoreSpec, T.Platforms)
load_catalog(Path(%r))
print(json.dumps(sorted(m.__name__ for m in models if m.__pydantic_complete__)))
deferred = [inlined(r.__pydantic_core_schema__, {}) for r in roots]
for m in models:                      # what the module built before: every model on its own, in order,
    m.model_rebuild(force=True)       # each root reusing its nested models' schemas
eager = [inlined(r.__pydantic_core_schema__, {}) for r in roots]
print(all(d == e for d, e in zip(deferred, eager)), [r.__name__ for r, d, e in zip(roots, deferred, eager) if d != e])
'''


def test_nested_models_are_built_inside_their_root_with_the_schema_an_eager_build_gives(tmp_path):
    """A catalog load builds validators for the five root models only; each root's core schema
    (definition references inlined) is the one it gets when every model is built on its own first,
    as pydantic does without defer_build (the nested models' schemas reused): same validation,
    same errors. Fails when a model is built eagerly again or deferring changes a schema."""
    from cli_kit import fresh_interpreter

    root = kit.make_root(tmp_path)
    kit.write_recipe(root, REL, kit.VALID_RECIPE)
    built, same = fresh_interpreter(_DEFERRED_PROBE % str(root))
    assert json.loads(built) == ["KvStoreSpec", "Platforms", "Recipe", "Strategy", "Taxonomy"]
    assert same == "True []"


def test_a_nested_model_validates_on_its_own_as_it_does_inside_a_recipe():
    """A deferred model that is asked directly builds its validator then, with the errors it gives
    at its place in a recipe."""
    from pydantic import ValidationError

    from recipes_site.catalog import types as T

    with pytest.raises(ValidationError) as alone:
        T.InstallEntry.model_validate({"command": 5, "notes": "x"})
    with pytest.raises(ValidationError) as inside:
        T.Install.model_validate({"pip": {"command": 5, "notes": "x"}})
    strip = lambda errs, n: [(e["type"], e["loc"][n:], e["msg"]) for e in errs]  # noqa: E731
    assert strip(alone.value.errors(), 0) == strip(inside.value.errors(), 2)
    assert T.InstallEntry.model_validate({"command": "pip install x"}).command == "pip install x"
