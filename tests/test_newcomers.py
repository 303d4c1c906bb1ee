"""What a newcomer reads and runs first: a short README whose two commands exist as written and
install into a virtual environment (system pip is refused on Debian/Ubuntu, PEP 668), the docs it
links to, a suite set up to run on every core, and docs/testing.md naming every test that skips
without the compat corpus."""

from __future__ import annotations

import re
import shlex

import tomllib

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.cli import parser

README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
TESTING = (PROJECT_ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# a test depends on ../shared/compat when it names the corpus path or takes the compat_site fixture
NEEDS_CORPUS = re.compile(r"\bCOMPAT(?:_CORPUS)?\b|\bcompat_site\b")


def _first_commands() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_the_readme_starts_with_install_and_serve_then_the_suite():
    install, tests = _first_commands()[:2]
    assert install == (
        'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]"'
        " && recipes-site serve"
    )
    assert tests == ".venv/bin/python -m pytest -q"
    # the extra it installs carries the suite's runner and plugins, the command it runs exists
    extra = " ".join(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert all(name in extra for name in ("pytest", "pytest-xdist", "playwright"))
    assert PYPROJECT["project"]["scripts"]["recipes-site"] == "recipes_site.cli:main"
    assert parser().parse_args(shlex.split(install)[-1:]).cmd == "serve"


def test_the_suite_runs_one_module_per_core_by_default():
    addopts = shlex.split(PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"])
    assert addopts[addopts.index("-n") + 1] == "auto"
    assert (
        addopts[addopts.index("--dist") + 1] == "loadfile"
    )  # module-scoped builds stay on one worker


def test_the_readme_names_every_test_that_skips_without_the_compat_corpus():
    files = sorted(
        p
        for p in (PROJECT_ROOT / "tests").rglob("test_*.py")
        if p.name != "test_newcomers.py" and NEEDS_CORPUS.search(p.read_text(encoding="utf-8"))
    )
    assert len(files) >= 5  # the parity, loader and site tests at least
    note = TESTING[TESTING.index("Tests that skip without the compat corpus") :]
    missing = [str(p.relative_to(PROJECT_ROOT)) for p in files if p.name not in note]
    assert missing == [], "name these in docs/testing.md's note on compat-corpus skips"


def test_the_readme_is_one_screenful_and_its_links_resolve():
    assert len(README.splitlines()) <= 100
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert "docs/ARCHITECTURE.md" in links and "CONTRIBUTING.md" in links
    missing = [link for link in links if not (PROJECT_ROOT / link).exists()]
    assert missing == []


def test_ci_runs_lint_types_and_exactly_the_readme_test_command():
    script = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines() if line.strip()]
    assert lines[-1] == _first_commands()[1]  # the README's test command, last
    checks = ["ruff check .", "ruff format --check .", "mypy recipes_site"]
    positions = [lines.index(c) for c in checks]
    assert positions == sorted(positions) and positions[-1] < len(lines) - 1
    assert '"$PYTHON" -m venv .venv' in lines  # never the system pip (PEP 668)
    lint = " ".join(PYPROJECT["project"]["optional-dependencies"]["lint"])
    assert "ruff" in lint and "mypy" in lint
