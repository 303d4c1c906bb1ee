"""Data for the model page's picker: every rendering a user can select, cut into the parts the
page script joins (process lines around a feature block, feature lines, docker head).

One document per (recipe, hardware) at `<org>/<repo>/picker/<hw>.json`, fetched when the user
picks that hardware; the default hardware's document is embedded in the page. Everything here
is derived from synthesis renderings: the script never computes a flag.
"""
from __future__ import annotations

import json

from recipes_site import sizing
from recipes_site.render.api import RecipeInput
from recipes_site.synthesis import Context
from recipes_site.synthesis.choices import feature_choices, toggles_are_exact
from recipes_site.synthesis.jsish import js_str, mapping
from recipes_site.synthesis.shell import quote
from recipes_site.synthesis.types import Process, Rendering

def picker_path(hf_id: str, hw: str) -> str:
    return f"{hf_id}/picker/{hw}.json"


def exports(env: dict) -> str:
    return "".join(f"export {k}={quote(js_str(v))}\n" for k, v in env.items())


def _process(pid: str, label: str, p: Process) -> dict:
    return {"id": pid, "label": label, "model": p.argv[2], "exports": exports(p.env),
            "before": list(p.lines_before), "after": list(p.lines_after), "docker_head": p.docker_head}


def _processes(r: Rendering) -> list[dict]:
    if r.single:
        return [_process("main", "vllm serve", r.single)]
    if r.head:
        return [_process("head", "Head node (rank 0)", r.head)] + [
            _process(f"worker-{i}", f"Worker node (rank {i})", w) for i, w in enumerate(r.workers, 1)]
    if r.prefill:
        return [_process("prefill", f"Prefill pool ({_pool_text(r.prefill)})", r.prefill.process),
                _process("decode", f"Decode pool ({_pool_text(r.decode)})", r.decode.process)]
    procs = [_process("instance", f"vLLM instance (x{r.kv.instances})", r.kv.head)]
    return procs + [_process(f"instance-worker-{i}", f"Instance worker node (rank {i})", w)
                    for i, w in enumerate(r.kv.workers, 1)]


def _pool_text(pool) -> str:
    where = "shares the node" if pool.nodes == 0 else f"{pool.nodes} node{'s' if pool.nodes > 1 else ''}"
    return f"{pool.parallelism.upper()}, {pool.pool_gpus} GPUs, {where}"


def _heredoc(path_var: str, config: dict, note: str | None) -> str:
    comments = "".join(f"# {line}\n" for line in (note or "").splitlines())
    return f"{comments}cat > {path_var} <<EOF\n{json.dumps(config, indent=2, ensure_ascii=False)}\nEOF"


def _extras(r: Rendering) -> list[dict]:
    if r.router and r.prefill:
        return [{"id": "router", "label": "Router", "text": f"{r.router.install}\n{r.router.command}"}]
    if not r.kv:
        return []
    kv, out = r.kv, []
    if kv.config:
        out.append({"id": "mooncake-config", "label": "Mooncake config",
                    "text": _heredoc("$MOONCAKE_CONFIG_PATH", kv.config, kv.config_note)})
    if kv.master:
        out.append({"id": "mooncake-master", "label": "Mooncake master", "text": mapping(kv.master).get("command", "")})
    if kv.store:
        store = mapping(kv.store)
        text = store.get("command", "")
        if store.get("config"):
            text = _heredoc("$MOONCAKE_STORE_CONFIG_PATH", store["config"], store.get("note")) + "\n" + text
        out.append({"id": "mooncake-store", "label": "Mooncake store", "text": text})
    if kv.install:
        out.insert(0, {"id": "install", "label": "Extra install", "text": kv.install})
    if kv.router:
        out.append({"id": "router", "label": "Router", "text": f"{kv.router.install}\n{kv.router.command}"})
    return out


def _flag_value(argv: tuple, flag: str) -> str | None:
    for i, tok in enumerate(argv[:-1]):
        if tok == flag:
            return argv[i + 1]
    return None


def summary_line(r: Rendering, profile: dict, precision: str | None) -> str:
    main = r.main_process
    gpus = profile.get("gpu_count") or 1
    parts = [f"{r.node_count} x {gpus}x {profile.get('display_name') or r.hardware}" if r.node_count > 1
             else f"{gpus}x {profile.get('display_name') or r.hardware}"]
    if main is not None:
        for flag, short in (("--tensor-parallel-size", "TP"), ("--pipeline-parallel-size", "PP"),
                            ("--data-parallel-size", "DP")):
            value = _flag_value(main.argv, flag)
            if value:
                parts.append(f"{short}={value}")
    if precision:
        parts.append(precision.upper())
    return " · ".join(parts)


def rendering_entry(ctx: Context, rec: RecipeInput, r: Rendering, choices_cache: dict) -> dict:
    hw = ctx.hardware(r.hardware)
    variant = mapping(mapping(rec.data.get("variants")).get(r.variant))
    strategy = r.strategy if not r.kv else r.kv.serving_strategy
    key = (r.hardware, r.variant, strategy, r.kv is not None)
    if key not in choices_cache:
        choices_cache[key] = feature_choices(rec.data, hw, r.variant, strategy, with_kv_store=r.kv is not None)
    choices = choices_cache[key]
    processes = [p for p in (r.single, r.head, *r.workers,
                             r.prefill.process if r.prefill else None, r.decode.process if r.decode else None,
                             r.kv.head if r.kv else None, *(r.kv.workers if r.kv else ())) if p is not None]
    exact = toggles_are_exact(choices, processes)
    entries = _processes(r)
    if not exact:   # show the rendered command as is; toggles stay at their defaults
        for entry, p in zip(entries, processes):
            entry["before"], entry["after"] = [l for l in p.command.split(" \\\n  ")[1:]], []
    return {
        "variant": r.variant, "strategy": r.strategy, "node_count": r.node_count, "deploy_type": r.deploy_type,
        "docker_image": r.docker_image, "summary": summary_line(r, hw.profile, variant.get("precision")),
        "processes": entries, "extras": _extras(r),
        "features": [{
            "name": c.name, "label": c.label, "description": c.description, "default": c.default,
            "modes": None if c.modes is None else [
                {"name": m.name, "label": m.label, "description": m.description, "lines": list(m.lines)} for m in c.modes],
            "lines": None if c.lines is None else list(c.lines)} for c in choices],
        "features_locked": not exact,
    }


def picker_documents(rec: RecipeInput, ctx: Context) -> dict[str, dict]:
    docs: dict[str, dict] = {}
    index: dict[str, dict[tuple, int]] = {}
    choices_cache: dict = {}
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            doc = docs.setdefault(res.hardware, {"hardware": res.hardware, "trees": {}, "renderings": []})
            keys = index.setdefault(res.hardware, {})
            listed = []
            for r in (res.recommended, *res.alternatives):
                if r.key not in keys:
                    keys[r.key] = len(doc["renderings"])
                    doc["renderings"].append(rendering_entry(ctx, rec, r, choices_cache))
                listed.append(keys[r.key])
            doc["trees"][tree.variant] = {"recommended": keys[res.recommended.key], "renderings": listed}
    return {picker_path(rec.hf_id, hw): docs[hw] for hw in ctx.profiles if hw in docs}


def _variant_label(key: str, variant: dict) -> str:
    if variant.get("label"):
        return variant["label"]
    precision = (variant.get("precision") or key).upper()
    vram = variant.get("vram_minimum_gb")
    return f"{precision} · {vram} GB" if vram else precision


def picker_summary(rec: RecipeInput, ctx: Context, docs: dict[str, dict]) -> dict:
    variants = mapping(rec.data.get("variants"))
    declared = mapping(mapping(rec.data.get("meta")).get("hardware"))
    trees = {}
    for tree in rec.rendered.trees:
        v = mapping(variants.get(tree.variant))
        trees[tree.variant] = {
            "label": _variant_label(tree.variant, v), "precision": v.get("precision"),
            "vram_gb": v.get("vram_minimum_gb"), "model_id": tree.model_id, "description": v.get("description") or "",
            "default_hardware": tree.default_hardware, "hardware": [res.hardware for res in tree.by_hardware]}
    hardware = {hw_id: {"label": p.get("display_name") or hw_id, "brand": p.get("brand"),
                        "gpu_count": p.get("gpu_count"), "vram_per_gpu_gb": round(sizing.per_gpu_gib(p), 1),
                        "verified": declared.get(hw_id) == "verified"}
                for hw_id, p in ctx.profiles.items()}
    strategies = {sid: {"label": spec.get("display_name") or sid, "deploy_type": spec.get("deploy_type"),
                        "orientation": spec.get("orientation")} for sid, spec in ctx.strategies.items()}
    sizes = {}
    for key in trees:
        per_hw = sizing.variant_sizing(rec.data, mapping(variants.get(key)), ctx.profiles)["hardware"]
        sizes[key] = {hw: per_hw[hw] for hw in trees[key]["hardware"] if hw in per_hw}
    first = rec.rendered.trees[0] if rec.rendered.trees else None
    default = {"variant": first.variant, "hardware": first.default_hardware} if first else None
    return {"id": rec.hf_id, "picker_url": f"/{rec.hf_id}/picker/{{hw}}.json", "default": default,
            "variants": trees, "hardware": hardware, "strategies": strategies, "sizing": sizes,
            "initial": docs.get(picker_path(rec.hf_id, first.default_hardware)) if first else None}
