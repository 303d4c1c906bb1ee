"""The API document of a model's benchmark results: api/v1/models/<org>/<repo>/benchmarks.json.

Each result keeps its provenance (label, who, where, when, vLLM version, image, exact command)
beside its numbers, and the differences between its command and the site's rendering of the
same choice (benchmark_check.py), so a CI job or a reader can tell what the numbers measure.
"""

from __future__ import annotations

from recipes_site.benchmark_check import compare
from recipes_site.catalog.benchmarks import BenchmarkDoc
from recipes_site.render.inputs import API
from recipes_site.synthesis import Context

# The numbers of a `vllm bench serve` result the site reads and publishes (serve.py: see
# catalog/benchmarks.py); every other key of the result file stays in the recipes root.
METRICS = (
    "max_concurrency",
    "request_rate",
    "num_prompts",
    "completed",
    "duration",
    "request_throughput",
    "output_throughput",
    "total_token_throughput",
    "max_output_tokens_per_s",
    "mean_ttft_ms",
    "median_ttft_ms",
    "p95_ttft_ms",
    "p99_ttft_ms",
    "mean_tpot_ms",
    "median_tpot_ms",
    "p95_tpot_ms",
    "p99_tpot_ms",
    "mean_itl_ms",
    "median_itl_ms",
    "p95_itl_ms",
    "p99_itl_ms",
    "p99_e2el_ms",
    # not a `vllm bench serve` key: the mean GPU power a source measured over the run (W per GPU)
    "avg_power_w",
)


def benchmarks_doc_path(hf_id: str) -> str:
    return f"{API}/models/{hf_id}/benchmarks.json"


def result_entry(ctx: Context, recipe: dict, doc: BenchmarkDoc) -> dict:
    """One result as the API publishes it."""
    assert doc.spec is not None
    prov = doc.spec.provenance.model_dump(exclude_none=True, exclude={"differences"})
    result = doc.spec.result.model_dump()
    found = compare(ctx, recipe, doc)
    return {
        "hardware": doc.hardware,
        "name": doc.name,
        **prov,
        "model_id": doc.spec.result.model_id,
        "metrics": {k: result[k] for k in METRICS if result.get(k) is not None},
        "rendered_command": found.rendered if found else None,
        "differences": list(found.differences) if found else [],
    }


def benchmarks_doc(ctx: Context, hf_id: str, recipe: dict, docs: list[BenchmarkDoc]) -> dict:
    """The model's results, by hardware then concurrency then name (a stable order)."""
    entries = [result_entry(ctx, recipe, d) for d in docs if d.spec is not None]
    entries.sort(key=lambda e: (e["hardware"], e["metrics"].get("max_concurrency") or 0, e["name"]))
    return {"model": hf_id, "results": entries}
