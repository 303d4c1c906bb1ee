"""The whole catalog on the seed hardware: every recipe, every variant, every seed profile.

For each cell (recipe, variant, hardware) one of two things must hold:

* the recipe renders its recommended command there, and that command fits: `fit.py`, fed the
  rendered command's own TP / PP / DP, `--max-model-len`, `--kv-cache-dtype` and
  `--gpu-memory-utilization`, finds room for the weights, the overhead and a KV cache that holds
  at least one request of the rendered `--max-model-len` (else of the recipe's context);
* or the catalog states why the variant is not offered there: the precision's hardware
  constraint (NVFP4 needs Blackwell, `precision_hardware`), `meta.hardware: unsupported`, or the
  variant's `supported_hardware` allow-list, and `render_choice` refuses with a ChoiceError.

Every variant is checked, not only the variant trees the site renders (the default and each
variant serving its own checkpoint), so variants that merely change flags are covered too. A
refusal without such a reason, or a command whose memory does not add up, is a gap and fails
with the recipe, variant and hardware named. Each recipe must also carry `model.hf_config`, and
the parameter count computed from it (`scaffold.parameter_count`) must agree with the declared
`parameter_count` within 5%.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest

from recipes_site import fit, sizing
from recipes_site.build import synthesis_context
from recipes_site.catalog import PROJECT_ROOT, lint, load_catalog
from recipes_site.catalog.yaml import load_yaml_text
from recipes_site.scaffold import parameter_count
from recipes_site.synthesis import ChoiceError, render_choice
from recipes_site.synthesis.selection import meets_constraint, precision_constraint

SEED_HARDWARE = ("h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x")
PARAMETER_TOLERANCE = 0.05

CATALOG, _DIAGNOSTICS = load_catalog(PROJECT_ROOT)
RECIPES = {doc.hf_id: doc.data for doc in CATALOG.recipes}
CTX = synthesis_context(CATALOG)


def stated_reason(recipe: dict, variant_key: str, hw_id: str) -> str | None:
    """Why the catalog itself says this variant does not run on `hw_id` (None: it says nothing)."""
    declared = (recipe.get("meta") or {}).get("hardware") or {}
    if declared.get(hw_id) == "unsupported":
        return f"meta.hardware marks {hw_id} unsupported"
    variant = (recipe.get("variants") or {}).get(variant_key) or {}
    hw = CTX.hardware(hw_id)
    constraint = precision_constraint(variant)
    if not meets_constraint(constraint, hw):
        wanted = " ".join(
            str(v) for v in (constraint.get("brand"), constraint.get("generation")) if v
        )
        return f"{variant.get('precision')} weights need {wanted} hardware"
    allow = variant.get("supported_hardware")
    if allow and hw_id not in allow:
        return f"supported_hardware lists only {', '.join(allow)}"
    return None


def fit_problem(recipe: dict, variant_key: str, hw_id: str) -> str | None:
    """None when the recommended command fits on `hw_id` or the catalog says why it cannot run
    there; otherwise what is wrong."""
    try:
        rendering = render_choice(CTX, recipe, variant_key, hw_id)
    except ChoiceError as exc:
        if stated_reason(recipe, variant_key, hw_id):
            return None
        return f"refused without a reason in the recipe: {exc}"
    if stated_reason(recipe, variant_key, hw_id):
        return f"rendered although the recipe says: {stated_reason(recipe, variant_key, hw_id)}"
    process = rendering.decode.process if rendering.decode is not None else rendering.main_process
    if process is None:
        return f"{rendering.strategy} rendering has no serve process"
    shape = fit.shape_from_argv(process.argv)
    wanted = shape.max_model_len or fit.context_length(recipe)
    if not wanted:
        return "neither --max-model-len nor a context length to check"
    profile = CTX.profiles[rendering.hardware]
    result = fit.fit_deployment(
        recipe, rendering.variant, rendering.hardware, profile, shape, evaluate_len=wanted
    )
    where = (
        f"{rendering.strategy} x{rendering.node_count} TP {shape.tp}"
        + (f" PP {shape.pp}" if shape.pp > 1 else "")
        + (f" DP {shape.dp}" if shape.dp > 1 else "")
    )
    if result.kv_bytes_per_token is None:
        return f"{where}: KV cache not computable ({'; '.join(result.missing_facts) or 'no hf_config'})"
    if not result.kv_cache_gib_per_gpu or result.kv_cache_gib_per_gpu <= 0:
        return (
            f"{where}: weights {result.weights_gib_per_gpu:.1f} GiB + overhead {result.overhead.total_gib:.1f} GiB "
            f"exceed the {result.budget_gib_per_gpu:.1f} GiB budget per GPU"
        )
    if (result.max_model_len or 0) < wanted:
        return (
            f"{where}: one {wanted:,}-token request does not fit in {result.kv_cache_gib_per_gpu:.1f} GiB "
            f"of KV cache per GPU (longest {result.max_model_len:,})"
        )
    return None


def test_catalog_loads_cleanly():
    assert CATALOG.recipes
    assert [d.format() for d in _DIAGNOSTICS if d.level.name == "ERROR"] == []


@pytest.mark.parametrize("hf_id", sorted(RECIPES))
def test_every_variant_fits_or_says_why_on_the_seed_hardware(hf_id):
    recipe = RECIPES[hf_id]
    gaps = []
    for variant_key in recipe.get("variants") or {}:
        for hw_id in SEED_HARDWARE:
            problem = fit_problem(recipe, variant_key, hw_id)
            if problem:
                gaps.append(f"{hf_id} · variant {variant_key} · {hw_id}: {problem}")
    assert gaps == [], "\n".join(gaps)


def unsourced_verified_claims(doc, text: str | None = None) -> list[str]:
    """The library's rule (lint.check_verified_source, run by `recipes-site validate`): `verified`
    entries of meta.hardware need a comment right above `hardware:` naming who ran them."""
    if text is not None:
        loaded = load_yaml_text(text, doc.display_path)
        doc = dataclasses.replace(
            doc, data=loaded.data, positions=loaded.positions, key_positions=loaded.key_positions
        )
    return [
        f"{doc.hf_id}: {d.message}"
        for d in lint.check_verified_source(lint.subject(doc, text=text))
    ]


def test_verified_hardware_names_its_source():
    problems = [p for doc in CATALOG.recipes for p in unsourced_verified_claims(doc)]
    assert problems == [], "\n".join(problems)


def test_the_source_check_has_teeth():
    doc = next(d for d in CATALOG.recipes if d.hf_id == "meta-llama/Llama-3.1-8B-Instruct")
    text = doc.path.read_text(encoding="utf-8")
    assert unsourced_verified_claims(doc, text) == []
    uncommented = "\n".join(l for l in text.splitlines() if not l.startswith("  #"))
    assert unsourced_verified_claims(doc, uncommented)


def test_hf_config_present():
    missing = [
        hf_id
        for hf_id, r in sorted(RECIPES.items())
        if not isinstance((r.get("model") or {}).get("hf_config"), dict)
        or not r["model"]["hf_config"]
    ]
    assert missing == [], f"recipes without model.hf_config: {', '.join(missing)}"


@pytest.mark.parametrize("hf_id", sorted(RECIPES))
def test_parameter_count_agrees_with_hf_config(hf_id):
    model = RECIPES[hf_id].get("model") or {}
    cfg = model.get("hf_config")
    assert isinstance(cfg, dict) and cfg, f"{hf_id}: model.hf_config missing"
    declared = sizing.parse_parameter_count(model.get("parameter_count"))
    assert declared, f"{hf_id}: parameter_count {model.get('parameter_count')!r} is not a count"
    computed = parameter_count(cfg).total / 1e9
    gap = abs(computed - declared) / declared
    assert gap <= PARAMETER_TOLERANCE, (
        f"{hf_id}: hf_config gives {computed:.2f}B parameters, the recipe declares "
        f"{model.get('parameter_count')} ({gap:.1%} apart, tolerance {PARAMETER_TOLERANCE:.0%})"
    )


def test_the_matrix_is_not_empty():
    """Guard against a vacuous pass: most cells must render a command that fits."""
    rendered = 0
    for recipe in RECIPES.values():
        for variant_key in recipe.get("variants") or {}:
            for hw_id in SEED_HARDWARE:
                try:
                    render_choice(CTX, recipe, variant_key, hw_id)
                    rendered += 1
                except ChoiceError:
                    pass
    assert rendered >= len(RECIPES) * len(SEED_HARDWARE) // 2


def test_the_check_has_teeth():
    """A command whose weights overflow the GPU is reported; a precision constraint is a reason."""
    llama = copy.deepcopy(RECIPES["meta-llama/Llama-3.3-70B-Instruct"])
    llama["variants"]["default"]["tp"] = 1  # 168 GB of BF16 on one 80 GB H100
    problem = fit_problem(llama, "default", "h100")
    assert problem and "exceed" in problem and "TP 1" in problem
    llama["variants"]["nvfp4"] = {
        "precision": "nvfp4",
        "vram_minimum_gb": 42,
        "description": "test",
        "model_id": "example/Llama-3.3-70B-NVFP4",
    }
    assert stated_reason(llama, "nvfp4", "h100") == "nvfp4 weights need NVIDIA blackwell hardware"
    assert fit_problem(llama, "nvfp4", "h100") is None
    assert fit_problem(llama, "nvfp4", "b200") is None
