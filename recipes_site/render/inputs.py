"""What the render stage takes of one recipe, and where its API documents live: read by api.py,
which writes the documents, and by picker.py and pages.py, which link to them."""

from __future__ import annotations

from dataclasses import dataclass

from recipes_site.synthesis.types import RecipeRenderings

API = "api/v1"


@dataclass(frozen=True)
class RecipeInput:
    """What the API needs of one recipe: its id, validated data and renderings."""

    hf_id: str
    data: dict
    rendered: RecipeRenderings


def model_doc_path(hf_id: str) -> str:
    return f"{API}/models/{hf_id}.json"


def hw_doc_path(hf_id: str, hw: str) -> str:
    return f"{API}/models/{hf_id}/hw/{hw}.json"


def rendering_key(hw: str, rendering) -> str:
    """One rendering's identity across the per-model documents (kubernetes.json, monitoring.json):
    `<hardware>/<variant>/<strategy>/<node_count>`, the hardware document (hw/<hw>.json) and the
    (variant, strategy, node_count) its `renderings` entries carry."""
    return f"{hw}/{rendering.variant}/{rendering.strategy}/{rendering.node_count}"
