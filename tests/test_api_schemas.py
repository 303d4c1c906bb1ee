"""Every JSON document a build writes satisfies its published JSON Schema."""
from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from recipes_site.render.schemas import all_schemas, schema_for, schema_name_for_path


def _registry(site) -> Registry:
    resources = []
    for path in (site / "api/v1/schema").glob("*.json"):
        doc = json.loads(path.read_text())
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


def test_every_api_document_matches_its_schema(project_site):
    site, _ = project_site
    registry = _registry(site)
    checked = 0
    for path in sorted((site / "api/v1").rglob("*.json")):
        rel = str(path.relative_to(site))
        name = schema_name_for_path(rel)
        if name is None:
            assert rel.startswith("api/v1/schema/"), f"no schema covers {rel}"
            continue
        validator = Draft202012Validator(schema_for(name), registry=registry)
        problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(json.loads(path.read_text()))]
        assert problems == [], f"{rel}: {problems[:3]}"
        checked += 1
    assert checked > 20


def test_published_schemas_are_valid_json_schema(project_site):
    site, _ = project_site
    for rel, schema in all_schemas().items():
        Draft202012Validator.check_schema(schema)
        assert json.loads((site / rel).read_text()) == schema


@pytest.mark.parametrize("bad", [
    {"hardware": "h100", "strategy": "single_node_tp", "variant": "default", "node_count": 1,
     "deploy_type": "single_node", "env": {}, "command": "vllm serve x", "argv": ["vllm", 1],
     "docker_command": "", "docker_argv": []},
    {"hardware": "h100", "strategy": "single_node_tp", "variant": "default", "node_count": 0,
     "deploy_type": "single_node", "env": {}, "command": "vllm serve x", "argv": [],
     "docker_command": "", "docker_argv": []},
])
def test_rendering_schema_rejects_malformed_documents(bad):
    assert list(Draft202012Validator(schema_for("rendering")).iter_errors(bad))
