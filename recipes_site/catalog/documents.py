"""The loaded catalogue: one RecipeDoc per recipe file, and the Catalog that holds them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import recipes_site
from recipes_site.catalog.diagnostics import Report, locate
from recipes_site.catalog.index import CatalogIndex

if TYPE_CHECKING:
    from recipes_site.catalog.types import Recipe

# The folder that holds our own taxonomy.yaml, strategies/, kv_store/, platforms.yaml and
# templates/: the repository itself (a clone, an editable install), else the copy a wheel carries
# (setup.py puts it in recipes_site/_project/).
_PACKAGE = Path(recipes_site.__file__).resolve().parent
PROJECT_ROOT = (
    _PACKAGE.parent
    if (_PACKAGE.parent / "taxonomy.yaml").is_file() and (_PACKAGE.parent / "templates").is_dir()
    else _PACKAGE / "_project"
)


@dataclass(frozen=True)
class RecipeDoc:
    path: Path  # the file
    display_path: str  # path as printed in diagnostics (relative to the cwd if possible)
    rel_path: str  # "models/<org>/<repo>.yaml" relative to the root, forward slashes
    hf_id: str  # "<org>/<repo>" derived from the path (first dir under models/ + file stem)
    data: dict  # the loaded YAML as plain Python values, YAML key order, dates "YYYY-MM-DD"
    spec: Recipe | None  # the validated model; None if the file had schema errors
    positions: dict  # key path tuple -> (line, col) of the value, 1-based; list items by int index
    key_positions: dict = field(
        default_factory=dict, repr=False
    )  # key path -> (line, col) of the key

    def position(self, path: tuple, *, at_key: bool = False) -> tuple[int, int]:
        """Best source position for ``path`` (the key itself with ``at_key``), else its nearest
        ancestor's, else (0, 0)."""
        return locate(self.positions, self.key_positions, path, at_key=at_key)

    def report(self) -> Report:
        """An empty Report of this recipe's diagnostics, placed by its positions."""
        return Report(self.display_path, self.positions, self.key_positions)


@dataclass(frozen=True)
class Catalog:
    root: Path
    taxonomy: dict  # plain data of the effective taxonomy.yaml ({} if none)
    strategies: dict  # name -> plain data of strategies/*.yaml, byte-sorted file order
    kv_stores: dict  # name -> plain data of kv_store/*.yaml, byte-sorted file order
    platforms: dict | None  # platforms.yaml data, or None
    recipes: list  # RecipeDoc per recipe that loaded as YAML, in traversal order
    files_checked: int  # number of files read
    benchmarks: list = field(default_factory=list)  # BenchmarkDoc per result file that loaded

    def hardware_profiles(self) -> dict:
        profiles = (
            self.taxonomy.get("hardware_profiles") if isinstance(self.taxonomy, dict) else None
        )
        return profiles if isinstance(profiles, dict) else {}

    @cached_property
    def index(self) -> CatalogIndex:
        """Lookups over all recipes, built once on first use (catalog/index.py: why)."""
        return CatalogIndex(self)

    def recipe(self, hf_id: str) -> RecipeDoc | None:
        """The recipe with this hf_id (exact match), or None."""
        for doc in self.recipes:
            if doc.hf_id == hf_id:
                return doc
        return None
