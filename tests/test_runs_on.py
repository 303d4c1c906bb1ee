"""Where a model runs (runs_on.py, render/runs_on_view.py): the comfortable-fit rule, the hardware
a variant opens on, the smallest layout per profile and the model page's "Runs on" rows."""

from __future__ import annotations

import copy
import json

import pytest
from cli_kit import run

from recipes_site import fit, plan, runs_on
from recipes_site.build import synthesized
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.render.api import RecipeInput, hardware_docs, recipe_documents
from recipes_site.render.inputs import hw_doc_path, model_doc_path
from recipes_site.render.picker import picker_summary
from recipes_site.render.runs_on_view import (
    layout_words,
    published_speed,
    room_words,
    runs_on_rows,
    unavailable_group,
)
from recipes_site.render.search import runs_on_cell
from recipes_site.site_config import (
    REFERENCE_DEFAULT,
    SMALLEST_FIT,
    SiteConfig,
    load_site_config,
    site_config,
)
from recipes_site.synthesis import synthesize_recipe

SMALLEST = SiteConfig(default_hardware=SMALLEST_FIT)
REFERENCE = SiteConfig()


def _plan(**kw) -> dict:
    return {"gpus": 1, "verdict": "fits", "context_length": 40960, "concurrency": 2, **kw}


# -- the rule ------------------------------------------------------------------------------------


def test_comfortable_means_the_full_context_twice_over():
    assert runs_on.comfortable(_plan(), 40960)
    assert not runs_on.comfortable(_plan(concurrency=1), 40960)  # no headroom
    assert not runs_on.comfortable(_plan(context_length=16384, concurrency=9), 40960)  # cut
    assert not runs_on.comfortable(_plan(verdict="short"), 40960)
    assert not runs_on.comfortable(_plan(verdict=None), 40960)  # unknown weights: no promise
    assert runs_on.comfortable(_plan(context_length=8192), None)  # no full length known


def test_memory_is_gpus_times_what_each_reports():
    profile = {"memory_total_gib": 79.11, "vram_per_gpu_gb": 80}
    assert runs_on.memory_gib(_plan(gpus=4), profile) == pytest.approx(
        4 * fit.gpu_memory(profile).total_gib
    )


def _synth(catalog, ctx, hf_id: str, config: SiteConfig) -> RecipeInput:
    doc = next(d for d in catalog.recipes if d.hf_id == hf_id)
    return synthesized(catalog, ctx, doc, config)


def test_qwen3_8b_opens_on_a_single_32_gb_card(catalog, ctx):
    rec = _synth(catalog, ctx, "Qwen/Qwen3-8B", SMALLEST)
    tree = rec.rendered.trees[0]
    chosen = tree.default_hardware
    profile = ctx.profiles[chosen]
    assert chosen != "h200"
    assert tree.by_hardware[0].hardware == chosen  # synthesis's order: the default first
    p = plan.rendering_plan(plan.RecipePlans(rec.data), tree.by_hardware[0].recommended, profile)
    assert p["gpus"] == 1 and fit.gpu_memory(profile).total_gib <= 32
    assert runs_on.comfortable(p, fit.model_facts(rec.data, "default").context_length)


def test_the_opening_profile_is_the_smallest_comfortable_one(catalog, ctx):
    """Of the first brand (NVIDIA, AMD, others) with a comfortable fit, the least GPU memory."""
    for hf_id in (
        "Qwen/Qwen3-8B",
        "meta-llama/Llama-3.1-8B-Instruct",
        "meta-llama/Llama-3.3-70B-Instruct",
        "moonshotai/Kimi-K2.6",
    ):
        rec = _synth(catalog, ctx, hf_id, SMALLEST)
        plans = plan.RecipePlans(rec.data)
        for tree in rec.rendered.trees:
            full = fit.model_facts(rec.data, tree.variant).context_length
            sizes = {}
            for res in tree.by_hardware:
                if res.recommended.variant != tree.variant:
                    continue
                profile = ctx.profiles[res.hardware]
                p = plan.rendering_plan(plans, res.recommended, profile)
                if runs_on.comfortable(p, full):
                    brand = runs_on.BRAND_ORDER.get(profile.get("brand"), 9)
                    sizes[res.hardware] = (brand, runs_on.memory_gib(p, profile))
            if sizes:
                assert tree.default_hardware in sizes, (hf_id, tree.variant)
                assert sizes[tree.default_hardware] == min(sizes.values()), (hf_id, tree.variant)


def test_meta_default_hardware_always_wins(catalog, ctx):
    doc = next(d for d in catalog.recipes if d.hf_id == "Qwen/Qwen3-8B")
    data = copy.deepcopy(doc.data)
    data["meta"]["default_hardware"] = "h200"
    rendered = synthesize_recipe(ctx, doc.hf_id, data, catalog.index.ids)
    chosen = runs_on.with_opening_hardware(rendered, data, ctx.profiles)
    assert chosen.trees[0].default_hardware == "h200"


def test_without_the_setting_the_reference_rule_stays(catalog, ctx):
    assert _synth(catalog, ctx, "Qwen/Qwen3-8B", REFERENCE).rendered.trees[0].default_hardware == (
        "h200"
    )


def test_the_bundled_site_turns_the_setting_on_and_others_keep_the_reference(tmp_path):
    assert site_config(PROJECT_ROOT).default_hardware == SMALLEST_FIT
    assert site_config(tmp_path).default_hardware == REFERENCE_DEFAULT  # no recipes-site.yaml
    (tmp_path / "recipes-site.yaml").write_text("default_hardware: smalest_fit\n")
    config, diags = load_site_config(tmp_path)
    assert config.default_hardware == REFERENCE_DEFAULT
    assert [d.key_path for d in diags] == ["default_hardware"]


def test_the_api_default_hardware_follows(catalog, ctx):
    rec = _synth(catalog, ctx, "Qwen/Qwen3-8B", SMALLEST)
    docs, summary = recipe_documents(rec, ctx)
    model = docs[model_doc_path(rec.hf_id)]
    assert model["default_hardware"] == {t.variant: t.default_hardware for t in rec.rendered.trees}
    best = summary.model_entry["smallest_fit"]
    assert best["gpus"] == 1 and best["comfortable"] and best["hardware"] in ctx.profiles


# -- the rows --------------------------------------------------------------------------------------


def _docs_of(catalog, ctx, hf_id: str):
    rec = _synth(catalog, ctx, hf_id, SMALLEST)
    docs = hardware_docs(rec, ctx)
    hw_docs = {
        h: docs[hw_doc_path(rec.hf_id, h)]
        for h in ctx.profiles
        if hw_doc_path(rec.hf_id, h) in docs
    }
    summary = picker_summary(rec, ctx, hw_docs[rec.rendered.trees[0].default_hardware])
    return rec, hw_docs, summary


@pytest.fixture(scope="module")
def kimi(catalog, ctx):
    return _docs_of(catalog, ctx, "moonshotai/Kimi-K2.6")


@pytest.fixture(scope="module")
def llama(catalog, ctx):
    return _docs_of(catalog, ctx, "meta-llama/Llama-3.3-70B-Instruct")


def _fewest_gpus(doc: dict) -> int | None:
    """The fewest GPUs any rendering of a hardware document, or any of its GPU counts, fits on."""
    found = []
    for r in doc["renderings"]:
        if runs_on.fits(r["plan"]["default"]):
            found.append(r["plan"]["default"]["gpus"])
        for c in ((r.get("gpus") or {}).get("counts") or {}).values():
            if c["fits"]:
                found.append(c["tensor_parallel_size"])
    return min(found, default=None)


def test_each_profile_gets_its_smallest_fitting_layout(kimi, llama):
    for rec, hw_docs, _summary in (kimi, llama):
        layouts = runs_on.smallest_layouts(hw_docs, rec.data)
        assert list(layouts) == list(hw_docs)
        for h, x in layouts.items():
            want = _fewest_gpus(hw_docs[h])
            assert (x and x.plan["gpus"]) == want, (rec.hf_id, h)


def test_a_gpu_count_that_takes_fewer_gpus_is_the_smallest_layout(llama):
    rec, hw_docs, summary = llama
    layouts = runs_on.smallest_layouts(hw_docs, rec.data)
    rows = {r.hardware: r for r in runs_on_rows(summary, hw_docs, rec.data)}
    counted = {h: x for h, x in layouts.items() if x is not None and x.gpus_choice is not None}
    assert counted  # e.g. FP8 on one H100 of eight (the rendering takes the node)
    for h, x in counted.items():
        key = (x.variant, x.strategy, x.node_count)
        r = next(
            r
            for r in hw_docs[h]["renderings"]
            if (r["variant"], r["strategy"], r["node_count"]) == key
        )
        p = r["plan"]["default"]
        assert p["gpus"] > x.plan["gpus"] or not runs_on.fits(p)
        assert f"gpus={x.gpus_choice}" in rows[h].href


def test_rows_link_each_layout_to_the_picker(kimi):
    rec, hw_docs, summary = kimi
    rows = runs_on_rows(summary, hw_docs, rec.data)
    assert [r.hardware for r in rows] == list(hw_docs)
    fitting = [r for r in rows if r.href]
    assert fitting
    for row in fitting:
        assert row.href.startswith(f"/{rec.hf_id}/?hardware={row.hardware}")
        assert row.layout.split(" GPU")[0].isdigit() and "TP " in row.layout
        assert row.tokens_per_s is None  # no estimate supplied: the page leaves the column out
    for row in rows:
        if not row.href:
            assert row.layout  # why nothing fits, in words


def test_the_speed_slot_takes_a_supplied_estimate(kimi):
    rec, hw_docs, summary = kimi
    seen = []

    def speed(hw_doc, rendering):
        seen.append((hw_doc["hardware"], rendering["variant"]))
        return "12–15"

    rows = runs_on_rows(summary, hw_docs, rec.data, speed=speed)
    assert {r.tokens_per_s for r in rows if r.href} == {"12–15"}
    assert len(seen) == sum(1 for r in rows if r.href)


def test_words_of_a_layout():
    assert layout_words({"gpus": 16, "nodes": 2, "tp": 8, "pp": 2}) == (
        "16 GPUs · TP 8 × PP 2 · 2 nodes"
    )
    assert layout_words({"gpus": 1}) == "1 GPU · TP 1"
    assert room_words(_plan(concurrency=9), 40960) == "9"
    assert room_words({"context_length": 40960}, 40960) == "≥ 1"  # a GPU count's layout
    assert room_words(_plan(context_length=8192, concurrency=3), 40960) == "0 (up to 8,192 tokens)"


def test_profiles_that_cannot_run_the_model_are_grouped_by_reason():
    summary = {
        "default": {"variant": "default"},
        "variants": {"default": {"hardware": ["h100"]}, "fp8": {"hardware": ["h100", "l4"]}},
        "hardware": {
            h: {"label": label}
            for h, label in (
                ("h100", "H100"),
                ("l4", "L4"),
                ("tpu", "TPU v5e"),
                ("x6", "Xeon 6"),
                ("a", "A10G"),
            )
        },
    }
    reasons = {
        "default": {
            "l4": "No serving layout of this variant fits L4",
            "tpu": "TPU v5e is opt-in and this recipe does not list it",
            "x6": "Xeon 6 is opt-in and this recipe does not list it",
            "a": "No serving layout of this variant fits A10G",
        }
    }
    groups = unavailable_group(summary, reasons)
    # l4 runs the fp8 variant: it stays a pill (dimmed for the default variant)
    assert [(g.labels, g.reason) for g in groups] == [
        (["TPU v5e", "Xeon 6"], "each is opt-in and this recipe does not list it"),
        (["A10G"], "No serving layout of this variant fits A10G"),
    ]


def test_the_home_page_cell_names_the_smallest_hardware():
    labels = {"h100": "H100", "rtx_5090": "RTX 5090"}
    entry = {
        "hardware": ["h100", "rtx_5090"],
        "smallest_fit": {
            "hardware": "rtx_5090",
            "gpus": 1,
            "variant": "default",
            "precision": "bf16",
        },
    }
    assert runs_on_cell(entry, labels) == ["1× RTX 5090", "BF16 · +1 more"]
    assert runs_on_cell({"hardware": ["h100"]}, labels) == ["H100", ""]  # nothing fits
    assert runs_on_cell({"hardware": [], "tasks": ["omni"]}, labels) == ["vLLM-Omni", ""]


def test_command_and_fit_without_hardware_answer_for_the_page_default(catalog, ctx):
    want = _synth(catalog, ctx, "Qwen/Qwen3-8B", SMALLEST).rendered.trees[0].default_hardware
    r = run("command", "Qwen/Qwen3-8B", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hardware"] == want
    f = run("fit", "Qwen/Qwen3-8B", "--json")
    assert f.returncode == 0, f.stderr
    assert json.loads(f.stdout)["hardware"] == want


def test_the_page_words_a_published_estimate_and_nothing_without_one():
    speed = {"c": [1, 8], "user": [38.4, 52.1, 20.0, 30.0], "total": [38.4, 52.1, 160, 240]}
    assert published_speed({}, {"speed": speed}) == "38–52"
    assert published_speed({}, {"speed": {"c": [1], "user": [4.25, 6.0]}}) == "4.2–6.0"
    assert published_speed({}, {}) is None
    assert published_speed({}, {"speed": {"c": [8], "user": [1, 2]}}) is None
