"""Shared fixtures: one build of the project's own recipes per test session."""
from __future__ import annotations

from pathlib import Path

import pytest

from recipes_site.build import build
from recipes_site.catalog import PROJECT_ROOT

COMPAT_CORPUS = PROJECT_ROOT.parent / "shared" / "compat" / "corpus"


@pytest.fixture(scope="session")
def project_site(tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("project") / "_site"
    result = build(PROJECT_ROOT, out)
    assert result.ok, "\n".join(d.format() for d in result.diagnostics)
    return out, result
