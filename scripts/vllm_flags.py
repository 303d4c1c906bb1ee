#!/usr/bin/env python3
"""Regenerate `recipes_site/data/vllm_flags.json`: every option `vllm serve` accepts.

The list is read from vLLM's own argument definitions, without importing vLLM (which needs
torch and a GPU stack): the script downloads the `vllm` package from PyPI with pip, opens it
as an archive and walks the source with `ast`:

* `vllm/engine/arg_utils.py`: every `add_argument(...)` call of `EngineArgs.add_cli_args`
  and `AsyncEngineArgs.add_cli_args`, with their short aliases (`-tp`, `-q`, ...);
* the OpenAI server's arguments (`vllm/entrypoints/common/cli_args.py`, or
  `vllm/entrypoints/openai/cli_args.py` in older releases): the explicit `add_argument`
  calls of `make_arg_parser` and one `--field-name` per field of the frontend argument
  dataclasses (`BaseFrontendArgs`, `FrontendArgs`), the way `FrontendArgs.add_cli_args`
  registers them;
* boolean options: vLLM gives a `bool` config field an `argparse.BooleanOptionalAction`
  (`get_kwargs` in arg_utils.py), which also accepts `--no-<flag>`; the field types come
  from the config dataclasses (`vllm/config/*.py`). When `vllm/utils/argparse_utils.py`
  registers its `EnableDisableAction`, such an `--enable-x` also accepts `--disable-x`
  and the other way round, so both spellings are listed.

It also lists the environment variables the release reads: the keys of
`environment_variables` in `vllm/envs.py`, plus every `"VLLM_..."` string literal elsewhere in
the package (a few variables are read with `os.environ` outside envs.py). A variable a recipe
sets that is in neither was dropped or renamed, and setting it does nothing.

Usage:
    python scripts/vllm_flags.py                   # latest vllm on PyPI
    python scripts/vllm_flags.py --version 0.33.0  # a given release
    python scripts/vllm_flags.py --from vllm-0.33.0-cp38-abi3-manylinux_2_28_x86_64.whl
    python scripts/vllm_flags.py --check           # exit 1 if the committed JSON is stale

The wheel is used: `pip download --no-binary :all: vllm` has to build the sdist's metadata,
which installs vLLM's build requirements (a pinned torch), so it is slower and fails on an
index without that torch. `--from` also takes an sdist or an unpacked source tree.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "recipes_site" / "data" / "vllm_flags.json"

ARG_UTILS = "vllm/engine/arg_utils.py"
SERVER_ARGS = ("vllm/entrypoints/common/cli_args.py", "vllm/entrypoints/openai/cli_args.py")
ARGPARSE_UTILS = ("vllm/utils/argparse_utils.py", "vllm/utils/__init__.py")
ENGINE_CLASSES = ("EngineArgs", "AsyncEngineArgs")
FRONTEND_CLASSES = ("BaseFrontendArgs", "FrontendArgs")


class SourceError(RuntimeError):
    """The package does not look the way this script expects (its layout changed)."""


# -- the package as a set of source files ------------------------------------------------------------


class Package:
    """Python sources of a vLLM wheel, sdist or source tree, by path relative to the repo root."""

    def __init__(self, path: Path):
        self.path = path
        self.files: dict[str, str] = {}
        if path.is_dir():
            for file in path.rglob("*.py"):
                self.files[file.relative_to(path).as_posix()] = file.read_text(encoding="utf-8")
        elif zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                for name in zf.namelist():
                    if name.endswith(".py"):
                        self.files[name] = zf.read(name).decode("utf-8")
        elif tarfile.is_tarfile(path):
            with tarfile.open(path) as tf:
                for member in tf.getmembers():
                    if member.isfile() and member.name.endswith(".py"):
                        data = tf.extractfile(member).read().decode("utf-8")
                        self.files[
                            member.name.split("/", 1)[1] if "/" in member.name else member.name
                        ] = data
        else:
            raise SourceError(f"{path}: not a wheel, an sdist or a directory")
        if ARG_UTILS not in self.files:
            # an sdist or checkout wrapped in one more folder
            prefix = next(
                (n[: -len(ARG_UTILS)] for n in self.files if n.endswith("/" + ARG_UTILS)), None
            )
            if prefix is None:
                raise SourceError(f"{path}: no {ARG_UTILS} inside")
            self.files = {
                n[len(prefix) :]: s for n, s in self.files.items() if n.startswith(prefix)
            }
        self._trees: dict[str, ast.Module] = {}

    def tree(self, name: str) -> ast.Module:
        if name not in self._trees:
            self._trees[name] = ast.parse(self.files[name], filename=name)
        return self._trees[name]

    def first(self, names) -> str:
        for name in names:
            if name in self.files:
                return name
        raise SourceError(f"none of {', '.join(names)} in {self.path.name}")

    def version(self) -> str:
        src = self.files.get("vllm/_version.py", "")
        m = re.search(r"__version__\s*=\s*(?:version\s*=\s*)?['\"]([^'\"]+)['\"]", src)
        if m:
            return m.group(1)
        m = re.match(r"vllm-([0-9][^-]*?)(?:-|\.tar|\.zip|$)", self.path.name)
        if m:
            return m.group(1)
        raise SourceError("cannot tell the vLLM version (no vllm/_version.py)")


# -- class and field lookup ---------------------------------------------------------------------------


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _aliases(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level type aliases (`X = A | B`, `X: TypeAlias = ...`, `type X = ...`)."""
    out = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            out[node.targets[0].id] = node.value
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.value is not None
        ):
            out[node.target.id] = node.value
        elif type(node).__name__ == "TypeAlias":  # Python 3.12 `type X = ...`
            out[node.name.id] = node.value
    return out


class ClassIndex:
    """Finds a class definition anywhere in the package, with the aliases of its module."""

    def __init__(self, package: Package):
        self.package = package
        self._found: dict[str, tuple[str, ast.ClassDef] | None] = {}
        self._all_aliases: dict[str, ast.expr] | None = None

    def find(self, name: str) -> tuple[str, ast.ClassDef] | None:
        if name not in self._found:
            self._found[name] = None
            pattern = re.compile(rf"^class {re.escape(name)}\b", re.M)
            # config modules first, then the rest of the package
            candidates = sorted(
                self.package.files, key=lambda n: (not n.startswith("vllm/config/"), n)
            )
            for module in candidates:
                if pattern.search(self.package.files[module]):
                    cls = _classes(self.package.tree(module)).get(name)
                    if cls is not None:
                        self._found[name] = (module, cls)
                        break
        return self._found[name]

    def aliases(self) -> dict[str, ast.expr]:
        """Aliases of every config module (field types are often aliases defined next door)."""
        if self._all_aliases is None:
            self._all_aliases = {}
            for module in sorted(self.package.files):
                if module.startswith("vllm/config/"):
                    for key, value in _aliases(self.package.tree(module)).items():
                        self._all_aliases.setdefault(key, value)
        return self._all_aliases

    def fields(self, name: str) -> dict[str, ast.expr]:
        """Annotated fields of a dataclass, its bases' first (dataclass field order)."""
        found = self.find(name)
        if found is None:
            raise SourceError(f"class {name} not found in the package")
        _, cls = found
        out: dict[str, ast.expr] = {}
        for base in cls.bases:
            base_name = (
                base.id
                if isinstance(base, ast.Name)
                else base.attr
                if isinstance(base, ast.Attribute)
                else None
            )
            if base_name and self.find(base_name) is not None:
                out.update(self.fields(base_name))
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if _name_of(node.annotation) == "ClassVar" or (
                    isinstance(node.annotation, ast.Subscript)
                    and _name_of(node.annotation.value) == "ClassVar"
                ):
                    continue
                out[node.target.id] = node.annotation
        return out

    def is_dataclass(self, name: str) -> bool:
        found = self.find(name)
        if found is None:
            return False
        return any(
            _name_of(d.func if isinstance(d, ast.Call) else d) in ("dataclass", "config")
            for d in found[1].decorator_list
        )


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _union_members(annotation: ast.expr, index: ClassIndex, depth: int = 0) -> list[str]:
    """Top-level members of a type hint, as names, the way vLLM's `get_type_hints` flattens
    `Annotated[...]`, `Optional[...]`, `Union[...]` and `A | B` (and never looks inside
    `Literal[...]` or generic containers)."""
    if depth > 10:
        return ["?"]
    if isinstance(annotation, ast.Constant):
        if annotation.value is None:
            return ["None"]
        if isinstance(annotation.value, str):  # a string annotation
            try:
                return _union_members(
                    ast.parse(annotation.value, mode="eval").body, index, depth + 1
                )
            except SyntaxError:
                return ["?"]
        return ["?"]
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union_members(annotation.left, index, depth + 1) + _union_members(
            annotation.right, index, depth + 1
        )
    if isinstance(annotation, ast.Subscript):
        head = _name_of(annotation.value)
        items = (
            annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        )
        if head == "Annotated":
            return _union_members(items[0], index, depth + 1)
        if head == "Optional":
            return _union_members(items[0], index, depth + 1) + ["None"]
        if head == "Union":
            return [m for item in items for m in _union_members(item, index, depth + 1)]
        return [head or "?"]
    name = _name_of(annotation)
    if name is None:
        return ["?"]
    if (
        name not in ("bool", "str", "int", "float", "dict", "list", "tuple", "set", "None")
        and name in index.aliases()
        and index.find(name) is None
    ):
        return _union_members(index.aliases()[name], index, depth + 1)
    return [name]


def field_is_boolean_optional(cls_name: str, field: str, index: ClassIndex) -> bool:
    """Whether `get_kwargs(cls)[field]` gives the option an `argparse.BooleanOptionalAction`."""
    fields = index.fields(cls_name)
    if field not in fields:
        raise SourceError(f"{cls_name} has no field {field!r}")
    members = set(_union_members(fields[field], index))
    if any(index.is_dataclass(m) for m in members if m not in ("bool", "str", "None")):
        return False  # a nested config: parsed from JSON
    if members == {"bool", "str", "None"}:
        return False  # `--flag` alone or `--flag value`
    return "bool" in members


# -- add_argument calls -------------------------------------------------------------------------------


class Option:
    def __init__(self, strings: list[str], boolean: bool, where: str):
        self.strings = strings
        self.boolean = boolean  # BooleanOptionalAction: also accepts --no-<flag>
        self.where = where


def _methods(tree: ast.Module, class_names, method: str):
    classes = _classes(tree)
    for cls_name in class_names:
        cls = classes.get(cls_name)
        if cls is None:
            continue
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == method:
                yield f"{cls_name}.{method}", node


def _functions(tree: ast.Module, name: str):
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            yield name, node


def _is_boolean_action(node: ast.expr) -> bool:
    return _name_of(node) == "BooleanOptionalAction"


class KwargsResolver:
    """What the `**kwargs` of an `add_argument` call stand for inside one function:
    `get_kwargs(SomeConfig)["field"]`, possibly through a local variable or a dict merge."""

    def __init__(self, func: ast.FunctionDef, index: ClassIndex):
        self.index = index
        self.get_kwargs_vars: dict[str, str] = {}  # var -> config class
        self.field_vars: dict[str, tuple[str, str]] = {}  # var -> (class, field)
        self.action_overrides: dict[tuple[str, str], ast.expr] = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if isinstance(target, ast.Name):
                    cls = self._get_kwargs_class(value)
                    if cls:
                        self.get_kwargs_vars[target.id] = cls
                    ref = self._field_ref(value)
                    if ref:
                        self.field_vars[target.id] = ref
                elif isinstance(target, ast.Subscript) and _const(target.slice) == "action":
                    ref = self._field_ref(target.value)
                    if ref:
                        self.action_overrides[ref] = value

    def _get_kwargs_class(self, value: ast.expr) -> str | None:
        if isinstance(value, ast.Call) and _name_of(value.func) == "get_kwargs" and value.args:
            return _name_of(value.args[0])
        return None

    def _field_ref(self, node: ast.expr) -> tuple[str, str] | None:
        """(class, field) for `var["field"]` or `get_kwargs(Cls)["field"]`, or a variable bound to one."""
        if isinstance(node, ast.Name):
            return self.field_vars.get(node.id)
        if isinstance(node, ast.Subscript):
            field = _const(node.slice)
            if not isinstance(field, str):
                return None
            if isinstance(node.value, ast.Name) and node.value.id in self.get_kwargs_vars:
                return self.get_kwargs_vars[node.value.id], field
            cls = self._get_kwargs_class(node.value)
            if cls:
                return cls, field
        return None

    def boolean(self, call: ast.Call) -> bool:
        for kw in call.keywords:
            if kw.arg == "action":
                return _is_boolean_action(kw.value)
        for kw in call.keywords:
            if kw.arg is None:
                boolean = self._boolean_of_spread(kw.value)
                if boolean is not None:
                    return boolean
        return False

    def _boolean_of_spread(self, value: ast.expr) -> bool | None:
        if isinstance(value, ast.Dict):  # {**kwargs["x"], "default": ...}
            explicit = None
            spread = None
            for key, item in zip(value.keys, value.values):
                if key is None:
                    spread = self._boolean_of_spread(item)
                elif _const(key) == "action":
                    explicit = _is_boolean_action(item)
            return explicit if explicit is not None else spread
        ref = self._field_ref(value)
        if ref is None:
            return None
        if ref in self.action_overrides:
            return _is_boolean_action(self.action_overrides[ref])
        return field_is_boolean_optional(ref[0], ref[1], self.index)


def _const(node: ast.AST):
    return node.value if isinstance(node, ast.Constant) else None


def options_of_function(func: ast.FunctionDef, where: str, index: ClassIndex) -> list[Option]:
    resolver = KwargsResolver(func, index)
    out = []
    for node in ast.walk(func):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            continue
        strings = [_const(a) for a in node.args]
        if not strings or not all(isinstance(s, str) for s in strings):
            if any(isinstance(a, (ast.JoinedStr, ast.Name, ast.Call)) for a in node.args):
                continue  # a loop over config fields: handled separately
            raise SourceError(f"{where}:{node.lineno}: add_argument without literal option strings")
        if not strings[0].startswith("-"):
            continue  # a positional (model_tag)
        out.append(Option(strings, resolver.boolean(node), f"{where}:{node.lineno}"))
    return out


def frontend_options(module: str, package: Package, index: ClassIndex) -> list[Option]:
    """`--field-name` for every field of the frontend argument dataclasses, plus the extra
    option strings `_customize_cli_kwargs` attaches (`kwargs["x"]["flags"] = [...]`)."""
    tree = package.tree(module)
    classes = _classes(tree)
    extra_flags: dict[str, list[str]] = {}
    action_overrides: dict[str, ast.expr] = {}
    for name in FRONTEND_CLASSES:
        for node in ast.walk(classes.get(name) or ast.Module(body=[], type_ignores=[])):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Subscript)
            ):
                target = node.targets[0]
                key = _const(target.slice)
                inner = target.value
                if isinstance(inner, ast.Subscript) and isinstance(_const(inner.slice), str):
                    field = _const(inner.slice)
                    if key == "flags" and isinstance(node.value, (ast.List, ast.Tuple)):
                        extra_flags[field] = [
                            _const(e) for e in node.value.elts if isinstance(_const(e), str)
                        ]
                    elif key == "action":
                        action_overrides[field] = node.value
    out = []
    seen = set()
    for name in FRONTEND_CLASSES:
        if name not in classes:
            continue
        for field, _annotation in index.fields(name).items():
            if field in seen:
                continue
            seen.add(field)
            if field in action_overrides:
                boolean = _is_boolean_action(action_overrides[field])
            else:
                boolean = field_is_boolean_optional(name, field, index)
            strings = extra_flags.get(field, []) + ["--" + field.replace("_", "-")]
            out.append(Option(strings, boolean, f"{module}:{name}.{field}"))
    if not seen:
        raise SourceError(f"{module}: no frontend argument classes ({', '.join(FRONTEND_CLASSES)})")
    return out


def pairs_enable_disable(package: Package) -> bool:
    """vLLM >= 0.2x registers EnableDisableAction for BooleanOptionalAction: --enable-x <-> --disable-x."""
    for name in ARGPARSE_UTILS:
        src = package.files.get(name, "")
        if "EnableDisableAction" in src and re.search(r"register\(\s*[\"']action[\"']", src):
            return True
    return False


def collect(package: Package) -> tuple[list[str], list[str]]:
    """(sorted flags, source files read)."""
    index = ClassIndex(package)
    options: list[Option] = []
    arg_utils = package.tree(ARG_UTILS)
    found = list(_methods(arg_utils, ENGINE_CLASSES, "add_cli_args"))
    if not found:
        raise SourceError(f"{ARG_UTILS}: no EngineArgs.add_cli_args")
    for where, func in found:
        options += options_of_function(func, f"{ARG_UTILS}:{where}", index)
    server = package.first(SERVER_ARGS)
    server_tree = package.tree(server)
    parsers = list(_functions(server_tree, "make_arg_parser"))
    if not parsers:
        raise SourceError(f"{server}: no make_arg_parser")
    for where, func in parsers:
        options += options_of_function(func, f"{server}:{where}", index)
    if any(name in _classes(server_tree) for name in FRONTEND_CLASSES):
        options += frontend_options(server, package, index)
    pair = pairs_enable_disable(package)

    flags: set[str] = set()
    for option in options:
        for s in option.strings:
            flags.add(s)
            if option.boolean and s.startswith("--"):
                flags.add("--no-" + s[2:])
                if pair:
                    for prefix, inverse in (
                        ("--enable-", "--disable-"),
                        ("--disable-", "--enable-"),
                    ):
                        if s.startswith(prefix):
                            flags.add(inverse + s[len(prefix) :])
    if "--tensor-parallel-size" not in flags or "--port" not in flags:
        raise SourceError("the parse missed core options (--tensor-parallel-size, --port)")
    used = [ARG_UTILS, server] + sorted(
        {index.find(c)[0] for c in index._found if index._found[c]} - {ARG_UTILS, server}
    )
    if pair:
        used.append(next(n for n in ARGPARSE_UTILS if n in package.files))
    return sorted(flags), used


# -- download and output ------------------------------------------------------------------------------


def download(version: str | None, dest: Path) -> Path:
    spec = f"vllm=={version}" if version else "vllm"
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--dest",
        str(dest),
        "--quiet",
        spec,
    ]
    print("+ " + " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    files = sorted(p for p in dest.iterdir() if p.name.startswith("vllm-"))
    if not files:
        raise SourceError("pip download produced no vllm file")
    return files[0]


ENVS = "vllm/envs.py"
_ENV_LITERAL = re.compile(r"""["'](VLLM_[A-Z0-9_]+)["']""")


def environment_variables(package: Package) -> list[str]:
    """Every VLLM_* variable the package reads (see the module docstring)."""
    names: set[str] = set()
    for node in ast.walk(package.tree(ENVS)):
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and isinstance(target, ast.Name)
            and target.id == "environment_variables"
            and isinstance(node.value, ast.Dict)
        ):
            names.update(k.value for k in node.value.keys if isinstance(k, ast.Constant))
    if not names:
        raise SourceError(f"no environment_variables table in {ENVS}")
    for name, text in package.files.items():
        if name.startswith("vllm/"):
            names.update(_ENV_LITERAL.findall(text))
    return sorted(names)


def build_document(package: Package) -> dict:
    flags, used = collect(package)
    return {
        "vllm_version": package.version(),
        "source": f"{package.path.name} ({', '.join(used)}, {ENVS})",
        "flags": flags,
        "env": environment_variables(package),
    }


def encode(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", help="vLLM release to read (default: the latest on PyPI)")
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="read this wheel, sdist or source tree instead of downloading",
    )
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 when the output file differs"
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="vllm-flags-") as tmp:
        path = args.source or download(args.version, Path(tmp))
        doc = build_document(Package(path))
    text = encode(doc)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date for vLLM {doc['vllm_version']}", file=sys.stderr)
            return 1
        print(
            f"{args.output} is up to date ({len(doc['flags'])} flags, vLLM {doc['vllm_version']})"
        )
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(
        f"wrote {args.output}: {len(doc['flags'])} flags and {len(doc['env'])} environment variables "
        f"from vLLM {doc['vllm_version']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
