"""`recipes-site bench import`: a `vllm bench serve --save-result` file becomes a result of the
recipes root, with its provenance, at benchmarks/<org>/<repo>/<hardware>/<name>.json.

The document is checked against the same schema `validate` uses before anything is written, the
path is made only of ids the catalog already knows (never of text inside the result file), and an
existing file is not overwritten unless asked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from recipes_site.catalog.benchmarks import BENCHMARKS_DIR, BenchmarkFile
from recipes_site.errors import ChoiceError

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
# The per-request lists `--save-detailed` adds: kept out of the recipes root (megabytes of
# numbers nobody reviews in a pull request); the summary statistics stay.
DETAILED_KEYS = (
    "input_lens",
    "output_lens",
    "start_times",
    "ttfts",
    "itls",
    "latencies",
    "queue_times",
    "generated_texts",
    "errors",
    "server_queue_times",
    "server_ttfts",
)


@dataclass(frozen=True)
class Imported:
    path: Path  # where the file goes, under ROOT/benchmarks
    document: dict  # what it holds


def result_name(result: dict) -> str:
    """The default file name: concurrency and date of the run, e.g. `c32-20261207-101500`."""
    concurrency = result.get("max_concurrency")
    rate = result.get("request_rate")
    load = f"c{concurrency}" if isinstance(concurrency, int) else f"rate-{rate or 'inf'}"
    date = str(result.get("date") or "undated")
    return re.sub(r"[^A-Za-z0-9._-]", "-", f"{load}-{date}")


def build_document(result: dict, provenance: dict) -> dict:
    """The file's content, validated; raises ChoiceError naming the first problem."""
    summary = {k: v for k, v in result.items() if k not in DETAILED_KEYS}
    document = {"provenance": provenance, "result": summary}
    try:
        BenchmarkFile.model_validate(document)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ChoiceError(f"the result cannot be imported: {where}: {first.get('msg')}") from None
    return {k: v for k, v in document.items()}


def destination(root: Path, hf_id: str, hardware: str, name: str) -> Path:
    """ROOT/benchmarks/<org>/<repo>/<hardware>/<name>.json; `hf_id` and `hardware` are ids the
    catalog validated, `name` is checked here."""
    if not NAME_RE.match(name):
        raise ChoiceError(
            f"result name {name!r} must be letters, digits, '.', '_' or '-' (at most 80)"
        )
    return root / BENCHMARKS_DIR / hf_id / hardware / f"{name}.json"


def write(imported: Imported, *, overwrite: bool = False) -> None:
    if imported.path.exists() and not overwrite:
        raise ChoiceError(f"{imported.path} exists; pass --force to replace it")
    imported.path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(imported.document, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    imported.path.write_text(text, encoding="utf-8")
