"""A hardware page's spec table: each fact of the profile (taxonomy.yaml) with its source.

The taxonomy cites every fact in the profile's `sources` (fact -> datasheet words and URL, or a
`vllm/<path>:<line>` of the vLLM release); the memory the driver reports cites `memory_source`.
A row links the first URL of its source; a fact the profile leaves out has no row.
"""

from __future__ import annotations

import re

URL = re.compile(r"https?://[^\s'\")]+[^\s'\").,;:]")
TFLOPS_LABELS = {"bf16": "BF16", "fp8": "FP8", "fp4": "FP4", "int8": "INT8 (TOPS)"}


def source_link(text: str | None) -> str | None:
    """The first URL of a source text."""
    found = URL.search(text or "")
    return found.group(0) if found else None


def _row(label: str, value: str, source: str | None) -> dict:
    return {"label": label, "value": value, "source": source or "", "href": source_link(source)}


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,}"


def spec_rows(profile: dict) -> list[dict]:
    """The spec table of one profile: [{label, value, source, href}], in a fixed order."""
    sources = profile.get("sources") or {}
    rows = []
    reported, total = profile.get("memory_reported_mib"), profile.get("memory_total_gib")
    if reported or total:
        parts = [f"{_num(reported)} MiB (nvidia-smi)"] if reported else []
        parts += [f"{_num(total)} GiB (vLLM)"] if total else []
        rows.append(
            _row(
                "Memory the driver reports, per GPU",
                " · ".join(parts),
                profile.get("memory_source"),
            )
        )
    if profile.get("memory_bandwidth_gbps"):
        rows.append(
            _row(
                "Memory bandwidth, per GPU",
                f"{_num(profile['memory_bandwidth_gbps'])} GB/s",
                sources.get("memory_bandwidth_gbps"),
            )
        )
    tflops = profile.get("tflops") or {}
    if tflops:
        value = " · ".join(
            f"{TFLOPS_LABELS.get(k, k)} {_num(v)}" for k, v in tflops.items() if v is not None
        )
        rows.append(_row("Dense TFLOPS, per GPU", value, sources.get("tflops")))
    link = profile.get("interconnect") or {}
    if link.get("kind"):
        speed = f", {_num(link['gbps'])} GB/s per GPU" if link.get("gbps") else ""
        rows.append(_row("Interconnect", f"{link['kind']}{speed}", sources.get("interconnect")))
    precisions = profile.get("precisions") or {}
    if precisions:
        value = f"native: {', '.join(precisions.get('native') or []) or 'none'}"
        if precisions.get("weight_only"):
            value += f" · weight-only: {', '.join(precisions['weight_only'])}"
        rows.append(_row("Weight formats vLLM runs", value, sources.get("precisions")))
    if profile.get("power_watts"):
        rows.append(
            _row(
                "Board power, per GPU",
                f"{_num(profile['power_watts'])} W",
                sources.get("power_watts"),
            )
        )
    return rows
