"""A small site built under a path (https://example.org/recipes), for test_base_path.py and the
browser test of it (tests/browser/test_browser_base_path.py)."""

from __future__ import annotations

from pathlib import Path

from catalog_kit import copy_project_root

from recipes_site.build import build
from recipes_site.site_config import overridden

BASE_URL = "https://example.org/recipes"
PREFIX = "/recipes/"
# a dense model, one with checkpoint redirects (RedHatAI/...), an embedding model
RECIPES = ["Qwen/Qwen3-8B", "meta-llama/Llama-3.3-70B-Instruct", "BAAI/bge-m3"]


def recipes_root(dest: Path) -> Path:
    """The project's vocabulary and the RECIPES."""
    return copy_project_root(dest, RECIPES)


def build_prefixed(tmp: Path) -> Path:
    """Build the RECIPES for https://example.org/recipes into `tmp`/site."""
    root = recipes_root(tmp / "root")
    with overridden(base_url=BASE_URL, repo_url="https://git.example.org/team/recipes"):
        result = build(root, tmp / "site")
    assert result.ok, result.diagnostics
    return tmp / "site"
