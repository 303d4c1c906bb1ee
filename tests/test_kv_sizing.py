"""Issue 5, items 4 and 5 as published: the API's `kv_sizing` (the fit of every rendering and the
throughput plan per variant and hardware), the page formulas behind the sizing panel, the model
page's KV panel and plan, and the TP sizes the engine refuses for recipes with `model.hf_config`.

The documents themselves are schema-checked by tests/test_api_schemas.py; the page's JavaScript
transcription of the formulas is checked in Chromium by tests/browser/test_browser_sizing.py."""

from __future__ import annotations

import copy
import json
import re
from html import unescape

import pytest

from recipes_site import fit, fit_report
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.render.api import RecipeInput, model_doc, recipe_documents
from recipes_site.render.pages import (
    default_choice,
    kv_view,
    plan_of,
    plan_view,
    process_text,
    tree_renderings,
)
from recipes_site.render.schemas import schema_for
from recipes_site.synthesis import ChoiceError, render_choice, synthesize_recipe

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
R1 = "deepseek-ai/DeepSeek-R1-0528"
GEMMA = "google/gemma-3-27b-it"
GPT_OSS = "openai/gpt-oss-120b"
QWEN_MOE = "Qwen/Qwen3-30B-A3B"
OURS = (LLAMA, R1, GEMMA, GPT_OSS, QWEN_MOE)


@pytest.fixture(scope="module")
def inputs(catalog, ctx, recipes):
    standalone = set(recipes)
    return {
        hf: RecipeInput(hf, recipes[hf], synthesize_recipe(ctx, hf, recipes[hf], standalone))
        for hf in OURS
    }


@pytest.fixture(scope="module")
def docs(ctx, inputs):
    return {hf: model_doc(rec, ctx.profiles, ctx) for hf, rec in inputs.items()}


def _renderings(rec: RecipeInput):
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            for r in (res.recommended,) + res.alternatives:
                yield tree.variant, r


def _entry(doc, variant, hw, strategy, nodes=1):
    return next(
        e
        for e in doc["kv_sizing"][variant][hw]["deployments"]
        if e["strategy"] == strategy and e["node_count"] == nodes
    )


# -- the API member -------------------------------------------------------------------------------------------


def test_llama_on_h100_as_published(docs):
    doc = docs[LLAMA]
    e = _entry(doc, "default", "h100", "single_node_tp")
    assert (e["tp"], e["dp"], e["kv_cache_dtype"], e["gpu_memory_utilization"]) == (
        8,
        1,
        "auto",
        0.92,
    )
    assert (e["vram_gib_per_gpu"], e["memory_total_gib_per_gpu"]) == (80.0, 79.11)
    assert e["budget_gib_per_gpu"] == pytest.approx(79.11 * 0.92, abs=1e-3)  # vLLM's default 0.92
    assert e["weights_gib_per_gpu"] == pytest.approx(
        70_553_706_496 * 2 / 2**30 / 8, abs=1e-3
    )  # 70.55B BF16 parameters counted from hf_config (above 168 GB / 1.2), over TP 8
    assert e["overhead_gib_per_gpu"] == e["overhead_breakdown"]["total_gib"]
    assert e["kv_cache_gib_per_gpu"] == pytest.approx(
        e["budget_gib_per_gpu"] - e["weights_gib_per_gpu"] - e["overhead_gib_per_gpu"], abs=2e-3
    )
    assert e["kv_bytes_per_token"] == 327_680 and e["kv_bytes_per_token_per_gpu"] == 40_960
    assert e["kv_bytes_per_sequence_window"] == 0 and e["windows_per_gpu"] == []
    assert e["max_tokens"] == e["kv_cache_bytes_per_gpu"] // (16 * 40_960) * 16  # whole blocks
    assert (e["context_length"], e["max_model_len"], e["context_fits"], e["max_concurrency"]) == (
        131_072,
        131_072,
        True,
        10,
    )
    assert set(doc["kv_sizing"]["default"]["h100"]) == {
        "deployments"
    }  # plans ride in the hardware documents


def test_every_entry_is_the_fit_of_its_rendering(ctx, recipes, inputs, docs):
    """Each deployment entry is `fit_deployment` of the rendered command; the recommended ones agree
    with `recipes-site fit` (fit_choice) on every figure the page reads."""
    checked = 0
    for hf, rec in inputs.items():
        for variant, r in _renderings(rec):
            e = _entry(docs[hf], variant, r.hardware, r.strategy, r.node_count)
            assert e == fit.panel_entry(fit.rendering_fit(recipes[hf], r, ctx.profiles[r.hardware]))
            assert (e["variant"], e["tp"]) == (
                r.variant,
                fit.shape_from_argv(fit.memory_process(r).argv).tp,
            )
            checked += 1
        for tree in rec.rendered.trees:
            for res in tree.by_hardware:
                r = res.recommended
                if r.deploy_type == "pd_cluster":
                    continue
                e = _entry(docs[hf], tree.variant, r.hardware, r.strategy, r.node_count)
                want = fit_report.fit_choice(
                    ctx,
                    recipes[hf],
                    r.variant,
                    r.hardware,
                    r.strategy,
                    r.node_count,
                    with_plan=False,
                )
                got = want.as_dict()
                for key in (
                    "tp",
                    "dp",
                    "kv_bytes_per_token",
                    "kv_bytes_per_token_per_gpu",
                    "weights_gib_per_gpu",
                    "kv_cache_gib_per_gpu",
                    "max_tokens",
                    "max_model_len",
                    "safe_max_model_len",
                    "context_fits",
                    "max_concurrency",
                ):
                    assert e[key] == got[key], (hf, tree.variant, r.hardware, key)
    assert checked > 100


def test_windowed_and_mla_entries(docs):
    gemma = _entry(docs[GEMMA], "default", "h200", "single_node_tp")
    assert gemma["kv_bytes_per_token"] == 81_920 and gemma["prefill_chunk"] == 8192
    # 52 sliding layers fill 6 groups of 10 (kv_cache_planning.py:521-542); h200 in flight: 2 x 8,192
    gemma_page = 16 * 2 * 16 * 128 * 2
    assert gemma["windows_per_gpu"] == [
        {
            "window": 1024,
            "tokens": 1023 + 2 * 8192,
            "block_size": 16,
            "block_bytes": 60 * gemma_page,
            "extra_blocks": 1,
            "bytes_per_token": 60 * 2 * 16 * 128 * 2,
        }
    ]
    oss = _entry(docs[GPT_OSS], "default", "h200", "single_node_tp")
    assert oss["kv_bytes_per_token"] == 36_864
    assert oss["windows_per_gpu"] == [
        {
            "window": 128,
            "tokens": 127 + 2 * 8192,
            "block_size": 16,
            "block_bytes": 18 * 16 * 2 * 8 * 64 * 2,
            "extra_blocks": 1,
            "bytes_per_token": 18 * 2 * 8 * 64 * 2,
        }
    ]
    mla = _entry(docs[R1], "default", "h200", "single_node_tp")
    assert (
        mla["kv_bytes_per_token"] == 70_272 and mla["kv_bytes_per_token_per_gpu"] == 70_272
    )  # replicated per rank


def test_the_model_schema_covers_kv_sizing(docs):
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema_for("model"))
    for doc in docs.values():
        assert list(validator.iter_errors(doc)) == []
    bad = copy.deepcopy(docs[LLAMA])
    bad["kv_sizing"]["default"]["h100"]["deployments"][0]["tp"] = "8"
    assert list(validator.iter_errors(bad))


def test_recipes_without_hf_config_keep_their_documents(ctx, recipes):
    plain = copy.deepcopy(recipes[LLAMA])
    del plain["model"]["hf_config"]
    rec = RecipeInput(LLAMA, plain, synthesize_recipe(ctx, LLAMA, plain, set(recipes)))
    documents, _ = recipe_documents(rec, ctx)
    doc = documents[f"api/v1/models/{LLAMA}.json"]
    assert "kv_sizing" not in doc
    assert set(doc) == {
        "id",
        "recipe",
        "install",
        "default_hardware",
        "checkpoints",
        "hardware",
        "sizing",
        "unavailable_hardware",  # from the taxonomy's precisions, not from hf_config
    }
    assert fit.kv_sizing(ctx, plain, rec.rendered) is None


# -- the page formulas ------------------------------------------------------------------------------------------

CASES = [
    (LLAMA, "default", "h100", "single_node_tp", 1),
    (LLAMA, "fp8", "h200", "single_node_tp", 1),
    (GEMMA, "default", "h100", "single_node_tp", 1),
    (GPT_OSS, "default", "h200", "single_node_tp", 1),
    (R1, "default", "h200", "single_node_dep", 1),
    (R1, "default", "h100", "multi_node_tp", 2),
    (QWEN_MOE, "default", "h200", "single_node_tp", 1),
]


@pytest.mark.parametrize("hf,variant,hw,strategy,nodes", CASES)
def test_page_formulas_agree_with_fit_deployment(
    ctx, recipes, docs, hf, variant, hw, strategy, nodes
):
    r = render_choice(ctx, recipes[hf], variant, hw, strategy, nodes if nodes > 1 else None)
    e = _entry(docs[hf], variant, hw, strategy, nodes)
    shape = fit.shape_from_argv(fit.memory_process(r).argv)
    cap = e["context_length"]
    for length in (1, 127, 128 + 8192, 1000, 4096, 32_768, cap // 3, cap):
        for concurrency in (1, 2, 3, 16, 250, 4096):
            want = fit.fit_deployment(
                recipes[hf],
                r.variant,
                hw,
                ctx.profiles[hw],
                shape,
                evaluate_len=length,
                concurrency=concurrency,
            )
            got = fit.panel_figures(e, length, concurrency)
            assert (got["requests"], got["longest"]) == (
                want.max_concurrency,
                want.max_model_len_at_concurrency,
            ), (length, concurrency)
            assert got["fits"] == (got["requests"] >= concurrency)


# -- the model page ------------------------------------------------------------------------------------------


def _page(site, hf):
    return (site / hf / "index.html").read_text()


def _section(text: str, attr: str) -> str:
    m = re.search(rf"<[a-z0-9]+[^>]*\b{attr}\b[^>]*>(.*?)</(p|dl|ul|div)>", text, re.S)
    return m.group(1) if m else ""


def test_model_page_shows_the_initial_kv_view_and_plan(project_site):
    """The first view's memory panel, KV figures and throughput plan are the plan of the command shown."""
    site, _ = project_site
    text = _page(site, LLAMA)
    data = json.loads(
        unescape(
            re.search(
                r'<script type="application/json" id="picker-data">(.*?)</script>', text, re.S
            ).group(1)
        )
    )
    assert data["kv"] is True and "sizing" not in data
    hw = data["default"]["hardware"]
    doc = data["initial"]
    rs, r = tree_renderings(doc, "default")
    features = doc["feature_sets"][r["parts"]["features"]]
    chosen = default_choice(features)
    p = plan_of(r, chosen, data["hardware"][hw])
    view = kv_view(p)
    assert (
        view["len"] == p["context_length"] == 131_072 and view["conc"] == 1 and view["ok"] is True
    )
    assert f'value="{view["len"]}"' in text and "data-kv-conc" in text
    assert unescape(_section(text, "data-kv-verdict")) == view["verdict"]
    for _, legend, width in view["parts"]:
        assert legend in text and f"width:{width}" in text
    first = dict(r["parts"]["processes"][0], kind="process")
    plan = plan_view(r, p, data["hardware"][hw], process_text(r, first, chosen))
    assert unescape(_section(text, "data-plan-sum")) == plan["summary"]
    for pid, caption, command in plan["commands"]:
        assert f'<pre id="{pid}" tabindex="0">{command}</pre>' in text.replace("&#34;", '"')
        assert f'data-copy-from="{pid}"' in text and caption in text
    assert unescape(_section(text, "data-sizing-why")) == p["reason"]
    assert "data-kv-missing" not in text


def test_kv_view_texts():
    e = {
        "dp": 1,
        "vram_gib_per_gpu": 80.0,
        "budget_gib_per_gpu": 72.0,
        "weights_gib_per_gpu": 16.298,
        "overhead_gib_per_gpu": 4.643,
        "kv_cache_gib_per_gpu": 51.059,
        "kv_cache_bytes_per_gpu": 54_824_481_024,
        "kv_bytes_per_token_per_gpu": 40_960.0,
        "windows_per_gpu": [],
        "prefill_chunk": 0,
        "context_length": 131_072,
        "evaluated_len": 131_072,
        "max_tokens": 1_338_488,
        "missing_facts": [],
    }
    assert (
        kv_view(e)["verdict"]
        == "1 request of 131,072 tokens needs 5.0 GiB of KV cache per GPU: fits in 51.1 GiB."
    )
    over = kv_view(e, 131_072, 64)
    assert over["ok"] is False and over["verdict"] == (
        "64 requests of 131,072 tokens need 320.0 GiB of KV cache per GPU, more than the 51.1 GiB there is: "
        "at most 10 of that length fit, or 64 of up to 20,912 tokens each."
    )
    assert [key for key, _, _ in over["parts"]] == ["weights", "overhead", "over", "reserve"]
    assert (
        kv_view(
            {
                **e,
                "kv_cache_gib_per_gpu": None,
                "kv_cache_bytes_per_gpu": None,
                "missing_facts": ["variant vram_minimum_gb or model.parameter_count"],
            }
        )["verdict"]
        == "No KV-cache estimate: missing variant vram_minimum_gb or model.parameter_count."
    )


def test_pages_without_hf_config_say_which_facts_are_missing(tmp_path):
    from recipes_site.build import build

    root = tmp_path / "root"
    (root / "models" / "acme").mkdir(parents=True)
    text = (
        (PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml")
        .read_text()
        .replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "acme/Plain-8B"')
    )
    text = re.sub(r"\n  hf_config:\n(    .*\n)+", "\n", text)
    assert "hf_config" not in text.split("variants:")[0]
    (root / "models" / "acme" / "Plain-8B.yaml").write_text(text)
    result = build(root, tmp_path / "out")
    assert result.ok, [d.format() for d in result.diagnostics]
    page = (tmp_path / "out" / "acme/Plain-8B/index.html").read_text()
    assert "data-kv-missing" in page and "model.hf_config (num_hidden_layers" in page
    assert "data-kv " not in page and '"kv":false' in page
    # the weights side of the plan still stands beside the command
    assert (
        "data-plan " in page and "GiB of weights on one H100" in page or "GiB of weights on" in page
    )
    assert "kv_sizing" not in json.loads(
        (tmp_path / "out" / "api/v1/models/acme/Plain-8B.json").read_text()
    )


# -- TP sizes the heads do not allow -------------------------------------------------------------------------


def test_render_choice_refuses_a_tp_the_heads_do_not_allow(ctx, recipes):
    with pytest.raises(ChoiceError) as err:
        render_choice(ctx, recipes[R1], "default", "h200", "multi_node_tp", 3)
    assert str(err.value) == (
        "multi_node_tp on 3 nodes of h200 would need TP 24, which vLLM refuses: TP 24 does not "
        "divide the 128 attention heads; node counts that work: 2, 4, 8, 16"
    )
    assert (
        _flag(
            render_choice(ctx, recipes[R1], "default", "h200", "multi_node_tp", 4).head.argv,
            "--tensor-parallel-size",
        )
        == "32"
    )
    # the same recipe without hf_config renders as the reference does
    plain = copy.deepcopy(recipes[R1])
    del plain["model"]["hf_config"]
    assert (
        _flag(
            render_choice(ctx, plain, "default", "h200", "multi_node_tp", 3).head.argv,
            "--tensor-parallel-size",
        )
        == "24"
    )


def _flag(argv, flag):
    return argv[list(argv).index(flag) + 1]


def test_no_rendering_of_a_recipe_with_hf_config_uses_a_refused_tp(ctx, recipes, inputs):
    from recipes_site import kv_cache

    for hf, rec in inputs.items():
        cfg = recipes[hf]["model"]["hf_config"]
        for _, r in _renderings(rec):
            for p in r.processes:
                assert kv_cache.tp_problem(cfg, fit.shape_from_argv(p.argv).tp) is None, (
                    hf,
                    r.hardware,
                    r.strategy,
                )


def test_a_multi_node_default_moves_to_the_first_node_count_the_heads_allow(ctx, recipes):
    odd = copy.deepcopy(recipes[R1])
    odd["model"]["hf_config"]["num_attention_heads"] = (
        24  # 2 nodes x 8 GPUs = TP 16 does not divide 24
    )
    rendered = synthesize_recipe(ctx, R1, odd, set(recipes))
    h200 = next(res for res in rendered.trees[0].by_hardware if res.hardware == "h200")
    tp = {r.strategy: r for r in h200.alternatives}["multi_node_tp"]
    assert tp.node_count == 3 and _flag(tp.head.argv, "--tensor-parallel-size") == "24"
    assert render_choice(ctx, odd, "default", "h200", "multi_node_tp") == tp
    r = fit_report.fit_choice(ctx, odd, "default", "h200", "multi_node_tp", with_plan=False)
    assert (r.tp, r.nodes) == (24, 3)
    with pytest.raises(
        ChoiceError,
        match=r"TP 16 does not divide the 24 attention heads; node counts that work: 3$",
    ):
        render_choice(ctx, odd, "default", "h200", "multi_node_tp", 2)
    # the same for a recommended multi-node layout (too big for one H100 node: 2 nodes, TP 16, by default)
    h100 = next(res for res in rendered.trees[0].by_hardware if res.hardware == "h100")
    assert (h100.recommended.strategy, h100.recommended.node_count) == ("multi_node_tp", 3)
    assert render_choice(ctx, odd, "default", "h100") == h100.recommended
    assert render_choice(ctx, recipes[R1], "default", "h100").node_count == 2


def test_alternatives_no_node_count_can_serve_are_left_out(ctx, recipes):
    odd = copy.deepcopy(recipes[R1])
    odd["model"]["hf_config"]["num_attention_heads"] = (
        8 * 17
    )  # no TP of 8 x n GPUs (n = 2..16) divides 136
    rendered = synthesize_recipe(ctx, R1, odd, set(recipes))
    h200 = next(res for res in rendered.trees[0].by_hardware if res.hardware == "h200")
    assert "multi_node_tp" not in {r.strategy for r in h200.alternatives}
    with pytest.raises(
        ChoiceError,
        match=r"TP 16 does not divide the 136 attention heads; no node count from 2 to 16 works",
    ):
        render_choice(ctx, odd, "default", "h200", "multi_node_tp")
