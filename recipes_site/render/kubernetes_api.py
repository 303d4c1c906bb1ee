"""The Kubernetes part of the per-model deploy.json (api/v1/models/<org>/<repo>/deploy.json).

One document per model, fetched by the page when a reader opens its Kubernetes tab and by CI.
The renderings of one model repeat most lines of their YAML (volumes, probes, env, labels), so
the document keeps each distinct line once: a text is a list of indexes into `lines`, joined
with newlines (`joined_text`; site.js does the same join). That keeps the bundled catalog's
documents near 1 MB instead of near 4 MB as whole texts.

    lines          every distinct YAML line of the model's texts
    texts          each distinct text as indexes into `lines`
    prerequisites  every distinct checklist line
    renderings     rendering key (inputs.rendering_key) -> {"manifests": text index,
                   "helm_values": text index, "prerequisites": [indexes]}; a form the
                   rendering has not is left out; a rendering with no Kubernetes form
                   (kubernetes.KubernetesError) has no entry
"""

from __future__ import annotations

from recipes_site import kubernetes, plan
from recipes_site.data import VLLM_VERSION
from recipes_site.distinct import DistinctTable
from recipes_site.render.inputs import RecipeInput, rendering_key
from recipes_site.synthesis import Context


def kubernetes_doc(rec: RecipeInput, ctx: Context) -> dict:
    lines, texts, checks = DistinctTable(), DistinctTable(), DistinctTable()
    renderings: dict[str, dict] = {}
    plans = plan.RecipePlans(rec.data)
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            profile = ctx.profiles.get(res.hardware) or {}
            for r in (res.recommended, *res.alternatives):
                key = rendering_key(res.hardware, r)
                if key in renderings:
                    continue
                try:
                    forms = kubernetes.rendering_forms(rec.hf_id, rec.data, r, profile, plans)
                except kubernetes.KubernetesError:
                    continue  # a layout with no Kubernetes form: no entry, the page says so
                entry: dict = {}
                for name, text in (
                    ("manifests", forms.manifests),
                    ("helm_values", forms.helm_values),
                ):
                    if text is not None:
                        coded = tuple(lines.index(line) for line in text.split("\n"))
                        entry[name] = texts.index(coded)
                entry["prerequisites"] = [checks.index(c) for c in forms.prerequisites]
                renderings[key] = entry
    return {
        "recipe": rec.hf_id,
        "vllm_version": VLLM_VERSION,
        "leaderworkerset_api": kubernetes.LWS_API_VERSION,
        "helm_chart": {
            "name": kubernetes.CHART_NAME,
            "version": kubernetes.CHART_VERSION,
            "repository": kubernetes.CHART_REPO,
        },
        "lines": lines.items,
        "texts": [list(t) for t in texts.items],
        "prerequisites": checks.items,
        "renderings": renderings,
    }


def joined_text(doc: dict, index: int) -> str:
    """Text `index` of a Kubernetes document, as the page joins it."""
    return "\n".join(doc["lines"][i] for i in doc["texts"][index])


def rendering_forms(doc: dict, key: str) -> dict:
    """The manifests, Helm values and checklist of one rendering of a Kubernetes document."""
    entry = doc["renderings"][key]
    return {
        "manifests": joined_text(doc, entry["manifests"]) if "manifests" in entry else None,
        "helm_values": joined_text(doc, entry["helm_values"]) if "helm_values" in entry else None,
        "prerequisites": [doc["prerequisites"][i] for i in entry["prerequisites"]],
    }
