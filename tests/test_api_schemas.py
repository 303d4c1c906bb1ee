"""Every JSON document a build writes satisfies its published JSON Schema, and the published
schemas work for consumers as they are: `$id` = the URL they are served at, no registry needed."""

from __future__ import annotations

import json

import jsonschema
import pytest
from jsonschema import Draft202012Validator

from recipes_site.build import build
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.render.schemas import all_schemas, schema_for, schema_name_for_path

BASE_URL = "https://recipes.example.org"


@pytest.fixture(scope="module")
def published_site(tmp_path_factory):
    """The project built for publishing at BASE_URL."""
    out = tmp_path_factory.mktemp("published") / "_site"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RECIPES_SITE_URL", BASE_URL)
        assert build(PROJECT_ROOT, out).ok
    return out


def test_schema_ids_are_the_urls_they_are_served_at(published_site):
    schemas = sorted((published_site / "api/v1/schema").glob("*.schema.json"))
    assert len(schemas) == len(all_schemas()) + 1  # + the recipe format
    for path in schemas:
        schema = json.loads(path.read_text())
        assert schema["$id"] == f"{BASE_URL}/{path.relative_to(published_site).as_posix()}"
        refs = json.dumps(schema).split('"$ref": ')[1:]
        assert all(r.startswith('"#/') for r in refs), path.name  # nothing outside the document


def test_plain_jsonschema_validate_works_with_each_published_schema(published_site):
    """What a consumer does: fetch a schema, `jsonschema.validate(doc, schema)`, no registry."""
    by_name: dict[str, list] = {}
    for path in sorted((published_site / "api/v1").rglob("*.json")):
        name = schema_name_for_path(str(path.relative_to(published_site)))
        if name is not None:
            by_name.setdefault(name, []).append(path)
    assert set(by_name) == {
        "models",
        "model",
        "model-hardware",
        "model-benchmarks",
        "model-deploy",
        "hardware",
        "hardware-index",
        "strategies",
        "taxonomy",
        "search-shard",
        "search-ids",
        "search-header",
        "picker-options",
    }
    for name, paths in by_name.items():
        schema = json.loads((published_site / f"api/v1/schema/{name}.schema.json").read_text())
        for path in paths[:5]:
            jsonschema.validate(json.loads(path.read_text()), schema)
    bad = json.loads(by_name["model-hardware"][0].read_text())
    bad["renderings"][0]["node_count"] = 0  # reaches the rendering schema inside $defs
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            bad,
            json.loads((published_site / "api/v1/schema/model-hardware.schema.json").read_text()),
        )


def test_the_published_recipe_schema_validates_a_recipe(published_site, recipes):
    schema = json.loads((published_site / "api/v1/schema/recipe.schema.json").read_text())
    jsonschema.validate(recipes["Qwen/Qwen3-8B"], schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**recipes["Qwen/Qwen3-8B"], "varaints": {}}, schema)


def test_every_api_document_matches_its_schema(project_site):
    site, _ = project_site
    checked = 0
    for path in sorted((site / "api/v1").rglob("*.json")):
        rel = str(path.relative_to(site))
        name = schema_name_for_path(rel)
        if name is None:
            assert rel.startswith("api/v1/schema/"), f"no schema covers {rel}"
            continue
        validator = Draft202012Validator(schema_for(name))  # self-contained: no registry
        problems = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(json.loads(path.read_text()))
        ]
        assert problems == [], f"{rel}: {problems[:3]}"
        checked += 1
    assert checked > 20


def test_published_schemas_are_valid_json_schema(project_site):
    site, _ = project_site
    for rel, schema in all_schemas().items():
        Draft202012Validator.check_schema(schema)
        assert json.loads((site / rel).read_text()) == schema


@pytest.mark.parametrize(
    "bad",
    [
        {
            "hardware": "h100",
            "strategy": "single_node_tp",
            "variant": "default",
            "node_count": 1,
            "deploy_type": "single_node",
            "env": {},
            "command": "vllm serve x",
            "argv": ["vllm", 1],
            "docker_command": "",
            "docker_argv": [],
        },
        {
            "hardware": "h100",
            "strategy": "single_node_tp",
            "variant": "default",
            "node_count": 0,
            "deploy_type": "single_node",
            "env": {},
            "command": "vllm serve x",
            "argv": [],
            "docker_command": "",
            "docker_argv": [],
        },
    ],
)
def test_rendering_schema_rejects_malformed_documents(bad):
    assert list(Draft202012Validator(schema_for("rendering")).iter_errors(bad))
