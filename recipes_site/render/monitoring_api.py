"""The monitoring document of a model (`api/v1/models/<org>/<repo>/monitoring.json`): monitoring.py's
`document` over every rendering of the model's hardware documents, keyed by `rendering_key`, with
the default plan each hardware document publishes for it."""

from __future__ import annotations

from recipes_site import monitoring
from recipes_site.render.inputs import API, RecipeInput, hw_doc_path
from recipes_site.rendering_key import key_of, rendering_key


def monitoring_doc_path(hf_id: str) -> str:
    return f"{API}/models/{hf_id}/monitoring.json"


def monitoring_doc(rec: RecipeInput, docs: dict[str, dict]) -> dict:
    """The monitoring document of `rec`, from its hardware documents in `docs` (api.hardware_docs):
    their renderings in their order, each with its published default plan."""
    by_key = {
        rendering_key(r): r
        for tree in rec.rendered.trees
        for res in tree.by_hardware
        for r in (res.recommended, *res.alternatives)
    }
    folder = hw_doc_path(rec.hf_id, "-").rsplit("/", 1)[0] + "/"
    hw_docs = [d for path, d in docs.items() if path.startswith(folder)]
    items = [
        (key, by_key[key], e["plan"]["default"])
        for doc in hw_docs
        for e in doc["renderings"]
        for key in [key_of(doc["hardware"], e["variant"], e["strategy"], e["node_count"])]
    ]
    return monitoring.document(rec.hf_id, items)
