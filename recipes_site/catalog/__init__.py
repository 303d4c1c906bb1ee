"""Turning a recipes root (YAML) into a validated Catalog plus diagnostics.

    catalog, diags = load_catalog(root)

``diags`` holds every problem of every file (errors and warnings); nothing raises on bad input.

``load_catalog`` is imported on first use (PEP 562): the loader brings pydantic and the recipe
models, which `recipes-site --version`, `--help` and `new` never need, yet they import
``recipes_site.catalog.diagnostics`` (and so this package) through the CLI.
"""

from recipes_site.catalog.documents import PROJECT_ROOT, Catalog, RecipeDoc

__all__ = ["load_catalog", "Catalog", "RecipeDoc", "PROJECT_ROOT"]


def __getattr__(name: str):
    if name == "load_catalog":
        from recipes_site.catalog.loader import load_catalog

        return load_catalog
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
