"""The pipeline: catalog -> sizing checks -> synthesis -> API documents (-> pages) -> atomic write."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from recipes_site.catalog import Catalog, load_catalog
from recipes_site.catalog.diagnostics import Diagnostic, errors
from recipes_site.render.api import RecipeInput, api_documents
from recipes_site.render.picker import picker_documents
from recipes_site.render.schemas import all_schemas
from recipes_site.synthesis import Context, synthesize_recipe
from recipes_site.write import encode_json, write_tree


@dataclass
class BuildResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    files_written: int = 0
    recipes: list[RecipeInput] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not errors(self.diagnostics)


def synthesis_context(catalog: Catalog) -> Context:
    strategies = {**catalog.strategies, **catalog.kv_stores}
    return Context(profiles=catalog.hardware_profiles(), strategies=strategies,
                   kv_ids=tuple(catalog.kv_stores))


def synthesize_catalog(catalog: Catalog) -> list[RecipeInput]:
    ctx = synthesis_context(catalog)
    standalone = {doc.hf_id for doc in catalog.recipes}
    return [RecipeInput(doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, standalone))
            for doc in catalog.recipes]


def site_files(catalog: Catalog, recipes: list[RecipeInput]) -> dict[str, bytes]:
    ctx = synthesis_context(catalog)
    docs = api_documents(recipes, catalog.taxonomy, {**catalog.strategies, **catalog.kv_stores})
    docs.update(all_schemas())
    for rec in recipes:
        docs.update(picker_documents(rec, ctx))
    from recipes_site.catalog.types import recipe_json_schema
    docs["api/v1/schema/recipe.schema.json"] = recipe_json_schema()
    return {path: encode_json(doc) for path, doc in docs.items()}


def build(root: Path, out: Path) -> BuildResult:
    catalog, diags = load_catalog(root)
    result = BuildResult(diagnostics=diags, files_checked=catalog.files_checked)
    if not result.ok:
        return result
    result.recipes = synthesize_catalog(catalog)
    files = site_files(catalog, result.recipes)
    write_tree(out, files)
    result.files_written = len(files)
    return result
