"""A regular install (`pip install .`, `pip install git+URL`) works away from the repository:
the wheel carries the templates, taxonomy, strategies and kv-store specs (setup.py), and the
installed command builds a recipes root that holds nothing but models/."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from email.parser import Parser
from importlib.metadata import distribution
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from recipes_site.catalog import PROJECT_ROOT

SOURCES = (
    "recipes_site",
    "templates",
    "strategies",
    "kv_store",
    "schema",
    "taxonomy.yaml",
    "platforms.yaml",
    "pyproject.toml",
    "setup.py",
    "README.md",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        path = PROJECT_ROOT / name
        if path.is_dir():
            shutil.copytree(
                path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return next(out.glob("recipes_site-*.whl"))


def dependency_folders(wheel: Path) -> list[str]:
    """The folders this interpreter imports the wheel's run-time dependencies from (its Requires-Dist,
    transitively, extras left out).

    Why not `venv.create(system_site_packages=True)`: that exposes the *base* interpreter's
    site-packages, not those of the venv pytest runs in. In a plain venv (`python3 -m venv .venv &&
    pip install -e ".[test]"`) the dependencies live only in that venv, so the nested one failed with
    "No module named markdown_it" / "pydantic". A .pth listing these folders makes them importable in
    the nested venv without a network install; .pth files inside them (the outer editable install of
    this project) are not processed, so recipes_site still comes from the wheel."""
    with zipfile.ZipFile(wheel) as whl:
        name = next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(whl.read(name).decode("utf-8"))
    todo = [Requirement(text) for text in metadata.get_all("Requires-Dist") or []]
    seen, folders = set(), []
    while todo:
        req = todo.pop()
        if canonicalize_name(req.name) in seen or (
            req.marker and not req.marker.evaluate({"extra": ""})
        ):
            continue
        seen.add(canonicalize_name(req.name))
        dist = distribution(req.name)
        folder = str(dist.locate_file(""))
        if folder not in folders:
            folders.append(folder)
        todo += [Requirement(text) for text in dist.requires or []]
    return folders


def test_the_wheel_carries_the_project_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "recipes_site/_project/taxonomy.yaml",
        "recipes_site/_project/platforms.yaml",
        "recipes_site/_project/templates/static/site.js",
        "recipes_site/_project/schema/recipe.schema.json",
        "recipes_site/data/vllm_flags.json",
    ):
        assert needed in names, needed
    assert any(n.startswith("recipes_site/_project/strategies/") for n in names)
    assert any(n.startswith("recipes_site/_project/kv_store/") for n in names)
    assert not any(n.startswith("recipes_site/_project/models/") for n in names)


def test_an_installed_wheel_builds_a_recipes_root_of_models_only(wheel, tmp_path):
    env = tmp_path / "venv"
    venv.create(env, with_pip=False)
    python = env / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    zipfile.ZipFile(wheel).extractall(site)  # what pip does for a pure-Python wheel
    (Path(site) / "dependencies.pth").write_text(
        "".join(f"{folder}\n" for folder in dependency_folders(wheel))
    )
    root = tmp_path / "recipes"
    (root / "models" / "meta-llama").mkdir(parents=True)
    shutil.copy2(
        PROJECT_ROOT / "models" / "meta-llama" / "Llama-3.1-8B-Instruct.yaml",
        root / "models" / "meta-llama",
    )
    r = subprocess.run(
        [str(python), "-m", "recipes_site", "build", str(root), "--out", str(tmp_path / "site")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    where = subprocess.run(
        [str(python), "-c", "import recipes_site.catalog as c; print(c.PROJECT_ROOT)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert where.endswith("_project") and str(PROJECT_ROOT) not in where
    assert (tmp_path / "site" / "meta-llama" / "Llama-3.1-8B-Instruct" / "index.html").is_file()
    assert (
        tmp_path / "site" / "api" / "v1" / "models" / "meta-llama" / "Llama-3.1-8B-Instruct.json"
    ).is_file()
