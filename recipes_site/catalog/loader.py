"""Load a recipes root into a Catalog plus every diagnostic of every file.

Order of work (also the order of the diagnostics): taxonomy.yaml, platforms.yaml, strategies/*.yaml,
kv_store/*.yaml (each directory listing in byte order), then the recipes under models/ (recursive,
each directory listing in byte order, like Node's sorted readdir). A piece missing from the root is
taken from the project's own folder (PROJECT_ROOT); recipes come only from ROOT/models.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from recipes_site.catalog import types as T
from recipes_site.catalog import yaml as yaml_module
from recipes_site.catalog.benchmarks import (
    BENCHMARKS_DIR,
    BenchmarkDoc,
    BenchmarkFile,
    check_result,
    result_files,
    stray_diagnostic,
)
from recipes_site.catalog.checks import (
    check_taxonomy,
    feature_mode_suppressions,
    run_recipe_checks,
)
from recipes_site.catalog.diagnostics import Diagnostic, Level, Report, format_key_path
from recipes_site.catalog.documents import PROJECT_ROOT, Catalog, RecipeDoc
from recipes_site.catalog.ids import ID_HINT, collision_key, id_message, id_problem
from recipes_site.catalog.lint import lint_level, lint_recipe
from recipes_site.catalog.schema_errors import validate
from recipes_site.catalog.yaml import LoadedYaml, load_yaml_file
from recipes_site.site_config import check_site_config

RECIPE_SUFFIXES = (".yaml", ".yml")
# Every name of a recipes root the loader (with site_config.py) reads: `serve` watches these and
# `diff` reads these of a git tree, so a change to any of them is seen by both.
ROOT_FILES = (
    "models",
    "taxonomy.yaml",
    "strategies",
    "kv_store",
    "platforms.yaml",
    "recipes-site.yaml",
    BENCHMARKS_DIR,
)


def _byte_order(name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape")


def _display(path: Path, cwd: Path) -> str:
    """``path`` as printed in diagnostics: relative to ``cwd`` when it lies under it, else as
    given (an absolute path stays absolute, ``../x`` stays ``../x``)."""
    try:
        return Path(os.path.abspath(path)).relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def _sorted_dir(directory: Path) -> list[os.DirEntry]:
    with os.scandir(directory) as it:
        return sorted(it, key=lambda e: _byte_order(e.name))


class _Loader:
    def __init__(self, root: Path, strict: bool = False):
        self.root = root
        self.lint_level = lint_level(
            root, strict
        )  # contributor checks: errors only under --strict on a project root
        self.real_root = os.path.realpath(root)
        self.cwd = Path(os.path.abspath(Path.cwd()))
        self.files = 0
        self.file_diags: list[list[Diagnostic]] = []  # one list per file, in processing order

    def display(self, path: Path) -> str:
        return _display(path, self.cwd)

    def pick(self, name: str, *, directory: bool = False) -> Path | None:
        """ROOT/name if present, else PROJECT_ROOT/name if present, else None."""
        for base in (self.root, PROJECT_ROOT):
            candidate = base / name
            if candidate.is_dir() if directory else candidate.is_file():
                return candidate
        return None

    def read(self, path: Path, display: str) -> LoadedYaml:
        """Load one file of the root; a file of ROOT reached through a link that leaves the root
        (taxonomy.yaml, strategies/*.yaml ... -> /etc/passwd) is refused unread, like recipes."""
        self.files += 1
        inside_root = os.path.commonpath(
            [os.path.abspath(self.root), os.path.abspath(path)]
        ) == os.path.abspath(self.root)
        if inside_root and os.path.realpath(path) != os.path.abspath(path):
            problem = self.link_problem(path)
            if problem:
                return LoadedYaml(
                    diagnostics=[
                        Diagnostic(
                            display,
                            0,
                            0,
                            Level.ERROR,
                            "",
                            problem,
                            "replace the link with the file itself, inside the recipes root",
                        )
                    ]
                )
        return load_yaml_file(path, display)

    # -- shared files
    def load_document(self, path: Path, model) -> tuple[dict | None, list[Diagnostic], LoadedYaml]:
        display = self.display(path)
        loaded = self.read(path, display)
        diags = list(loaded.diagnostics)
        if loaded.data is not None:
            _, errors = validate(
                model, loaded.data, display, loaded.positions, loaded.key_positions
            )
            diags += errors
        return loaded.data, diags, loaded

    def load_specs(self, folder: str, model, taken: dict) -> tuple[dict, dict, list]:
        """Every ``folder/*.yaml`` (byte order) keyed by its ``name``. Returns (specs, name -> display
        path, diagnostics per file); ``taken`` maps names already used elsewhere to their file."""
        directory = self.pick(folder, directory=True)
        specs: dict = {}
        files: dict = {}
        pending: list = []
        if directory is None:
            return specs, files, pending
        for entry in _sorted_dir(directory):
            if not entry.name.endswith(".yaml") or not entry.is_file():
                continue
            path = directory / entry.name
            data, diags, loaded = self.load_document(path, model)
            report = Report(self.display(path), loaded.positions, loaded.key_positions)
            name = data.get("name") if isinstance(data, dict) else None
            if isinstance(name, str):
                if name in files or name in taken:
                    report.error(
                        ("name",),
                        f"the name '{name}' is already used by {files.get(name) or taken[name]}",
                        "strategy and kv_store names must be unique",
                    )
                else:
                    specs[name] = data
                    files[name] = self.display(path)
                    stem = entry.name[: -len(".yaml")]
                    if name != stem:
                        report.warning(
                            ("name",),
                            f"name '{name}' differs from the file name '{entry.name}'",
                            f"rename the file to {name}.yaml",
                        )
            pending.append(diags + report.items)
        return specs, files, pending

    # -- benchmark results
    def load_benchmarks(self) -> list[tuple[BenchmarkDoc, list[Diagnostic]]]:
        """Every result file under ROOT/benchmarks (catalog/benchmarks.py), validated; results
        come only from the root, never from the project's own folder."""
        found, stray = result_files(self.root)
        for path in stray:
            self.files += 1
            self.file_diags.append([stray_diagnostic(self.display(path))])
        out = []
        for path, (org, repo, hardware, name) in found:
            display = self.display(path)
            loaded = self.read(path, display)
            diags = list(loaded.diagnostics)
            spec = None
            if loaded.data is not None:
                spec, errors_ = validate(
                    BenchmarkFile, loaded.data, display, loaded.positions, loaded.key_positions
                )
                diags += errors_
            doc = BenchmarkDoc(
                path=path,
                display_path=display,
                hf_id=f"{org}/{repo}",
                hardware=hardware,
                name=name,
                data=loaded.data if isinstance(loaded.data, dict) else {},
                spec=spec,
                positions=loaded.positions,
                key_positions=loaded.key_positions,
            )
            out.append((doc, diags))
        return out

    # -- recipes
    def link_problem(self, path: Path) -> str | None:
        """Why the symbolic link ``path`` is not followed, or None when it stays inside the root.

        Why: a recipe is published, and quoted in error messages; a link to /etc/passwd or to a
        private checkout elsewhere would publish (or print) what is outside the recipes root. A
        link loop would make the walk spin; both are reported instead of followed."""
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "symbolic link loop (the link leads back to itself)"
            if exc.errno == errno.ENOENT:
                return "broken symbolic link (its target does not exist)"
            return f"cannot follow the symbolic link: {exc.strerror or exc}"
        target = os.path.realpath(path)
        if os.path.commonpath([self.real_root, target]) != self.real_root:
            return "symbolic link leads outside the recipes root; it is not followed or published"
        return None

    def walk_models(self, models: Path) -> list[Path]:
        """Every file under models/ (dot-files skipped): recursive, each listing in byte order.
        Symbolic links are followed only when they stay inside the root (see link_problem)."""
        found: list[Path] = []
        seen_dirs: set = set()
        refused = lambda path, message: self.file_diags.append(  # noqa: E731
            [
                Diagnostic(
                    self.display(path),
                    0,
                    0,
                    Level.ERROR,
                    "",
                    message,
                    "replace the link with the file itself, inside the recipes root",
                )
            ]
        )
        if models.is_symlink():
            problem = self.link_problem(models)
            if problem:
                refused(models, problem)
                return found

        def walk(directory: Path) -> None:
            real = os.path.realpath(directory)
            if real in seen_dirs:
                return
            seen_dirs.add(real)
            try:
                entries = _sorted_dir(directory)
            except OSError as exc:
                self.file_diags.append(
                    [
                        Diagnostic(
                            self.display(directory),
                            0,
                            0,
                            Level.ERROR,
                            "",
                            f"cannot list the directory: {exc.strerror or exc}",
                        )
                    ]
                )
                return
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                path = directory / entry.name
                if entry.is_symlink():
                    problem = self.link_problem(path)
                    if problem:
                        self.files += 1
                        refused(path, problem)
                        continue
                if entry.is_dir():
                    walk(path)
                elif entry.is_file():
                    found.append(path)

        walk(models)
        return found

    def load_recipe(self, path: Path) -> tuple[RecipeDoc | None, list[Diagnostic], str]:
        """The recipe, its diagnostics and its source text (for the contributor checks)."""
        display = self.display(path)
        rel = path.relative_to(self.root).as_posix()
        parts = rel.split("/")
        if not path.name.endswith(RECIPE_SUFFIXES):
            self.files += 1
            return (
                None,
                [
                    Diagnostic(
                        display,
                        0,
                        0,
                        Level.ERROR,
                        "",
                        "not a recipe file: recipe files end in .yaml or .yml",
                        "rename it, or move it out of models/",
                    )
                ],
                "",
            )
        diags: list[Diagnostic] = []
        if len(parts) != 3:
            where = "directly under models/" if len(parts) == 2 else "nested too deeply"
            diags.append(
                Diagnostic(
                    display,
                    0,
                    0,
                    Level.ERROR,
                    "",
                    f"recipe file is {where}: recipes live at models/<hf_org>/<hf_repo>.yaml",
                    "move it to models/<org>/<repo>.yaml",
                )
            )
        stem = path.name.rsplit(".", 1)[0]
        hf_id = f"{parts[1]}/{stem}" if len(parts) >= 3 else stem
        if len(parts) == 3:
            problem = id_problem(hf_id, org_required=True)
            if problem:
                diags.append(
                    Diagnostic(
                        display,
                        0,
                        0,
                        Level.ERROR,
                        "",
                        "the file path names the recipe " + id_message(hf_id, "id", problem),
                        "rename the file: " + ID_HINT,
                    )
                )
        loaded = self.read(path, display)
        diags += loaded.diagnostics
        if loaded.data is None:
            return None, diags, ""
        suppress = feature_mode_suppressions(loaded.data)
        spec, errors = validate(
            T.Recipe,
            loaded.data,
            display,
            loaded.positions,
            loaded.key_positions,
            suppress=suppress,
        )
        diags += errors
        doc = RecipeDoc(
            path=path,
            display_path=display,
            rel_path=rel,
            hf_id=hf_id,
            data=loaded.data,
            spec=spec,
            positions=loaded.positions,
            key_positions=loaded.key_positions,
        )
        return doc, diags, loaded.text

    # -- everything
    def run(self) -> tuple[Catalog, list[Diagnostic]]:
        root = self.root
        if not root.is_dir():
            diag = Diagnostic(
                self.display(root),
                0,
                0,
                Level.ERROR,
                "",
                "recipes root not found (not a directory)",
            )
            return Catalog(root, {}, {}, {}, None, [], 0), [diag]

        taxonomy: dict = {}
        taxonomy_diags: list = []
        taxonomy_loaded = None
        taxonomy_path = self.pick("taxonomy.yaml")
        if taxonomy_path is not None:
            data, taxonomy_diags, taxonomy_loaded = self.load_document(taxonomy_path, T.Taxonomy)
            taxonomy = data if isinstance(data, dict) else {}
        self.file_diags.append(taxonomy_diags)

        platforms = None
        platforms_path = self.pick("platforms.yaml")
        if platforms_path is not None:
            data, diags, _ = self.load_document(platforms_path, T.Platforms)
            platforms = data if isinstance(data, dict) else None
            self.file_diags.append(diags)

        # recipes-site.yaml, never from PROJECT_ROOT
        site_files, site_diags = check_site_config(root, self.display)
        self.files += site_files
        self.file_diags.append(site_diags)

        strategies, strategy_files, strategy_diags = self.load_specs("strategies", T.Strategy, {})
        kv_stores, _, kv_diags = self.load_specs("kv_store", T.KvStoreSpec, strategy_files)
        self.file_diags += strategy_diags + kv_diags

        docs: list[RecipeDoc] = []
        recipe_diags: list[tuple[RecipeDoc | None, list[Diagnostic], str]] = []
        models = root / "models"
        if not models.is_dir():
            self.file_diags.append(
                [
                    Diagnostic(
                        self.display(models),
                        0,
                        0,
                        Level.ERROR,
                        "",
                        "the recipes root has no models/ directory",
                    )
                ]
            )
        else:
            for path in self.walk_models(models):
                doc, diags, text = self.load_recipe(path)
                recipe_diags.append((doc, diags, text))
                if doc is not None:
                    docs.append(doc)

        benchmarks = self.load_benchmarks()

        catalog = Catalog(
            root=root,
            taxonomy=taxonomy,
            strategies=strategies,
            kv_stores=kv_stores,
            platforms=platforms,
            recipes=docs,
            files_checked=self.files,
            benchmarks=[doc for doc, _ in benchmarks],
        )

        if taxonomy_path and taxonomy_loaded and taxonomy_loaded.data is not None:
            report = Report(
                self.display(taxonomy_path),
                taxonomy_loaded.positions,
                taxonomy_loaded.key_positions,
            )
            check_taxonomy(taxonomy, catalog, report)
            taxonomy_diags.extend(report.items)

        # cross-file checks of each recipe, next to that recipe's own diagnostics
        collisions = path_collisions(docs)
        for doc, diags, text in recipe_diags:
            if doc is None:
                continue
            diags.extend(collisions.get(id(doc), []))
            diags.extend(run_recipe_checks(doc, catalog))
            diags.extend(_lint(doc, self.lint_level, text))
        self.file_diags += [diags for _, diags, _ in recipe_diags]

        recipes_by_id = {doc.hf_id: doc.data for doc in docs if isinstance(doc.data, dict)}
        for bench, diags in benchmarks:
            diags.extend(
                check_result(bench, recipes_by_id, catalog.hardware_profiles(), strategies)
            )
            self.file_diags.append(diags)

        out: list[Diagnostic] = []
        for diags in self.file_diags:
            out.extend(sorted(diags, key=lambda d: (d.path, d.line, d.col)))
        return catalog, out


def _path_ids(doc: RecipeDoc, *, checkpoints: bool):
    """(namespace, id, key path or None) of every id of ``doc`` that names an output file or a
    checkout folder: the recipe (its page, JSON, folder) and its org (provider page,
    models/<org>/); with ``checkpoints``, each variant checkpoint with an org (its redirect page)."""
    if not checkpoints:
        yield "id", doc.hf_id, None
        if doc.hf_id.count("/") == 1:
            yield "org", doc.hf_id.split("/", 1)[0], None
        return
    variants = doc.data.get("variants") if isinstance(doc.data, dict) else None
    for key, variant in variants.items() if isinstance(variants, dict) else ():
        mid = variant.get("model_id") if isinstance(variant, dict) else None
        if isinstance(mid, str) and mid.count("/") == 1:
            yield "id", mid, ("variants", key, "model_id")


def path_collisions(docs: list[RecipeDoc]) -> dict[int, list[Diagnostic]]:
    """id(doc) -> errors for ids that name the same file as an earlier one: the same recipe id
    twice (a .yaml and a .yml), or two ids that differ only in letter case or Unicode
    normalisation (one file on macOS and Windows checkouts and file systems). Recipe files are
    registered before checkpoints, so a checkpoint is the one reported. A variant serving exactly
    another recipe's id, or a checkpoint two variants share, writes nothing twice and is left to
    the recipe checks (warnings)."""
    first: dict[tuple, tuple[str, RecipeDoc]] = {}
    exact: dict[tuple, RecipeDoc] = {}
    out: dict[int, list[Diagnostic]] = {}
    for checkpoints in (False, True):
        for doc in docs:
            for space, raw, key_path in _path_ids(doc, checkpoints=checkpoints):
                key = (space, collision_key(raw))
                if key not in first:
                    first[key] = (raw, doc)
                    exact[(space, raw)] = doc
                    continue
                other_raw, other = first[key]
                if (space, raw) in exact:
                    if checkpoints or space == "org":
                        continue  # the same folder again, or a checkpoint served twice: one file
                    other = exact[(space, raw)]
                    message = f"recipe id '{raw}' is already used by {other.display_path}"
                    hint = "each model needs exactly one recipe file"
                else:
                    exact[(space, raw)] = doc
                    what = "organisation folder" if space == "org" else "id"
                    message = (
                        f"{what} '{raw}' differs from '{other_raw}' of {other.display_path} only in letter "
                        "case or Unicode normalisation: both name the same file on macOS and Windows"
                    )
                    hint = f"spell it '{other_raw}' exactly, or give it another name"
                line, col = doc.position(key_path) if key_path else (0, 0)
                out.setdefault(id(doc), []).append(
                    Diagnostic(
                        doc.display_path,
                        line,
                        col,
                        Level.ERROR,
                        format_key_path(key_path or ()),
                        message,
                        hint,
                    )
                )
    return out


_LINTED: dict = {}  # id(doc.data) -> (data, key, diagnostics), only while parses are remembered


def _lint(doc: RecipeDoc, level, text: str) -> list[Diagnostic]:
    """lint_recipe, reused in a process that remembers parses (`serve`, yaml.remember_parses):
    the contributor checks read only the recipe itself, and an unchanged file yields the very
    same parsed data object, so its lint result is still the right one."""
    if yaml_module._PARSED is None:
        return lint_recipe(doc, level, text)
    key = (doc.display_path, doc.rel_path, doc.hf_id, level)
    hit = _LINTED.get(id(doc.data))
    if hit is not None and hit[0] is doc.data and hit[1] == key:
        return list(hit[2])
    if len(_LINTED) >= yaml_module._PARSED_LIMIT:
        _LINTED.clear()
    result = lint_recipe(doc, level, text)
    _LINTED[id(doc.data)] = (doc.data, key, result)
    return list(result)


def load_catalog(root, *, strict: bool = False) -> tuple[Catalog, list[Diagnostic]]:
    """Load and validate the recipes root ``root``; never raises on bad input. ``strict`` (validate
    --strict) makes the contributor checks (lint.py) errors on a project root."""
    loader = _Loader(Path(root), strict)
    return loader.run()
