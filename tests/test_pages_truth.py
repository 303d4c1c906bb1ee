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
    assert chips["default"] == "BF16 · 130 GiB", chips
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
    assert (PROJECT_ROOT / "recipes_site/data/__init__.py").read_text().count(
        f'"{VLLM_VERSION}"'
    ) == 1
