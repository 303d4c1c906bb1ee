"""`recipes-site diff`: everything a change to the recipes changes in what the build publishes.

A reviewer of a recipe pull request cannot see the commands a YAML edit changes: one flag in a
feature block can touch hundreds of renderings. The API tree already holds every rendering as
data, so the diff compares two *built* sites instead of re-rendering anything itself:

    base, head = load_api_tree(site_a), load_api_tree(site_b)   # reading files, no synthesis
    changes = diff_trees(base, head)                            # pure
    text_report(changes) / json_report(changes) / markdown_report(changes)

A rendering is keyed by (model, hardware, variant, strategy, node count), the coordinates the
picker shows. Its *command text* (environment exports plus every serve-form command of every
process, in document order) is what the unified diff shows; differences elsewhere in the
rendering (the docker form, configs, notes) are listed by field name. Sizing verdicts come from
`models/<org>/<repo>.json` (`sizing.<variant>.hardware.<hw>`), recommendations from the hardware
documents. Every other field of every published JSON document (install and dependency
commands, the guide, meta, feature and extra lines, catalog-wide documents) is compared leaf by
leaf, and every other published file (pages, `.md`, `llms.txt`) by its bytes, so nothing the
build publishes changes without the report saying so.

Reports print recipe text, which is hostile: hidden and control characters are shown as
`\u202e`-style escapes, and the Markdown report (a bot comment on a pull request) puts every
string a pull request controls inside code spans or fences, so it carries no mention, link,
image or HTML of the pull request's.

Turning git refs or folders into built sites lives in :mod:`recipes_site.diff_sources`, so this
module does no I/O beyond reading the two built sites' files.
"""

from __future__ import annotations

import difflib
import hashlib
import html
import json
import os
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from recipes_site.catalog.shell_policy import unchecked_note
from recipes_site.synthesis.shell import export_lines

API_MODELS = Path("api") / "v1" / "models"
API_PREFIX = "api/v1/"
# GitHub refuses issue/PR comments longer than 65536 characters; leave room for the header.
MARKDOWN_LIMIT = 60000


@dataclass(frozen=True, order=True)
class RenderingKey:
    model: str
    hardware: str
    variant: str
    strategy: str
    nodes: int

    def label(self, sep: str = " ") -> str:
        """hardware, variant, strategy and node count (the model is the section's)."""
        return sep.join(
            [
                self.hardware,
                self.variant,
                self.strategy,
                f"{self.nodes} node{'s' if self.nodes != 1 else ''}",
            ]
        )


@dataclass
class ApiTree:
    """What the diff reads of one built site."""

    renderings: dict[RenderingKey, dict] = field(default_factory=dict)
    sizing: dict[tuple[str, str, str], dict] = field(
        default_factory=dict
    )  # (model, variant, hw or "") -> verdict
    recommended: dict[tuple[str, str, str], dict] = field(
        default_factory=dict
    )  # (model, hw, variant) -> pick
    models: set[str] = field(default_factory=set)
    # every JSON document under api/ (site path) -> (its recipe id or "", the document without the
    # fields compared above: a model's sizing, a hardware document's renderings and recommended)
    documents: dict[str, tuple[str, Any]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # other published files -> sha256


@dataclass
class RenderingChange:
    key: RenderingKey
    status: str  # "added" | "removed" | "changed"
    diff: str  # unified diff of the command text ("" when only other fields changed)
    fields: list[str]  # top-level fields that differ besides the command text


@dataclass
class VerdictChange:
    model: str
    variant: str
    hardware: str
    before: dict | None
    after: dict | None

    def summary(self) -> str:
        if self.before is None:
            return "new: " + _verdict_text(self.after)
        if self.after is None:
            return "gone (was " + _verdict_text(self.before) + ")"
        keys = [k for k in {**self.before, **self.after} if self.before.get(k) != self.after.get(k)]
        return ", ".join(
            f"{k} {_scalar(self.before.get(k))} → {_scalar(self.after.get(k))}" for k in keys
        )


@dataclass
class FieldChange:
    """One published value that differs: a leaf of a JSON document (or a whole document)."""

    model: str  # the recipe the document belongs to; "" for catalog-wide documents
    document: str  # site path of the document
    path: str  # key path inside it; "" for the whole document
    status: str  # "added" | "removed" | "changed"
    before: Any = None
    after: Any = None

    @property
    def command(self) -> bool:
        return is_command_path(self.path)


@dataclass
class FileChanges:
    """Published files other than the API's JSON (pages, `.md`, `llms.txt`), by site path."""

    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.changed) + len(self.added) + len(self.removed)


@dataclass
class TreeDiff:
    base: str = "base"
    head: str = "head"
    renderings: list[RenderingChange] = field(default_factory=list)
    sizing: list[VerdictChange] = field(default_factory=list)
    recommended: list[VerdictChange] = field(default_factory=list)
    models_added: list[str] = field(default_factory=list)
    models_removed: list[str] = field(default_factory=list)
    fields: list[FieldChange] = field(default_factory=list)
    files: FileChanges = field(default_factory=FileChanges)

    @property
    def empty(self) -> bool:
        return not (
            self.renderings
            or self.sizing
            or self.recommended
            or self.models_added
            or self.models_removed
            or self.fields
            or self.files
        )

    def counts(self) -> dict[str, int]:
        out = {
            s: sum(1 for c in self.renderings if c.status == s)
            for s in ("changed", "added", "removed")
        }
        out["sizing"] = len(self.sizing)
        out["recommended"] = len(self.recommended)
        out["fields"] = len(self.fields)
        out["commands"] = sum(1 for f in self.fields if f.command)
        out["files"] = len(self.files)
        return out


def _scalar(value) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _verdict_text(verdict: dict | None) -> str:
    return ", ".join(f"{k} {_scalar(v)}" for k, v in (verdict or {}).items())


# -- reading a built site ---------------------------------------------------------------------------


def load_api_tree(site: Path) -> ApiTree:
    """What the diff compares of a built site: the renderings, sizing verdicts and
    recommendations of `api/v1/models/`, every other field of every JSON document under `api/`,
    and a digest of every other published file."""
    tree = ApiTree()
    site = Path(site)
    for folder, dirs, names in os.walk(site):
        dirs.sort()
        for name in sorted(names):
            path = Path(folder, name)
            rel = path.relative_to(site).as_posix()
            if rel.startswith("api/") and name.endswith(".json"):
                _take_document(tree, rel, json.loads(path.read_text(encoding="utf-8")))
            else:
                tree.files[rel] = _digest(path)
    return tree


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            sha.update(chunk)
    return sha.hexdigest()


def _take_document(tree: ApiTree, rel: str, doc: Any) -> None:
    model, rest = "", doc
    if isinstance(doc, dict) and rel.startswith(API_MODELS.as_posix() + "/"):
        if rel.split("/")[-2] == "hw" and "renderings" in doc:
            model, hw = doc["recipe"], doc["hardware"]
            for r in doc["renderings"]:
                key = RenderingKey(model, hw, r["variant"], r["strategy"], int(r["node_count"]))
                tree.renderings[key] = r
            for variant, pick in (doc.get("recommended") or {}).items():
                tree.recommended[(model, hw, variant)] = pick
            rest = {k: v for k, v in doc.items() if k not in ("renderings", "recommended")}
        elif "sizing" in doc and "id" in doc:
            model = doc["id"]
            tree.models.add(model)
            for variant, sizing in (doc.get("sizing") or {}).items():
                # the variant's size (computed, declared, the basis of every verdict), hardware ""
                tree.sizing[(model, variant, "")] = {
                    k: v for k, v in (sizing or {}).items() if k != "hardware"
                }
                for hw, verdict in ((sizing or {}).get("hardware") or {}).items():
                    tree.sizing[(model, variant, hw)] = verdict
            rest = {k: v for k, v in doc.items() if k != "sizing"}
    tree.documents[rel] = (model, rest)


# -- the command text of one rendering ----------------------------------------------------------------


def _is_command_key(key: str) -> bool:
    return (
        ("command" in key or key == "install" or key.endswith("_install"))
        and "docker" not in key
        and "argv" not in key
    )


def _command_lines(node: dict, prefix: str) -> list[str]:
    """Exports and serve-form commands of `node` and its nested processes, in document order.
    A `x_command` that has a `x_commands` list beside it is that list's first item: skipped."""
    out: list[str] = []
    env = node.get("env")
    if isinstance(env, dict) and env:
        out.append(f"# {prefix}env" if prefix else "# env")
        out += export_lines(env).splitlines()  # as the page prints them: placeholders expand
    for key, value in node.items():
        where = f"{prefix}{key}"
        if isinstance(value, dict) and key != "parts":
            out += _command_lines(value, where + ".")
        elif not _is_command_key(key) or value in (None, "", []):
            continue
        elif isinstance(value, str) and f"{key}s" not in node:
            out += [f"# {where}", *value.split("\n")]
        elif isinstance(value, list):
            for i, item in enumerate(value):
                out += [f"# {where}[{i}]", *str(item).split("\n")]
    return out


def command_text(rendering: dict) -> list[str]:
    """What a reviewer reads of a rendering: its exports and commands, one list item per line."""
    return _command_lines(rendering, "")


def _without_commands(node):
    """`node` minus its command text (commands, installs, env), recursively."""
    if not isinstance(node, dict):
        return node
    return {
        k: _without_commands(v)
        for k, v in node.items()
        if k != "env" and not (_is_command_key(k) and not isinstance(v, dict))
    }


# fields of a rendering that follow its command text: listing them beside a command diff says
# nothing new (the page's picker parts, the argv and docker forms of the same command)
_FOLLOWERS = ("argv", "docker_command", "parts")


def _other_fields(before: dict, after: dict) -> list[str]:
    """Top-level fields that differ outside the command text (docker form, configs, notes, the
    picker's parts)."""
    a, b = _without_commands(before), _without_commands(after)
    return [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def _unified(before: list[str], after: list[str]) -> str:
    lines = difflib.unified_diff(before, after, "base", "head", n=3, lineterm="")
    return "\n".join(lines)


# -- every other published field ---------------------------------------------------------------


def is_command_path(path: str) -> bool:
    """A leaf a reader pastes into a shell: an install, dependency or other `command`, or the
    lines and texts of a hardware document's feature and extra sets (the picker adds them)."""
    last = path.rsplit(".", 1)[-1].split("[", 1)[0]
    if "command" in last or last == "install" or last.endswith("_install"):
        return True
    return path.startswith(("feature_sets", "extra_sets")) and last in ("lines", "text")


def _item_key(items: list) -> list[str]:
    """How the items of a list are named in key paths: by their `id` (or recipe and variant, or
    `name`) when every item has a distinct one, so an insertion does not renumber the rest."""
    for fields in (("id",), ("recipe", "variant"), ("name",)):
        keys = [
            " ".join(str(item.get(f)) for f in fields)
            if isinstance(item, dict) and all(isinstance(item.get(f), str) for f in fields)
            else None
            for item in items
        ]
        if None not in keys and len(set(keys)) == len(keys):
            return [json.dumps(k, ensure_ascii=False) for k in keys]  # (never a plain index)
    return [str(i) for i in range(len(items))]


def _leaves(node: Any, prefix: str = "") -> dict[str, Any]:
    """Key path -> value of every leaf of a JSON value, in document order."""
    out: dict[str, Any] = {}
    if isinstance(node, dict) and node:
        for k, v in node.items():
            out.update(_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(node, list) and node:
        for key, v in zip(_item_key(node), node):
            out.update(_leaves(v, f"{prefix}[{key}]"))
    else:
        out[prefix] = node
    return out


def _merged_order(before: list[str], after: list[str]) -> list[str]:
    """The key paths of both sides in the head's order, each removed one just before the key
    that followed it in the base (so `x[0]` replacing `x` is read next to it)."""
    kept = set(after)
    anchored: dict[str | None, list[str]] = {}
    for i, key in enumerate(before):
        if key not in kept:
            following = next((k for k in before[i + 1 :] if k in kept), None)
            anchored.setdefault(following, []).append(key)
    out: list[str] = []
    for key in after:
        out += anchored.get(key, []) + [key]
    return out + anchored.get(None, [])


def diff_documents(base: dict, head: dict) -> list[FieldChange]:
    """Every leaf that differs between the documents of two trees, by document then key path.
    A document only one side has is one change; its commands are listed one by one too (a new
    recipe's install commands are what a reviewer must read)."""
    out: list[FieldChange] = []
    for doc in sorted(set(base) | set(head)):
        a, b = base.get(doc), head.get(doc)
        if a == b:
            continue
        model = (b or a)[0]  # type: ignore[index]
        if a is None or b is None:
            status, value = ("added", b[1]) if a is None else ("removed", a[1])  # type: ignore[index]
            out.append(FieldChange(model, doc, "", status))
            for path, leaf in _leaves(value).items():
                if is_command_path(path) and isinstance(leaf, str) and leaf:
                    pair = (None, leaf) if status == "added" else (leaf, None)
                    out.append(FieldChange(model, doc, path, status, *pair))
            continue
        la, lb = _leaves(a[1]), _leaves(b[1])
        for path in _merged_order(list(la), list(lb)):
            if path not in lb:
                out.append(FieldChange(model, doc, path, "removed", la[path], None))
            elif path not in la:
                out.append(FieldChange(model, doc, path, "added", None, lb[path]))
            elif la[path] != lb[path] or type(la[path]) is not type(lb[path]):
                out.append(FieldChange(model, doc, path, "changed", la[path], lb[path]))
    return out


def diff_files(base: dict[str, str], head: dict[str, str]) -> FileChanges:
    return FileChanges(
        changed=sorted(p for p in set(base) & set(head) if base[p] != head[p]),
        added=sorted(set(head) - set(base)),
        removed=sorted(set(base) - set(head)),
    )


# Where a recipe writes its own shell (catalog/shell_policy.recipe_commands) in the model
# document: install overrides, dependencies and feature companions as the recipe holds them,
# and the install block the page shows them in.
_RECIPE_SHELL = re.compile(
    r"(recipe\.(model\.install\.[^.]+|dependencies\[\d+\]|features\..+\.companion)"
    r"|install\.(pip|docker|extras\[\d+\]))\.command"
)


def command_notes(path: str, command: str) -> list[str]:
    """Notes every report prints under a command a change adds or changes: the shell policy's
    warning for a recipe-written command outside its grammar (validate admits one only with
    `unchecked_shell: true`). Commands the build writes get none."""
    if not _RECIPE_SHELL.fullmatch(path):
        return []
    note = unchecked_note(command)
    return [note] if note else []


# -- the diff -------------------------------------------------------------------------------------


def diff_trees(
    base: ApiTree, head: ApiTree, base_name: str = "base", head_name: str = "head"
) -> TreeDiff:
    """Every rendering added, removed or changed, every changed sizing verdict and
    recommendation, every other published field and file, sorted by key (deterministic output
    for the same two trees)."""
    out = TreeDiff(base=base_name, head=head_name)
    out.models_added = sorted(head.models - base.models)
    out.models_removed = sorted(base.models - head.models)
    for key in sorted(set(base.renderings) | set(head.renderings)):
        a, b = base.renderings.get(key), head.renderings.get(key)
        if a == b:
            continue
        if a is None:
            assert b is not None  # (equal sides were skipped)
            out.renderings.append(RenderingChange(key, "added", _unified([], command_text(b)), []))
        elif b is None:
            out.renderings.append(
                RenderingChange(key, "removed", _unified(command_text(a), []), [])
            )
        else:
            text = _unified(command_text(a), command_text(b))
            fields = _other_fields(a, b)
            if text:
                fields = [f for f in fields if not any(x in f for x in _FOLLOWERS)]
            if text or fields:
                out.renderings.append(RenderingChange(key, "changed", text, fields))
    for mine, theirs, target in (
        (base.sizing, head.sizing, out.sizing),
        (base.recommended, head.recommended, out.recommended),
    ):
        for k in sorted(set(mine) | set(theirs)):
            if mine.get(k) != theirs.get(k):
                model, x, y = k
                variant, hw = (x, y) if target is out.sizing else (y, x)
                target.append(VerdictChange(model, variant, hw, mine.get(k), theirs.get(k)))
    out.fields = diff_documents(base.documents, head.documents)
    out.files = diff_files(base.files, head.files)
    return out


# -- reports --------------------------------------------------------------------------------------


def visible(text: str) -> str:
    """`text` with every control, format (bidi, zero-width) and separator character but newline
    and tab shown as a `\u202e`-style escape: a report is read in terminals and on GitHub, where
    such characters would reorder, hide or drive what the reader sees."""
    return "".join(
        c
        if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs")
        else f"\\u{ord(c):04x}"
        for c in text
    )


def _headline(d: TreeDiff) -> str:
    c = d.counts()
    if d.empty:
        return (
            f"{d.base}..{d.head}: nothing published changed "
            "(no rendering, sizing verdict, recommendation, published field or file)"
        )
    parts = [
        f"{c['changed']} rendering{'s' if c['changed'] != 1 else ''} changed",
        f"{c['added']} added",
        f"{c['removed']} removed",
        f"{c['sizing']} sizing verdict{'s' if c['sizing'] != 1 else ''} changed",
        f"{c['recommended']} recommendation{'s' if c['recommended'] != 1 else ''} changed",
        f"{c['fields']} published field{'s' if c['fields'] != 1 else ''} changed "
        f"({c['commands']} command{'s' if c['commands'] != 1 else ''})",
        f"{c['files']} other published file{'s' if c['files'] != 1 else ''} changed",
    ]
    models = ""
    if d.models_added or d.models_removed:
        models = f"; recipes added: {_some(d.models_added)}, removed: {_some(d.models_removed)}"
    return f"{d.base}..{d.head}: " + ", ".join(parts) + models


def _some(ids: list[str], shown: int = 8) -> str:
    if not ids:
        return "none"
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown} more" if len(ids) > shown else "")


_MARK = {"added": "+", "removed": "-", "changed": "~"}


def grouped(changes: list[RenderingChange]) -> list[tuple[RenderingChange, list[RenderingKey]]]:
    """Changes of one model with the same status, diff and fields, together: one edit usually
    changes a command the same way on every hardware profile, and a reviewer needs to read it once."""
    groups: dict[tuple, list[RenderingChange]] = {}
    for c in changes:
        groups.setdefault((c.key.model, c.status, c.diff, tuple(c.fields)), []).append(c)
    return [(cs[0], [c.key for c in cs]) for cs in groups.values()]


def grouped_fields(changes: list[FieldChange]) -> list[tuple[FieldChange, list[str]]]:
    """Field changes of one model with the same key path and values, together with the documents
    they are in (a hardware profile's description is in each of a model's hardware documents).
    Whole documents added or removed come first, then commands, then the recipe's own fields
    (its text as published), then what the build derived from them (sizing details, catalog
    copies)."""
    groups: dict[str, list[FieldChange]] = {}
    for c in changes:
        key = json.dumps([c.model, c.path, c.status, c.before, c.after], sort_keys=True)
        groups.setdefault(key, []).append(c)
    out = [(cs[0], [c.document for c in cs]) for cs in groups.values()]
    return sorted(out, key=lambda g: _rank(g[0]))


def _rank(c: FieldChange) -> int:
    if not c.path:
        return 0
    if c.command:
        return 1
    return 2 if c.path.startswith("recipe.") else 3


def _short(document: str, model: str) -> str:
    """A document's path as a section shows it: under api/v1/, and the model's own prefix off."""
    rel = document.removeprefix(API_PREFIX)
    own = f"models/{model}/"
    return rel.removeprefix(own) if model and rel.startswith(own) else rel


def _where(c: FieldChange, documents: list[str]) -> str:
    shown = [_short(doc, c.model) for doc in documents]
    if c.model and shown == [f"models/{c.model}.json"]:
        return ""  # the model's own document: the usual place
    return " in " + _some(shown, 4)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and "\n" in value.strip("\n")


def _field_text_lines(c: FieldChange, documents: list[str]) -> list[str]:
    """A field change in the text report: `path: before → after`, a unified diff of multi-line
    text, the whole new command for a command."""
    where = _where(c, documents)
    if not c.path:
        return [f"{_MARK[c.status]} document {_short(c.document, c.model)} {c.status}"]
    if c.command:
        out = [f"{_MARK[c.status]} command {c.path}{where} {c.status}"]
        if c.after is not None:
            out += ["    now:", *("      " + line for line in str(c.after).split("\n"))]
            out += ["    " + note for note in command_notes(c.path, str(c.after))]
        if c.before is not None:
            out += ["    was:", *("      " + line for line in str(c.before).split("\n"))]
        return out
    if _is_text(c.before) or _is_text(c.after):
        text = _unified(str(c.before or "").split("\n"), str(c.after or "").split("\n"))
        return [f"{_MARK[c.status]} {c.path}{where}:", *("    " + ln for ln in text.splitlines())]
    return [f"{_MARK[c.status]} {c.path}{where}: {_value(c.before)} → {_value(c.after)}"]


def _value(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, ensure_ascii=False)


def _fields_by_model(d: TreeDiff) -> dict[str, list[FieldChange]]:
    out: dict[str, list[FieldChange]] = {}
    for f in d.fields:
        out.setdefault(f.model, []).append(f)
    return out


FIELDS_SHOWN = 40  # field changes a text section shows (commands always); --format json has all


def text_report(d: TreeDiff) -> str:
    out = [_headline(d)]
    for c, keys in grouped(d.renderings):
        where = f"on {len(keys)} renderings:" if len(keys) > 1 else f"on {keys[0].label()}"
        out += ["", f"{_MARK[c.status]} {c.key.model} {c.status} {where}"]
        out += [f"    {k.label()}" for k in keys] if len(keys) > 1 else []
        if c.fields:
            out.append("  also changed: " + ", ".join(c.fields))
        out += ["  " + line for line in c.diff.splitlines()]
    for title, items in (("sizing verdicts", d.sizing), ("recommendations", d.recommended)):
        if items:
            out += ["", f"{title}:"]
            out += [
                f"  {v.model} {v.variant} {'on ' + v.hardware if v.hardware else 'size'}: {v.summary()}"
                for v in items
            ]
    by_model = _fields_by_model(d)
    for model in sorted(by_model, key=lambda m: (m == "", m)):
        groups = grouped_fields(by_model[model])
        out += ["", f"published fields of {model}:" if model else "catalog-wide documents:"]
        limit = max(FIELDS_SHOWN, sum(1 for g in groups if g[0].command))
        for fc, documents in groups[:limit]:
            out += ["  " + line for line in _field_text_lines(fc, documents)]
        if len(groups) > limit:
            out.append(f"  … {len(groups) - limit} more (--format json lists them all)")
    if d.files:
        out += ["", "other published files:"]
        for status in ("changed", "added", "removed"):
            paths = getattr(d.files, status)
            if paths:
                out.append(f"  {len(paths)} {status}: {_some(paths)}")
    return visible("\n".join(out) + "\n")


def json_report(d: TreeDiff) -> str:
    doc = {
        "base": d.base,
        "head": d.head,
        "counts": d.counts(),
        "models_added": d.models_added,
        "models_removed": d.models_removed,
        "renderings": [
            {**asdict(c.key), "status": c.status, "diff": c.diff, "fields": c.fields}
            for c in d.renderings
        ],
        "sizing": [asdict(v) for v in d.sizing],
        "recommended": [asdict(v) for v in d.recommended],
        "fields": [
            {
                **asdict(f),
                "command": f.command,
                "notes": command_notes(f.path, f.after) if isinstance(f.after, str) else [],
            }
            for f in d.fields
        ],
        "files": asdict(d.files),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# -- the Markdown report: a bot comment on a stranger's pull request ---------------------------------


def md_code(value: Any, *, table: bool = False) -> str:
    """Any string as one inline code span: GitHub turns nothing inside one into a mention, link,
    image or HTML. The span's backtick run is longer than any inside; in a table cell `|` is
    escaped (GFM reads `\\|` as `|` inside a code span too)."""
    text = visible(" ".join(str(value).split()))
    if not text:
        return "(empty)"
    run, longest = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    if table:
        text = text.replace("|", "\\|")
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    ticks = "`" * (longest + 1)
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _html_code(value: Any) -> str:
    """A string inside the HTML of a `<summary>` line (no Markdown there): escaped, in <code>,
    where GitHub makes no mention or link."""
    return f"<code>{html.escape(visible(' '.join(str(value).split())))}</code>"


def _fence(body: str, lang: str = "diff") -> str:
    """A code fence longer than any backtick run in `body`, so hostile text cannot close it."""
    run, longest = 0, 0
    for ch in body:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{visible(body)}\n{ticks}"


def _field_markdown(c: FieldChange, documents: list[str]) -> str:
    where = ""
    if _where(c, documents):
        where = " in " + ", ".join(md_code(_short(doc, c.model)) for doc in documents[:4])
        where += f" and {len(documents) - 4} more" if len(documents) > 4 else ""
    if not c.path:
        return f"**document {c.status}**: {md_code(_short(c.document, c.model))}\n"
    if c.command:
        out = f"**command {c.status}**: {md_code(c.path)}{where}\n"
        if c.after is not None:
            out += "\n" + "now:\n\n" + _fence(str(c.after), "sh") + "\n"
            out += "".join(
                f"\n**{md_code(note)}**\n" for note in command_notes(c.path, str(c.after))
            )
        if c.before is not None:
            out += "\n" + "was:\n\n" + _fence(str(c.before), "sh") + "\n"
        return out
    if _is_text(c.before) or _is_text(c.after):
        text = _unified(str(c.before or "").split("\n"), str(c.after or "").split("\n"))
        return f"**{c.status}**: {md_code(c.path)}{where}\n\n{_fence(text)}\n"
    return (
        f"**{c.status}**: {md_code(c.path)}{where}: "
        f"{md_code(_value(c.before))} → {md_code(_value(c.after))}\n"
    )


def _model_section(
    model: str,
    changes: list[RenderingChange],
    verdicts: list[VerdictChange],
    fields: list[FieldChange],
    limit: int = FIELDS_SHOWN,
) -> list[str]:
    """One <details> block per model: a line per rendering, its diff, its verdict changes, then
    its other published fields (commands first, all of them; at most `limit` in all)."""
    n = {s: sum(1 for c in changes if c.status == s) for s in ("changed", "added", "removed")}
    counts = [f"{v} {k}" for k, v in n.items() if v]
    counts += [f"{len(verdicts)} verdicts"] if verdicts else []
    counts += [f"{len(fields)} fields"] if fields else []
    name = _html_code(model) if model else "catalog-wide documents"
    blocks = [f"<details><summary>{name}: {', '.join(counts)}</summary>\n"]
    for c, keys in grouped(changes):
        where = ", ".join(md_code(k.label(" · ")) for k in keys)
        head = (
            f"**{c.status}** on {where}"
            if len(keys) == 1
            else f"**{c.status}** on {len(keys)} renderings: {where}"
        )
        if c.fields:
            head += " (also: " + ", ".join(md_code(f) for f in c.fields) + ")"
        blocks.append(head + ("\n\n" + _fence(c.diff) + "\n" if c.diff else "\n"))
    if verdicts:
        rows = ["| variant | hardware | change |", "|---|---|---|"]
        rows += [
            f"| {md_code(v.variant, table=True)} | "
            f"{md_code(v.hardware, table=True) if v.hardware else 'size'} | "
            f"{md_code(v.summary(), table=True)} |"
            for v in verdicts
        ]
        blocks.append("\n".join(rows) + "\n")
    groups = grouped_fields(fields)
    limit = max(limit, sum(1 for g in groups if g[0].command))
    for fc, documents in groups[:limit]:
        blocks.append(_field_markdown(fc, documents))
    if len(groups) > limit:
        blocks.append(
            f"… {len(groups) - limit} more fields: `recipes-site diff --format json` lists them all.\n"
        )
    blocks.append("</details>\n")
    return blocks


HEADER = "### Rendered command changes"


def _markdown_headline(d: TreeDiff) -> list[str]:
    """The counts (our own words) and the recipes added or removed (in code spans)."""
    c = d.counts()
    names = f"{md_code(d.base)}..{md_code(d.head)}"
    if d.empty:
        return [f"{names}: nothing published changed."]
    out = [
        f"{names}: {c['changed']} renderings changed, {c['added']} added, {c['removed']} removed; "
        f"{c['sizing']} sizing verdicts and {c['recommended']} recommendations changed; "
        f"{c['fields']} other published fields changed, **{c['commands']} of them commands**; "
        f"{c['files']} other published files changed."
    ]
    for title, ids in (("Recipes added", d.models_added), ("Recipes removed", d.models_removed)):
        if ids:
            out.append(f"\n{title}: " + ", ".join(md_code(i) for i in ids[:20]))
            out[-1] += f" and {len(ids) - 20} more" if len(ids) > 20 else ""
    return out


def markdown_report(d: TreeDiff, limit: int = MARKDOWN_LIMIT) -> str:
    """A PR comment: a headline, then one collapsible section per model, cut at `limit` characters
    with a line saying how much was left out. Every string a pull request controls is inside a
    code span or fence (see md_code, _fence)."""
    out = [HEADER, "", *_markdown_headline(d), ""]
    if d.empty:
        return "\n".join(out)
    by_model: dict[str, tuple[list, list, list]] = {}
    for c in d.renderings:
        by_model.setdefault(c.key.model, ([], [], []))[0].append(c)
    for v in d.sizing + d.recommended:
        by_model.setdefault(v.model, ([], [], []))[1].append(v)
    for f in d.fields:
        by_model.setdefault(f.model, ([], [], []))[2].append(f)
    size = sum(len(x) + 1 for x in out)
    left_models, left_items = 0, 0
    for model in sorted(by_model, key=lambda m: (m == "", m)):
        changes, verdicts, fields = by_model[model]
        section = "\n".join(_model_section(model, changes, verdicts, fields))
        if left_models or size + len(section) + 400 > limit:
            left_models += 1
            left_items += len(changes) + len(verdicts) + len(fields)
            continue
        out.append(section)
        size += len(section) + 1
    if d.files:
        files = (
            f"Other published files: {len(d.files.changed)} changed, {len(d.files.added)} added, "
            f"{len(d.files.removed)} removed."
        )
        if size + len(files) + 400 <= limit:
            out.append(files)
    if left_models:
        out.append(
            f"… {left_models} more section{'s' if left_models != 1 else ''} ({left_items} more changes) "
            "not shown: run `recipes-site diff` locally for the whole list."
        )
    return "\n".join(out) + "\n"


REPORTS = {"text": text_report, "json": json_report, "markdown": markdown_report}
