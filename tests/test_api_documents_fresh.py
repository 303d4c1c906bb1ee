"""Issue 13, "faster than the reference": every rendering the hardware documents publish, byte for
byte, equals one computed afresh for that rendering alone: with every memo of picker emptied and a
plan.RecipePlans of its own, outside the synthesis memo that `recipe_documents` keeps open for its
recipe (choices read through it), and with the document tables' indices resolved. A memo whose key
misses something its value depends on (a hardware, a variant, choices kept by identity) makes some
rendering differ here."""

from __future__ import annotations

import json

import pytest
from conftest import COMPAT_CORPUS
from documents_kit import published_renderings

from recipes_site import gpu_counts, plan, speed_layouts
from recipes_site.build import synthesis_context
from recipes_site.catalog import load_catalog
from recipes_site.jsish import mapping
from recipes_site.render import picker
from recipes_site.render.api import RecipeInput
from recipes_site.render.rendering_json import rendering_json
from recipes_site.synthesis.choices import feature_choices


def _forget() -> None:
    picker.clear_memos()
    picker._export_lines.cache_clear()
    picker._HEREDOCS.clear()
    picker._EXTRAS.clear()


def _resolved(shown: dict, hw_doc: dict) -> dict:
    """A published rendering with its parts' table indices replaced by the entries they name."""
    parts = dict(
        shown["parts"],
        extras=hw_doc["extra_sets"][shown["parts"]["extras"]],
        features=hw_doc["feature_sets"][shown["parts"]["features"]],
    )
    return dict(shown, parts=parts)


def _fresh(rec: RecipeInput, ctx, r) -> dict:
    """The published form of rendering `r`, computed for it alone with every memo empty."""
    _forget()
    profile = ctx.profiles.get(r.hardware) or {}
    choices = feature_choices(
        rec.data,
        ctx.hardware(r.hardware),
        r.variant,
        r.feature_strategy,
        with_kv_store=r.kv is not None,
    )
    locked = picker.features_locked(choices, r)
    plans = plan.plan_json(plan.RecipePlans(rec.data), r, profile, choices, locked)
    precision = mapping(mapping(rec.data.get("variants")).get(r.variant)).get("precision")
    shared = picker.SharedParts(rec, ctx, r.hardware)
    splits = [
        picker._split_lines(p.command, p.docker_command, p.lines_before, p.lines_after)
        for p in r.processes
    ]
    parts = picker.rendering_parts(r, shared, plans["default"], locked, splits, 0)
    assert parts["summary"] == picker.summary_line(r, profile, precision, plans["default"])
    parts.update(extras=picker._extras(r), features=picker.feature_set_json(choices))
    fresh = plan.RecipePlans(rec.data)
    layouts = (
        None
        if locked
        else gpu_counts.rendering_layouts(
            fresh, r, profile, gpu_counts.drafts_of(fresh, choices), "replicas" not in plans
        )
    )
    out = {
        **rendering_json(r),
        "parts": parts,
        "plan": plans,
        **({"gpus": layouts} if layouts else {}),
    }
    estimate = speed_layouts.rendering_speed(
        plan.RecipePlans(rec.data), r.variant, profile, plans["default"]
    )
    if estimate is not None:
        out["speed"] = estimate
    return out


def _check_every_rendering(cat, ctx) -> int:
    checked = 0
    for rec, r, shown, hw_doc in published_renderings(cat, ctx):
        # JSON text: key order and types (true / 1 / 1.0) count, as in the built files
        assert json.dumps(_resolved(shown, hw_doc)) == json.dumps(_fresh(rec, ctx, r)), (
            rec.hf_id,
            r.hardware,
            r.key,
        )
        checked += 1
    return checked


def test_every_published_rendering_equals_a_fresh_computation(catalog, ctx):
    assert _check_every_rendering(catalog, ctx) > 500


@pytest.mark.skipif(not COMPAT_CORPUS.is_dir(), reason="compat corpus not available")
def test_every_published_rendering_of_the_compat_corpus_equals_a_fresh_computation():
    cat, _ = load_catalog(COMPAT_CORPUS)
    assert _check_every_rendering(cat, synthesis_context(cat)) > 8000
