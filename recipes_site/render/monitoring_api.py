"""The monitoring document of a model (`api/v1/models/<org>/<repo>/monitoring.json`): monitoring.py's
`document` over every rendering of the model's hardware documents, keyed by `inputs.rendering_key`,
with the default plan each hardware document publishes for it."""

from __future__ import annotations

from recipes_site import monitoring
from recipes_site.render.inputs import API, RecipeInput, hw_doc_path, rendering_key


def monitoring_doc_path(hf_id: str) -> str:
    return f"{API}/models/{hf_id}/monitoring.json"


def monitoring_doc(rec: RecipeInput, docs: dict[str, dict]) -> dict:
    """The monitoring document of `rec`, from its hardware documents in `docs` (api.hardware_docs),
    which publish each rendering once per hardware with its plan."""
    items = {}
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            hw_doc = docs[hw_doc_path(rec.hf_id, res.hardware)]
            plans = {
                (e["variant"], e["strategy"], e["node_count"]): e for e in hw_doc["renderings"]
            }
            for r in (res.recommended, *res.alternatives):
                key = rendering_key(res.hardware, r)
                if key not in items:
                    items[key] = (key, r, plans[r.key]["plan"]["default"])
    return monitoring.document(rec.hf_id, items.values())
