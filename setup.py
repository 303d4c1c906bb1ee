"""Packaging hook: a wheel carries the project's shared files.

recipes-site reads templates/, taxonomy.yaml, strategies/, kv_store/, platforms.yaml and schema/
from the repository's top level (PROJECT_ROOT in recipes_site/catalog/documents.py). An editable
install finds them there; a regular install (`pip install .`, `pip install git+...`) has no
repository around it, so the wheel gets a copy under recipes_site/_project/."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHARED = ("templates", "taxonomy.yaml", "strategies", "kv_store", "platforms.yaml", "schema")


class build_py_with_project_files(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable installs read the repository itself
        here = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "recipes_site" / "_project"
        for name in SHARED:
            source, dest = here / name, target / name
            if source.is_dir():
                shutil.copytree(
                    source,
                    dest,
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
                )
            elif source.is_file():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)


setup(cmdclass={"build_py": build_py_with_project_files})
