"""Issue 24, "pages tell one truth", on the built project site: every memory figure in GiB from
the plans (chips, variant table, hardware and provider pages), variant labels that tell variants
apart, no typed sizing tables in guides, and the vLLM version the plans model named on the page
and in the API."""

from __future__ import annotations

import html
import json
import re

import pytest

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.data import VLLM_VERSION, vllm_flags
from recipes_site.render import picker

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
GPT_OSS = "openai/gpt-oss-120b"


@pytest.fixture(scope="module")
def site(project_site):
    out, _result = project_site
    return out


def _text(path) -> str:
    return html.unescape(path.read_text(encoding="utf-8"))


def _chips(page: str) -> dict[str, str]:
    """{variant key: label} of a model page's variant pills."""
    axis = page[page.index('data-axis="variant"') :]
    axis = axis[: axis.index("</div>")]
    return dict(re.findall(r'data-value="([^"]+)"[^>]*><b>([^<]*)</b>', axis))


def test_variant_labels_tell_every_variant_apart(recipes):
    for hf_id, data in recipes.items():
        labels = picker.variant_labels(data)
        sizeless = [re.sub(r" · \d+ GiB$", "", label) for label in labels.values()]
        assert len(set(sizeless)) == len(sizeless), (hf_id, labels)
    oss = picker.variant_labels(recipes[GPT_OSS])
    assert oss["mxfp4_fp8"].startswith("MXFP4 · gpt-oss-120b-w-mxfp4-a-fp8 · "), oss


def test_variant_labels_fall_back_to_the_key_when_checkpoints_are_shared():
    recipe = {
        "model": {"model_id": "org/m"},
        "variants": {"default": {"precision": "fp8"}, "fast": {"precision": "fp8"}},
    }
    assert picker.variant_labels(recipe) == {"default": "FP8 · default", "fast": "FP8 · fast"}


def test_model_page_chips_are_the_plan_weights_in_gib(site, recipes):
    page = _text(site / LLAMA / "index.html")
    chips = _chips(page)
    assert chips["default"].startswith("BF16 · ") and "GB" not in chips["default"], chips
    hw = json.loads((site / "api/v1/models" / LLAMA / "hw/h100.json").read_text())
    plan = next(r for r in hw["renderings"] if r["variant"] == "default")["plan"]["default"]
    assert f"{plan['weights_gib']:.0f} GiB" in chips["default"]
    assert chips == picker.variant_labels(recipes[LLAMA])


def test_hardware_and_provider_pages_use_the_model_page_labels(site):
    chips = _chips(_text(site / LLAMA / "index.html"))
    hw_page = _text(site / "hardware/h100/index.html")
    item = hw_page[hw_page.index(f'data-hw-model="{LLAMA}"') :]
    tag = re.search(r'<span class="tag">([^<]*)</span>', item).group(1)
    assert tag in chips.values(), (tag, chips)
    provider = _text(site / "meta-llama/index.html")
    assert chips["default"] in provider
    # the figures these pages compute (the profiles' own descriptions quote datasheets)
    tags = re.findall(r'<span class="tag">([^<]*)</span>', hw_page)
    tags += re.findall(r'<ul class="chips small">(.*?)</ul>', provider)
    tags += re.findall(r"<small>([^<]*)</small>", _text(site / "hardware/index.html"))
    assert tags and not [t for t in tags if re.search(r"\d\s*GB\b", t)], tags


def test_variant_table_is_generated_from_the_plans(site):
    page = _text(site / LLAMA / "index.html")
    table = page[page.index('id="variants"') :]
    table = table[: table.index("</section>")]
    hw = json.loads((site / "api/v1/models" / LLAMA / "hw/h200.json").read_text())
    plan = next(r for r in hw["renderings"] if r["variant"] == "fp8")["plan"]["default"]
    assert f"{plan['weights_gib']:.1f} GiB" in table
    assert "H200: 1 GPU" in table


def test_guides_type_no_sizing_tables(recipes):
    """Sizes in guides go stale: the page generates its variant table from the plans."""
    for hf_id, data in recipes.items():
        guide = str(data.get("guide") or "")
        for line in guide.splitlines():
            if line.strip().startswith("|"):
                assert not re.search(r"\d\s*(GB|GiB)\b|Weights", line), (hf_id, line)


def test_the_vllm_version_is_one_constant_on_pages_and_in_the_api(site):
    assert vllm_flags()["vllm_version"] == VLLM_VERSION
    page = _text(site / LLAMA / "index.html")
    assert f"planned for vLLM {VLLM_VERSION}" in page
    for doc in (site / "api/v1/models" / LLAMA / "hw").glob("*.json"):
        assert json.loads(doc.read_text())["vllm_version"] == VLLM_VERSION
    model = json.loads((site / "api/v1/models" / f"{LLAMA}.json").read_text())
    entries = [
        e for hws in model["kv_sizing"].values() for h in hws.values() for e in h["deployments"]
    ]
    assert entries and {e["vllm_version"] for e in entries} == {VLLM_VERSION}
    assert (PROJECT_ROOT / "recipes_site/data/__init__.py").read_text().count(
        f'"{VLLM_VERSION}"'
    ) == 1


def _recommended_plans(site, hf_id: str, hw: str) -> dict[str, dict]:
    doc = json.loads((site / "api/v1/models" / hf_id / "hw" / f"{hw}.json").read_text())
    out = {}
    for variant, rec in doc["recommended"].items():
        r = next(
            x
            for x in doc["renderings"]
            if (x["variant"], x["strategy"], x["node_count"])
            == (rec["variant"], rec["strategy"], rec["node_count"])
        )
        out[variant] = r["plan"]["default"]
    return out


def test_hardware_entries_carry_the_model_page_verdict(site):
    checked = 0
    for path in (site / "api/v1/hardware").glob("*.json"):
        doc = json.loads(path.read_text())
        for m in doc.get("models", []):
            plan = _recommended_plans(site, m["recipe"], doc["hardware"])[m["variant"]]
            assert m.get("verdict") == plan.get("verdict"), (path.name, m["recipe"], m["variant"])
            checked += 1
    assert checked > 100


def test_hardware_pages_list_only_starting_commands_as_fitting(tmp_path):
    """On the compat corpus some recommended commands cannot start as planned: a hardware page
    never lists one under "Fits on one node", and marks it where it lists it."""
    from recipes_site.build import build

    corpus = PROJECT_ROOT.parent / "shared" / "compat" / "corpus"
    if not (corpus / "models").is_dir():
        pytest.skip("no compat corpus")
    out = tmp_path / "compat"
    assert build(corpus, out).ok
    marked = 0
    for page in (out / "hardware").glob("*/index.html"):
        text = _text(page)
        fits = text[text.index('id="fits-h"') :].split("</section>", 1)[0]
        assert "cannot start" not in fits, page
        for hf_id, variant_label in re.findall(
            r'data-hw-model="([^"]+)"><details><summary><b>[^<]*</b> <span class="tag">([^<]*)',
            fits,
        ):
            hw = page.parent.name
            labels = picker.variant_labels(
                json.loads((out / "api/v1/models" / f"{hf_id}.json").read_text())["recipe"]
            )
            key = next(k for k, v in labels.items() if v == variant_label)
            plans = _recommended_plans(out, hf_id, hw)
            assert plans[key].get("verdict") in ("fits", None), (page, hf_id, key)
        marked += text.count("cannot start as planned")
    assert marked, "the compat corpus has recommended commands that cannot start as planned"
