"""Shared fixtures: one build of the project's own recipes per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipes_site.build import build, synthesis_context
from recipes_site.catalog import PROJECT_ROOT, load_catalog

COMPAT_CORPUS = PROJECT_ROOT.parent / "shared" / "compat" / "corpus"


@pytest.fixture(scope="session")
def project_site(tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("project") / "_site"
    result = build(PROJECT_ROOT, out)
    assert result.ok, "\n".join(d.format() for d in result.diagnostics)
    return out, result


@pytest.fixture(scope="module")
def catalog():
    """The project's own catalog."""
    cat, _ = load_catalog(PROJECT_ROOT)
    return cat


@pytest.fixture(scope="module")
def ctx(catalog):
    return synthesis_context(catalog)


@pytest.fixture(scope="module")
def recipes(catalog):
    """hf_id -> validated recipe data of the project's own catalog."""
    return {doc.hf_id: doc.data for doc in catalog.recipes}
