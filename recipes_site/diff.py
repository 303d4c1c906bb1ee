"""`recipes-site diff`: which commands and sizing verdicts a change to the recipes changes.

A reviewer of a recipe pull request cannot see the commands a YAML edit changes: one flag in a
feature block can touch hundreds of renderings. The API tree already holds every rendering as
data, so the diff compares two *built* API trees instead of re-rendering anything itself:

    base, head = load_api_tree(site_a), load_api_tree(site_b)   # reading files, no synthesis
    changes = diff_trees(base, head)                            # pure
    text_report(changes) / json_report(changes) / markdown_report(changes)

A rendering is keyed by (model, hardware, variant, strategy, node count), the coordinates the
picker shows. Its *command text* (environment exports plus every serve-form command of every
process, in document order) is what the unified diff shows; differences elsewhere in the
rendering (the docker form, configs, notes) are listed by field name. Sizing verdicts come from
`models/<org>/<repo>.json` (`sizing.<variant>.hardware.<hw>`), recommendations from the hardware
documents.

Turning git refs or folders into built sites lives in :mod:`recipes_site.diff_sources`, so this
module does no I/O beyond reading the two trees' JSON.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from recipes_site.synthesis.shell import export_lines

API_MODELS = Path("api") / "v1" / "models"
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
class TreeDiff:
    base: str = "base"
    head: str = "head"
    renderings: list[RenderingChange] = field(default_factory=list)
    sizing: list[VerdictChange] = field(default_factory=list)
    recommended: list[VerdictChange] = field(default_factory=list)
    models_added: list[str] = field(default_factory=list)
    models_removed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (
            self.renderings
            or self.sizing
            or self.recommended
            or self.models_added
            or self.models_removed
        )

    def counts(self) -> dict[str, int]:
        out = {
            s: sum(1 for c in self.renderings if c.status == s)
            for s in ("changed", "added", "removed")
        }
        out["sizing"] = len(self.sizing)
        out["recommended"] = len(self.recommended)
        return out


def _scalar(value) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def _verdict_text(verdict: dict | None) -> str:
    return ", ".join(f"{k} {_scalar(v)}" for k, v in (verdict or {}).items())


# -- reading a built site ---------------------------------------------------------------------------


def load_api_tree(site: Path) -> ApiTree:
    """The renderings, sizing verdicts and recommendations of a built site's `api/v1/models/`."""
    tree = ApiTree()
    base = Path(site) / API_MODELS
    for path in sorted(base.rglob("*.json")) if base.is_dir() else []:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if path.parent.name == "hw" and "renderings" in doc:
            model, hw = doc["recipe"], doc["hardware"]
            for r in doc["renderings"]:
                key = RenderingKey(model, hw, r["variant"], r["strategy"], int(r["node_count"]))
                tree.renderings[key] = r
            for variant, pick in (doc.get("recommended") or {}).items():
                tree.recommended[(model, hw, variant)] = pick
        elif "sizing" in doc and "id" in doc:
            tree.models.add(doc["id"])
            for variant, sizing in (doc.get("sizing") or {}).items():
                # the variant's size (computed, declared, the basis of every verdict), hardware ""
                tree.sizing[(doc["id"], variant, "")] = {
                    k: v for k, v in (sizing or {}).items() if k != "hardware"
                }
                for hw, verdict in ((sizing or {}).get("hardware") or {}).items():
                    tree.sizing[(doc["id"], variant, hw)] = verdict
    return tree


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
        if k not in ("parts", "env") and not (_is_command_key(k) and not isinstance(v, dict))
    }


def _other_fields(before: dict, after: dict) -> list[str]:
    """Top-level fields that differ outside the command text (docker form, configs, notes)."""
    a, b = _without_commands(before), _without_commands(after)
    return [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


def _unified(before: list[str], after: list[str]) -> str:
    lines = difflib.unified_diff(before, after, "base", "head", n=3, lineterm="")
    return "\n".join(lines)


# -- the diff -------------------------------------------------------------------------------------


def diff_trees(
    base: ApiTree, head: ApiTree, base_name: str = "base", head_name: str = "head"
) -> TreeDiff:
    """Every rendering added, removed or changed, and every changed sizing verdict and
    recommendation, sorted by key (deterministic output for the same two trees)."""
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
            if text:  # argv and the docker form follow the command; listing them says nothing new
                fields = [f for f in fields if "argv" not in f and "docker_command" not in f]
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
    return out


# -- reports --------------------------------------------------------------------------------------


def _headline(d: TreeDiff) -> str:
    c = d.counts()
    if d.empty:
        return f"{d.base}..{d.head}: no rendering, sizing verdict or recommendation changed"
    parts = [
        f"{c['changed']} rendering{'s' if c['changed'] != 1 else ''} changed",
        f"{c['added']} added",
        f"{c['removed']} removed",
        f"{c['sizing']} sizing verdict{'s' if c['sizing'] != 1 else ''} changed",
        f"{c['recommended']} recommendation{'s' if c['recommended'] != 1 else ''} changed",
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
    return "\n".join(out) + "\n"


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
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def md_text(value) -> str:
    """Recipe strings in Markdown prose or a table cell: no HTML, links, mentions or cell breaks."""
    text = " ".join(str(value).split())
    for ch in "&<>|[]`*_@\\":
        text = text.replace(ch, f"&#{ord(ch)};")
    return text


def md_code(value) -> str:
    """A short recipe string as inline code (no Markdown or mentions inside), else escaped text."""
    text = " ".join(str(value).split())
    return f"`{text}`" if "`" not in text and "|" not in text else md_text(text)


def _fence(body: str, lang: str = "diff") -> str:
    """A code fence longer than any backtick run in `body`, so hostile text cannot close it."""
    run, longest = 0, 0
    for ch in body:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{body}\n{ticks}"


def _model_section(
    model: str, changes: list[RenderingChange], verdicts: list[VerdictChange]
) -> list[str]:
    """One <details> block per model: a line per rendering, its diff, then its verdict changes."""
    n = {s: sum(1 for c in changes if c.status == s) for s in ("changed", "added", "removed")}
    counts = ", ".join(f"{v} {k}" for k, v in n.items() if v) or "sizing only"
    blocks = [f"<details><summary><b>{md_text(model)}</b>: {counts}</summary>\n"]
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
            f"| {md_code(v.variant)} | {md_code(v.hardware) if v.hardware else 'size'} | {md_text(v.summary())} |"
            for v in verdicts
        ]
        blocks.append("\n".join(rows) + "\n")
    blocks.append("</details>\n")
    return blocks


def markdown_report(d: TreeDiff, limit: int = MARKDOWN_LIMIT) -> str:
    """A PR comment: a headline, then one collapsible section per model, cut at `limit` characters
    with a line saying how much was left out."""
    out = ["### Rendered command changes", "", md_text(_headline(d)), ""]
    if d.empty:
        return "\n".join(out)
    by_model: dict[str, tuple[list, list]] = {}
    for c in d.renderings:
        by_model.setdefault(c.key.model, ([], []))[0].append(c)
    for v in d.sizing + d.recommended:
        by_model.setdefault(v.model, ([], []))[1].append(v)
    size = sum(len(x) + 1 for x in out)
    left_models, left_items = 0, 0
    for model in sorted(by_model):
        changes, verdicts = by_model[model]
        section = "\n".join(_model_section(model, changes, verdicts))
        if left_models or size + len(section) + 200 > limit:
            left_models += 1
            left_items += len(changes) + len(verdicts)
            continue
        out.append(section)
        size += len(section) + 1
    if left_models:
        out.append(
            f"… {left_models} more model{'s' if left_models != 1 else ''} ({left_items} more changes) "
            "not shown: run `recipes-site diff` locally for the whole list."
        )
    return "\n".join(out) + "\n"


REPORTS = {"text": text_report, "json": json_report, "markdown": markdown_report}
