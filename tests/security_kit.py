"""Helpers for the hostile-recipe tests: a sandbox per attempt, a real build into it, and a look at
every file the attempt left anywhere in the sandbox (not only in the output folder)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from catalog_kit import COMPAT_CORPUS, FIXTURE_ROOT, VALID_RECIPE, replace  # noqa: F401  (re-exported)

from recipes_site.build import build
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.catalog.diagnostics import errors


def tree(folder: Path) -> dict[str, tuple[int, int]]:
    """relative path -> (size, mtime_ns) of every file and link below ``folder`` (links not followed)."""
    out = {}
    for base, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            path = os.path.join(base, name)
            st = os.lstat(path)
            out[os.path.relpath(path, folder)] = (st.st_size, st.st_mtime_ns)
    return out


def sandbox(tmp_path: Path) -> tuple[Path, Path]:
    """(recipes root, output folder) inside ``tmp_path``; the output sits two levels deep so that a
    `../x` or `../templates` escaping it still lands inside the sandbox, where we can see it."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    shutil.rmtree(root / "models")
    (root / "models").mkdir()
    return root, tmp_path / "deep" / "out" / "site"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / "models" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def recipe(model_id: str = "acme/Widget-7B", *, variants: str = "", meta: str = "") -> str:
    """The fixture recipe serving ``model_id``, with extra variant entries and meta lines."""
    text = replace(VALID_RECIPE, 'model_id: "acme/Widget-7B"', f"model_id: {json.dumps(model_id)}")
    if variants:
        text = replace(
            text,
            '    description: "BF16 weights."\n',
            '    description: "BF16 weights."\n' + variants,
        )
    if meta:
        text = replace(text, "  related_recipes: []\n", meta)
    return text


def variant(key: str, model_id: str) -> str:
    return f"  {key}:\n    precision: fp8\n    vram_minimum_gb: 9\n    model_id: {json.dumps(model_id)}\n"


@dataclass
class Attempt:
    result: object  # BuildResult
    out: Path
    created: set  # files that appeared in the sandbox outside the root
    root_changed: bool

    @property
    def errors(self) -> list:
        return errors(self.result.diagnostics)

    def text(self) -> str:
        return "\n".join(d.format() for d in self.result.diagnostics)


PROJECT_TEMPLATES = PROJECT_ROOT / "templates"


def attempt(tmp_path: Path, root: Path, out: Path) -> Attempt:
    """Build ``root`` into ``out``; report what the build created anywhere under ``tmp_path`` and
    whether it touched the root or the project's own templates."""
    before, before_root, before_templates = tree(tmp_path), tree(root), tree(PROJECT_TEMPLATES)
    result = build(root, out)
    after = tree(tmp_path)
    created = {p for p in after if p not in before}
    assert tree(PROJECT_TEMPLATES) == before_templates, "the build touched the project's templates/"
    return Attempt(result, out, created, tree(root) != before_root)


def assert_refused(att: Attempt) -> None:
    """A refused build: errors, and nothing written anywhere (no output folder, no stray file)."""
    assert not att.result.ok
    assert not att.out.exists()
    assert att.created == set(), sorted(att.created)[:5]
    assert not att.root_changed


def refused(
    tmp_path: Path, recipes: dict[str, str], taxonomy: tuple[str, str] | None = None
) -> Attempt:
    """Write ``recipes`` (rel path -> text) and, optionally, replace ``taxonomy[0]`` by
    ``taxonomy[1]`` in taxonomy.yaml; build, and check the build was refused without a trace."""
    root, out = sandbox(tmp_path)
    for rel, text in recipes.items():
        write(root, rel, text)
    if taxonomy is not None:
        path = root / "taxonomy.yaml"
        old = path.read_text(encoding="utf-8")
        assert taxonomy[0] in old
        path.write_text(old.replace(taxonomy[0], taxonomy[1], 1), encoding="utf-8")
    att = attempt(tmp_path, root, out)
    assert_refused(att)
    return att


def hw_docs(out: Path, hf_id: str) -> list[dict]:
    folder = out / "api" / "v1" / "models" / hf_id / "hw"
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def commands(out: Path, hf_id: str) -> list[str]:
    """Every rendered command of a recipe, from its per-hardware API documents."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "command" and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for doc in hw_docs(out, hf_id):
        walk(doc)
    return found
