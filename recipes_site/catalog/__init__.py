"""Turning a recipes root (YAML) into a validated Catalog plus diagnostics.

    catalog, diags = load_catalog(root)

``diags`` holds every problem of every file (errors and warnings); nothing raises on bad input.
"""
from recipes_site.catalog.documents import PROJECT_ROOT, Catalog, RecipeDoc
from recipes_site.catalog.loader import load_catalog

__all__ = ["load_catalog", "Catalog", "RecipeDoc", "PROJECT_ROOT"]
