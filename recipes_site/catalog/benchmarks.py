"""Benchmark results of a recipes root: `benchmarks/<org>/<repo>/<hardware>/<name>.json`.

One file is what `vllm bench serve --save-result` wrote (under `result`) plus a `provenance`
block saying where the numbers come from: who ran it, when, on which vLLM release and image,
with which exact command, and for a published result the page that publishes it. A result
carries its label: "published" (by the vendor or project named in `published_by`),
"community" (anyone else, with a public source) or "verified" (run by this project, with the
image digest). Numbers are never made up: a file without a source is refused.

The folder path names the recipe and the hardware profile, as `models/<org>/<repo>.yaml` names the
recipe; the loader checks both exist. Files beside the folders (the project's own `benchmarks/*.py`
speed targets, `__pycache__`) are not results and are skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from recipes_site.catalog.diagnostics import Diagnostic, Level, Report, locate

BENCHMARKS_DIR = "benchmarks"
RESULT_SUFFIX = ".json"
# `vllm bench serve` writes these (vllm/benchmarks/serve.py:2306-2335 (setup and traffic) and
# :1319-1340 (totals), vLLM 0.33.0); the metric statistics are `mean_/median_/std_/p<N>_<metric>_ms`
# for ttft, tpot, itl and e2el (serve.py:1424-1432).
LATENCY_METRICS = ("ttft", "tpot", "itl", "e2el")
THROUGHPUT_KEYS = ("output_throughput", "total_token_throughput", "request_throughput")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


class Workload(_Strict):
    """What the benchmark sent: the dataset and the request lengths."""

    dataset: str = Field(description="`--dataset-name` (random, sharegpt, ...) or the dataset used")
    input_len: int | None = Field(default=None, ge=1, description="prompt tokens per request")
    output_len: int | None = Field(default=None, ge=1, description="output tokens per request")


class Provenance(_Strict):
    """Where a result comes from; shown next to every number taken from it."""

    label: Literal["published", "community", "verified"] = Field(
        description="published: by the vendor or project in published_by; community: anyone else; "
        "verified: run by this project"
    )
    published_by: str | None = Field(default=None, description="who publishes it (label published)")
    run_by: str = Field(description="who ran it: a person, team or CI job")
    source_url: str | None = Field(
        default=None, pattern=r"^https://", description="the public page with these numbers"
    )
    excerpt: str | None = Field(default=None, description="the source's words with the numbers")
    terms: str | None = Field(
        default=None, description="the reuse terms of the source (licence, or the page's terms)"
    )
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="when it was run or published")
    vllm_version: str = Field(pattern=r"^\d+\.\d+(\.\d+)?\S*$", description="vLLM release measured")
    image: str | None = Field(
        default=None, description="container image, e.g. vllm/vllm-openai:v0.33.0"
    )
    image_digest: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{64}$")
    variant: str = Field(description="the recipe variant the result measures")
    strategy: str | None = Field(default=None, description="the strategy, when not the default")
    gpus: int | None = Field(default=None, ge=1, description="GPUs the server used")
    command: str | None = Field(
        default=None,
        description="the exact `vllm serve` command that was run; null only for a published or "
        "community result whose source does not print it",
    )
    bench_command: str | None = Field(
        default=None, description="the exact `vllm bench serve` command"
    )
    differences: list[str] = Field(
        default_factory=list,
        description="how `command` differs from the site's rendering of this choice, as "
        "`validate` words it; recorded with the result, so validate reports only new ones",
    )
    workload: Workload

    @model_validator(mode="after")
    def _sources(self) -> Provenance:
        if self.label == "published" and not self.published_by:
            raise ValueError("a published result names its publisher in published_by")
        if self.label in ("published", "community") and not self.source_url:
            raise ValueError(f"a {self.label} result needs source_url: the page with its numbers")
        if self.label == "verified" and not (self.image_digest and self.command):
            raise ValueError(
                "a verified result records the image digest (image_digest) and the exact command"
            )
        return self


class Result(BaseModel):
    """The `vllm bench serve --save-result` JSON; keys this project does not read are kept."""

    model_config = ConfigDict(extra="allow")

    model_id: str
    max_concurrency: int | None = Field(default=None, ge=1)
    request_rate: float | str | None = None
    num_prompts: int | None = Field(default=None, ge=1)
    completed: int | None = Field(default=None, ge=0)
    duration: float | None = Field(default=None, gt=0)
    output_throughput: float | None = Field(default=None, gt=0)
    total_token_throughput: float | None = Field(default=None, gt=0)
    request_throughput: float | None = Field(default=None, gt=0)
    mean_ttft_ms: float | None = Field(default=None, gt=0)
    median_ttft_ms: float | None = Field(default=None, gt=0)
    p99_ttft_ms: float | None = Field(default=None, gt=0)
    mean_tpot_ms: float | None = Field(default=None, gt=0)
    median_tpot_ms: float | None = Field(default=None, gt=0)
    p99_tpot_ms: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _has_a_number(self) -> Result:
        if not any(
            getattr(self, key) for key in THROUGHPUT_KEYS + ("mean_ttft_ms", "mean_tpot_ms")
        ):
            raise ValueError(
                "a result needs at least one measured number (output_throughput, "
                "total_token_throughput, request_throughput, mean_ttft_ms or mean_tpot_ms)"
            )
        return self


class BenchmarkFile(_Strict):
    """One file under benchmarks/<org>/<repo>/<hardware>/."""

    model_config = ConfigDict(title="vLLM benchmark result with provenance")

    provenance: Provenance
    result: Result


@dataclass(frozen=True)
class BenchmarkDoc:
    """One loaded result file and where its keys are, for diagnostics."""

    path: Path
    display_path: str
    hf_id: str  # "<org>/<repo>" from the folder path
    hardware: str  # the profile id from the folder path
    name: str  # the file stem
    data: dict
    spec: BenchmarkFile | None  # None when the file had schema errors
    positions: dict = field(default_factory=dict, repr=False)
    key_positions: dict = field(default_factory=dict, repr=False)

    def report(self) -> Report:
        return Report(self.display_path, self.positions, self.key_positions)

    def position(self, path: tuple) -> tuple[int, int]:
        return locate(self.positions, self.key_positions, path)


def result_files(root: Path) -> tuple[list[tuple[Path, tuple[str, str, str, str]]], list[Path]]:
    """(path, (org, repo, hardware, name)) of every result file under ROOT/benchmarks, in byte
    order, and the files that sit where a result should but are not one (wrong depth or suffix).
    Only folders are walked at the top: `benchmarks/*.py` and `__pycache__` are the project's
    speed targets, not results."""
    top = root / BENCHMARKS_DIR
    found: list[tuple[Path, tuple[str, str, str, str]]] = []
    stray: list[Path] = []
    if not top.is_dir():
        return found, stray

    def listing(folder: Path) -> list[os.DirEntry]:
        with os.scandir(folder) as it:
            return sorted(
                (e for e in it if not e.name.startswith((".", "_"))),
                key=lambda e: e.name.encode("utf-8", "surrogateescape"),
            )

    for org in listing(top):
        if not org.is_dir(follow_symlinks=False):
            continue
        for repo in listing(Path(org.path)):
            for hardware in _dirs_or_stray(listing(Path(repo.path)), stray, Path(repo.path)):
                for entry in listing(Path(hardware.path)):
                    path = Path(entry.path)
                    if entry.is_file(follow_symlinks=False) and entry.name.endswith(RESULT_SUFFIX):
                        key = (
                            org.name,
                            repo.name,
                            hardware.name,
                            entry.name[: -len(RESULT_SUFFIX)],
                        )
                        found.append((path, key))
                    else:
                        stray.append(path)
    return found, stray


def _dirs_or_stray(
    entries: list[os.DirEntry], stray: list[Path], parent: Path
) -> list[os.DirEntry]:
    dirs = []
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            dirs.append(entry)
        else:
            stray.append(parent / entry.name)
    return dirs


def stray_diagnostic(display: str) -> Diagnostic:
    return Diagnostic(
        display,
        0,
        0,
        Level.ERROR,
        "",
        "not a benchmark result: results live at benchmarks/<org>/<repo>/<hardware>/<name>.json",
        "move it there (`recipes-site bench import` writes one), or out of benchmarks/",
    )


def check_result(
    doc: BenchmarkDoc, recipes: dict, profiles: dict, strategies: dict
) -> list[Diagnostic]:
    """The cross-file checks of one result: its folder names a recipe and a hardware profile, its
    variant and strategy exist, and the checkpoint it measured is one the variant serves."""
    report = doc.report()
    recipe = recipes.get(doc.hf_id)
    if recipe is None:
        report.error(
            (),
            f"no recipe models/{doc.hf_id}.yaml for this result's folder benchmarks/{doc.hf_id}/",
            "name the folder after the recipe's Hugging Face id",
        )
        return report.items
    if doc.hardware not in profiles:
        report.error(
            (),
            f"unknown hardware profile '{doc.hardware}' (the folder after benchmarks/{doc.hf_id}/)",
            "`recipes-site hardware` lists the profiles",
        )
    if doc.spec is None:
        return report.items
    variants = recipe.get("variants") if isinstance(recipe.get("variants"), dict) else {}
    prov = doc.spec.provenance
    if prov.variant not in variants:
        report.error(
            ("provenance", "variant"),
            f"the recipe has no variant '{prov.variant}'",
            f"variants: {', '.join(variants) or '(none)'}",
        )
        return report.items
    if prov.strategy is not None and prov.strategy not in strategies:
        report.error(
            ("provenance", "strategy"),
            f"unknown strategy '{prov.strategy}'",
            f"strategies: {', '.join(strategies)}",
        )
    served = served_checkpoint(recipe, prov.variant)
    if doc.spec.result.model_id.lower() != served.lower():
        report.warning(
            ("result", "model_id"),
            f"the result measured '{doc.spec.result.model_id}', but variant '{prov.variant}' "
            f"serves '{served}'",
            "check the variant; a different checkpoint is a different result",
        )
    return report.items


def served_checkpoint(recipe: dict, variant: str) -> str:
    """The checkpoint a variant serves: its own model_id, else the recipe's."""
    spec = (recipe.get("variants") or {}).get(variant) or {}
    return str(spec.get("model_id") or (recipe.get("model") or {}).get("model_id") or "")
