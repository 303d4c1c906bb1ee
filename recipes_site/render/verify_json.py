"""The verification and tuning document of one recipe: `api/v1/models/<org>/<repo>/verify.json`.

One document per recipe (not per hardware), fetched by the model page only when a reader opens
the Verify, Bench or Tune panel, so the page itself stays as light as it was. It holds, per
hardware and rendering (keyed `variant|strategy|node_count`, the hardware documents' triple):

    curl          index into `texts`: the request that proves the server answers (verification.py)
    bench         [i, j], indexes into `texts`: the concurrency sweep is texts[j] + "\\n" + texts[i]
                  (the head j names the levels; the loop body i is shared by most renderings);
                  absent when there is none
    levels, bound the sweep's concurrency levels and what bounds the last one ("kv" or
                  "max_num_seqs"), input_len / output_len its request shape
    tune          the tuning table's values and coefficients (tuning.py), when the rendering is
                  one process with KV facts

and, once: `rows` (the table's flags with default, meaning, direction, source and every spelling
vLLM reads), `lines` (per flag key and value, the command line; absent: the flag left out) and
`kv` (the KV entries `tune.k` indexes). `hardware.<hw>.r` is the GPU memory vLLM multiplies by
--gpu-memory-utilization and `m0` the scheduler's default --max-num-batched-tokens there.
"""

from __future__ import annotations

import json

from recipes_site import fit, plan, tuning, verification
from recipes_site.data import VLLM_VERSION
from recipes_site.render.inputs import API, RecipeInput, hw_doc_path

BENCH_LENGTHS = (verification.BENCH_INPUT_LEN, verification.BENCH_OUTPUT_LEN)
# what the page's Verify, Bench and Tune panels say around the snippets
NOTES = {
    "curl": "A request that proves the server answers: ",
    "bench": "The method: the fewest GPUs (this command), as many copies as fill the node (the "
    "throughput plan), then this sweep of one copy up to what its KV cache holds: ",
    "no_bench": "No sweep: this command cannot start here, or the model takes audio, which "
    "vllm bench serve's random dataset does not make.",
    "no_tune": "Tuning applies to a one-process command with KV-cache figures, its features as "
    "rendered.",
    "plan": "The throughput plan is for the command as rendered: Reset the tuning to see it.",
}


def verify_doc_path(hf_id: str) -> str:
    return f"{API}/models/{hf_id}/verify.json"


def rendering_key(variant: str, strategy: str, node_count: int) -> str:
    """The page's key of a rendering (site.js: `variant|strategy|node_count`)."""
    return f"{variant}|{strategy}|{node_count}"


class Stored:
    """Items of one document (strings, value sets), each stored once (`index`)."""

    def __init__(self) -> None:
        self.items: list = []
        self._seen: dict[str, int] = {}

    def index(self, item) -> int:
        key = json.dumps(item, sort_keys=True)
        if key not in self._seen:
            self._seen[key] = len(self.items)
            self.items.append(item)
        return self._seen[key]


def _bench(texts: Stored, bench: str) -> list:
    """[index of the loop body, index of the head]: the head is the comment and the `for` line."""
    comment, loop, body = bench.split("\n", 2)
    return [texts.index(body), texts.index(comment + "\n" + loop)]


def _renderings(rec: RecipeInput) -> dict[str, dict]:
    """Every rendering per hardware, each once (as api.hardware_docs collects them)."""
    out: dict[str, dict] = {}
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            bucket = out.setdefault(res.hardware, {})
            for r in (res.recommended, *res.alternatives):
                bucket.setdefault(r.key, r)
    return out


def verify_doc(rec: RecipeInput, profiles: dict, hw_docs: dict) -> dict:
    """The document, reading each rendering's plan from its hardware document in `hw_docs`."""
    texts, entries, value_sets = Stored(), tuning.Entries(), Stored()
    recipe_plans = plan.RecipePlans(rec.data)
    lines: dict[str, dict] = {row["key"]: {} for row in tuning.ROWS}
    hardware: dict[str, dict] = {}
    for hw, renderings in _renderings(rec).items():
        profile = profiles.get(hw) or {}
        published = {
            (e["variant"], e["strategy"], e["node_count"]): e["plan"]["default"]
            for e in hw_docs[hw_doc_path(rec.hf_id, hw)]["renderings"]
        }
        out: dict[str, dict] = {}
        for key, r in renderings.items():
            p = published[key]
            v = verification.verification(rec.data, r, profile, p)
            entry: dict = {"curl": texts.index(v["curl"])}
            if v["bench"]:
                entry.update(bench=_bench(texts, v["bench"]), levels=v["levels"])
                if v["bound"] != "kv":
                    entry["bound"] = v["bound"]
                if (v["input_len"], v["output_len"]) != BENCH_LENGTHS:
                    entry.update(input_len=v["input_len"], output_len=v["output_len"])
            tune = tuning.tuning(recipe_plans, r, profile, entries) if plan.holds(p) else None
            if tune is not None:
                for k, vs in tune["v"].items():
                    for value in vs:
                        text = tuning.line(k, value)
                        if text is not None:
                            lines[k][str(value)] = text
                entry["tune"] = {"v": value_sets.index(tune.pop("v")), **tune}
            out[rendering_key(*key)] = entry
        gpu = fit.gpu_memory(profile)
        hardware[hw] = {
            "r": gpu.total_gib,
            "m0": fit.scheduler_defaults(gpu)[0],
            "renderings": out,
        }
    return {
        "recipe": rec.hf_id,
        "vllm_version": VLLM_VERSION,
        "notes": NOTES,
        "rows": [{**row, "names": tuning.spellings(row["flag"])} for row in tuning.ROWS],
        "lines": lines,
        "input_len": BENCH_LENGTHS[0],
        "output_len": BENCH_LENGTHS[1],
        "values": value_sets.items,
        "texts": texts.items,
        "kv": entries.items,
        "hardware": {hw: hardware[hw] for hw in profiles if hw in hardware},
    }
