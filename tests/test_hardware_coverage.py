"""Issue 26 point 3, no empty hardware: every hardware profile the bundled site lists offers at
least `MIN_MODELS` models whose command starts within fit.py's budget, on a variant that
profile runs (its `precisions`), and a profile with no such model is not listed at all.

The verdicts are read where a CI pipeline reads them (the built API's per-model hardware
documents) and checked again through `recipes-site fit`'s own path (`fit_report.fit_choice`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recipes_site import plan
from recipes_site.build import build, synthesis_context
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.fit_report import fit_choice
from recipes_site.synthesis.selection import unavailable_reason

MIN_MODELS = 5

# The profiles issue 26 names for the hardware people own: each must be listed, with models.
OWNED_HARDWARE = (
    "a100_80gb",
    "a100_40gb",
    "a100_80gb_pcie",
    "a100_40gb_pcie",
    "h100_pcie",
    "h100_nvl",
    "h20",
    "gh200",
    "l40s",
    "l4",
    "a10g",
    "rtx_3090",
    "rtx_4090",
    "rtx_4090_2x",
    "rtx_5090",
    "rtx_5090_2x",
    "rtx_pro_5000",
    "rtx_pro_5000_4x",
    "rtx_pro_6000_8x",
    "dgx_station_gb300",
    "mi250x",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("coverage") / "_site"
    result = build(PROJECT_ROOT, out)
    assert result.ok, "\n".join(d.format() for d in result.diagnostics)
    return out


@pytest.fixture(scope="module")
def catalog():
    catalog, _ = load_catalog(PROJECT_ROOT)
    return catalog


@pytest.fixture(scope="module")
def starting(site, catalog) -> dict[str, dict[str, dict]]:
    """Profile id -> recipe id -> one rendering of the recipe on that profile whose plan fits and
    whose variant the profile runs (the API's per-model hardware documents)."""
    ctx = synthesis_context(catalog)
    out: dict[str, dict[str, dict]] = {h: {} for h in catalog.hardware_profiles()}
    for path in sorted((site / "api/v1/models").glob("*/*/hw/*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        recipe = catalog.recipe(doc["recipe"])
        assert recipe is not None, path
        variants = recipe.data["variants"]
        hw = ctx.hardware(doc["hardware"])
        for r in doc["renderings"]:
            if (
                r["plan"]["default"].get("verdict") == plan.FITS
                and unavailable_reason(variants[r["variant"]], hw) is None
            ):
                out[doc["hardware"]].setdefault(doc["recipe"], r)
    return out


def advertised(site: Path) -> set[str]:
    return {p.name for p in (site / "hardware").iterdir() if (p / "index.html").is_file()}


def test_every_listed_profile_offers_enough_models_that_start(site, starting):
    short = {
        h: sorted(starting[h]) for h in sorted(advertised(site)) if len(starting[h]) < MIN_MODELS
    }
    assert short == {}, f"listed profiles with fewer than {MIN_MODELS} models that start"


def test_a_profile_with_no_model_that_starts_is_not_listed(site, starting):
    empty = {h for h, models in starting.items() if not models}
    assert empty, "the bundled taxonomy keeps profiles nothing runs on (TPU, CPU, XPU, NPU)"
    assert not empty & advertised(site)


def test_the_hardware_people_own_is_listed(site):
    assert set(OWNED_HARDWARE) - advertised(site) == set()


def test_fit_agrees_that_each_counted_model_starts(catalog, starting):
    """`recipes-site fit ORG/REPO --hardware H --variant V` renders the same choice and plans it
    as fitting, for every model counted on the owned hardware."""
    ctx = synthesis_context(catalog)
    refused = []
    for h in OWNED_HARDWARE:
        for recipe_id, r in sorted(starting[h].items()):
            recipe = catalog.recipe(recipe_id).data
            result = fit_choice(ctx, recipe, r["variant"], h, r["strategy"], r["node_count"])
            if result.plan is None or result.plan.get("verdict") != plan.FITS:
                refused.append((h, recipe_id, r["variant"], result.plan_reason))
    assert refused == []
