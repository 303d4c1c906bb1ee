"""The model page's "More options" for `recipes-site command` and `fit`: a KV-offload option
(`--kv-offload ID`), the container image (`--image TAG`), `--max-model-len auto` and the
Mooncake instance count (`--kv-instances N`), applied to one rendering. On a prefill/decode
rendering `--kv-offload <kv-store id>` joins that Mooncake store into every pool node
(synthesis/pd_store.py), as the page's Mooncake pills do there.

Every word comes from the pieces the page joins (render/kv_offload.py's options, render/
advanced.py's images, `--max-model-len auto` and kv-store routers), joined by the page's rule
(templates/static/site.js `commandParts` with more.js's `extra`, `head` and `tabs`):

    lines  = <lines before the features> + <feature lines> + <option lines> + <lines after>
    lines  = lines without "--max-model-len ..." + ["--max-model-len auto"]   (when asked)
    serve  = <rendering exports> + <option exports> + <first line> + lines
    docker = <docker head, "-e" lines of the option before "<image> <model>", the image chosen> + lines

The host tier's byte count is host_memory.config_bytes on the command's plan. What the page
disables is refused here with the page's reason (the option's layout, the recipe's
`kv_offload_support`, the strategy, the GPU brand; a locked rendering keeps its command).
"""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys
from typing import NamedTuple

from recipes_site import host_memory, kubernetes_options, plan
from recipes_site.data import VLLM_VERSION
from recipes_site.errors import ChoiceError
from recipes_site.jsish import mapping
from recipes_site.kubernetes import KubernetesError, forms_text
from recipes_site.render import advanced, kv_offload
from recipes_site.render.picker import features_locked
from recipes_site.render.rendering_json import rendering_json
from recipes_site.suggest import NameIndex, did_you_mean
from recipes_site.synthesis import Context, render_choice
from recipes_site.synthesis.choices import feature_choices
from recipes_site.synthesis.deployments import kv_router_command
from recipes_site.synthesis.pd_store import PdStore, companion_steps, pd_store, with_store
from recipes_site.synthesis.shell import SEP
from recipes_site.synthesis.types import Process, Rendering, Router, with_processes

KV_STORE = "kv_store_lb"


class Asked(NamedTuple):
    """What the reader asked of the row (None / False: the option left as the page opens)."""

    kv_offload: str | None = None
    image: str | None = None
    max_model_len_auto: bool = False
    kv_instances: int | None = None

    @property
    def any(self) -> bool:
        return bool(self.kv_offload or self.image or self.max_model_len_auto or self.kv_instances)


class Applied(NamedTuple):
    rendering: Rendering  # its processes' commands with the options joined
    before: list[
        tuple[str, str]
    ]  # (heading, text) printed before the rendering: install, companion
    notes: list[str]  # host memory, what an option does not change
    pieces: dict  # the `more_options` member of `command --json`


def options(taxonomy: dict, strategies: dict) -> list[dict]:
    """The KV-offload options as the page's row has them (kv_offload.options_doc)."""
    return kv_offload.options_doc(taxonomy, VLLM_VERSION, strategies)["options"]


def option_named(found: list[dict], wanted: str, strategies: dict) -> dict:
    """The option `wanted` names (its id, any case), or ChoiceError with the allowed ids."""
    by = {o["id"]: o for o in found}
    if wanted in by:
        return by[wanted]
    same = [oid for oid in by if oid.lower() == wanted.lower()]
    if len(same) == 1:
        return by[same[0]]
    stores = [s for s, spec in strategies.items() if mapping(spec).get("deploy_type") == KV_STORE]
    if wanted in stores:
        raise ChoiceError(
            f"{wanted} is a Mooncake kv-store strategy, not an offload option: pass "
            f"--strategy {wanted} (and --kv-instances N for its instance count), or keep "
            f"--kv-offload {wanted} with --strategy pd_cluster for a store shared by its pools"
        )
    hint = did_you_mean(NameIndex([*by, *stores]).suggest(wanted))
    listing = ", ".join(by) + (
        "; the Mooncake tiers are strategies: " + ", ".join(f"--strategy {s}" for s in stores)
        if stores
        else ""
    )
    raise ChoiceError(f"unknown KV-offload option {wanted!r}{hint}; options: {listing}")


def locked(ctx: Context, recipe: dict, r: Rendering) -> bool:
    """`features_locked` of the rendering, as its hardware document publishes it."""
    choices = feature_choices(
        recipe, ctx.hardware(r.hardware), r.variant, r.feature_strategy, r.kv is not None
    )
    return features_locked(choices, r)


def image_choice(r: Rendering, wanted: str, is_locked: bool) -> str | None:
    """The image `wanted` among the labelled choices of the rendering's image family (None: the
    rendering's own), or ChoiceError naming the choices."""
    if r.docker_image is None:
        raise ChoiceError("this rendering has no docker run form, so no image to choose")
    choices = advanced.IMAGES.get(r.docker_image)
    if wanted == r.docker_image:
        return None
    if choices is None:
        raise ChoiceError(f"{advanced.PINNED.lower()}: {r.docker_image}; it offers no other image")
    if is_locked:
        raise ChoiceError(f"--image: {advanced.LOCKED_REASON}")
    tags = [image for _, image in choices]
    if wanted not in tags:
        hint = did_you_mean(NameIndex(tags).suggest(wanted))
        listed = ", ".join(f"{image} ({label})" for label, image in choices)
        raise ChoiceError(f"image {wanted!r} is not offered here{hint}; choices: {listed}")
    return wanted


def _line_words(lines) -> int:
    return sum(len(shlex.split(line)) for line in lines)


def _joined(
    p: Process,
    opt_lines: list[str],
    opt_words: list[str],
    env: dict,
    exports: str,
    docker_env: list[str],
    image: str | None,
    old_image: str | None,
    mml_auto: bool,
) -> Process:
    """The process with the option's lines after its feature block, `--max-model-len auto`, the
    option's environment (`env`, or `exports` in front of the serve form when it names a variable
    the rendering's exports already set, as the page prints both) and its `-e` lines and image
    in the docker head."""
    body = p.command.split(SEP)
    split = len(body) - len(p.lines_after)
    lines = body[1:split] + opt_lines + body[split:]
    argv = list(p.argv)
    at = len(argv) - _line_words(p.lines_after)
    argv = argv[:at] + opt_words + argv[at:]
    if mml_auto:
        drop = advanced.MAX_MODEL_LEN_AUTO["replaces"]
        lines = [line for line in lines if not line.startswith(drop)]
        lines.append(advanced.MAX_MODEL_LEN_AUTO["line"])
        words = [str(w) for w in argv]
        while "--max-model-len" in words:
            i = words.index("--max-model-len")
            del argv[i : i + 2], words[i : i + 2]
        argv += ["--max-model-len", "auto"]
    tail = SEP + SEP.join(lines) if lines else ""
    docker_lines = p.docker_command.split(SEP)
    head = docker_lines[: len(docker_lines) - (len(body) - 1)]
    head[-1:-1] = docker_env
    if image and old_image and head[-1].startswith(old_image + " "):
        head[-1] = image + head[-1][len(old_image) :]
    docker_argv = list(p.docker_argv[: len(p.docker_argv) - (len(p.argv) - 3)])
    if old_image in docker_argv:
        at = len(docker_argv) - 1 - docker_argv[::-1].index(old_image)
        docker_argv[at:at] = [w for line in docker_env for w in shlex.split(line)]
        if image:
            docker_argv[at + len(docker_env) * 2] = image
    return dataclasses.replace(
        p,
        env={**p.env, **env},
        argv=tuple(argv),
        command=exports + body[0] + tail,
        docker_argv=tuple(docker_argv + argv[3:]),
        docker_command=SEP.join(head) + tail,
    )


def apply(
    ctx: Context, recipe: dict, taxonomy: dict, r: Rendering, the_plan: dict, asked: Asked
) -> Applied:
    """The rendering with the asked options joined into its commands, what to print before it,
    the notes and the JSON pieces; ChoiceError for what the page would not offer."""
    is_locked = locked(ctx, recipe, r)
    profile = ctx.profiles.get(r.hardware) or {}
    pieces: dict = {}
    before: list[tuple[str, str]] = []
    notes: list[str] = []
    option = None
    store_pd = pd_store_named(ctx, r, asked.kv_offload, is_locked)
    if store_pd is not None:  # applied first: the other options edit its lines as the page does
        r = with_store(r, store_pd)
        found = pd_store_memory(ctx, r, store_pd.kv_id)
        brand = ctx.hardware(r.hardware).image_brand
        pieces["kv_store"] = pd_store_pieces(store_pd, brand, found)
        before += pd_store_before(store_pd, brand)
        if found is not None:
            notes.append(
                host_memory.pd_store_text(found)
                + " "
                + host_memory.ram_note(found["per_node_bytes"])
            )
        asked = asked._replace(kv_offload=None)
    if asked.kv_offload:
        option = option_named(options(taxonomy, ctx.strategies), asked.kv_offload, ctx.strategies)
        why = kv_offload.why_not(
            option,
            r.deploy_type,
            r.strategy,
            is_locked,
            kv_offload.recipe_blocks(recipe, taxonomy),
            profile.get("brand"),
        )
        if why:
            raise ChoiceError(f"--kv-offload {option['id']} is not offered here: {why}")
    if asked.max_model_len_auto and is_locked:
        raise ChoiceError(f"--max-model-len auto: {advanced.LOCKED_REASON}")
    image = image_choice(r, asked.image, is_locked) if asked.image else None
    store = kv_store_memory(ctx, r, the_plan, asked.kv_instances)
    if asked.kv_instances and store is None:
        raise ChoiceError(
            "--kv-instances applies to the Mooncake kv-store strategies ("
            + ", ".join(kv_store_ids(ctx.strategies))
            + f"); this rendering's strategy is {r.strategy}"
        )
    opt_lines: list[str] = []
    opt_words: list[str] = []
    exports = docker_env = None
    option_env: dict = {}
    if option is not None:
        spec = mapping(mapping(taxonomy.get("kv_offload")).get(option["id"]))
        option_env = mapping(spec.get("env"))
        tier = kv_offload.option_tier(the_plan, option, spec)
        opt_lines = [
            line.replace(kv_offload.BYTES, str(tier["config_bytes"])) if tier else line
            for line in option["lines"]
        ]
        opt_words = [w for line in opt_lines for w in shlex.split(line)]
        exports, docker_env = option["exports"], option["docker_env"]
        pieces["kv_offload"] = {
            "id": option["id"],
            "label": option["label"],
            "lines": opt_lines,
            "exports": exports,
            "docker_env": docker_env,
            "install": option["install"],
            "companion": option["tab"],
            "host_memory": tier,
        }
        if option["install"]:
            before.append(("install first", option["install"]))
        if option["tab"]:
            before.append((option["tab"]["label"], option["tab"]["text"]))
        if tier:
            notes.append(
                host_memory.offload_text(tier) + " " + host_memory.ram_note(tier["per_node_bytes"])
            )
        else:
            notes.append(
                f"{option['label']}: vLLM keeps no host tier of its own; the companion "
                "process's pool holds the host memory."
            )
    changed = bool(opt_lines or asked.max_model_len_auto or image)
    if changed and not is_locked:
        old_image = r.docker_image
        env = dict(option_env) if not set(option_env) & set(r.env) else {}
        prefix = "" if env else exports or ""
        r = with_processes(
            r,
            lambda p: _joined(
                p,
                opt_lines,
                opt_words,
                env,
                prefix,
                docker_env or [],
                image,
                old_image,
                asked.max_model_len_auto,
            ),
        )
        r = dataclasses.replace(r, env={**r.env, **env})
    if image:
        r = dataclasses.replace(r, docker_image=image)
        pieces["image"] = image
        notes.append(f"--image {image}: applies to the docker run form")
    if asked.max_model_len_auto:
        pieces["max_model_len"] = "auto"
    if store is not None:
        r = _with_instances(ctx, r, store["instances"])
        pieces["kv_store"] = store
        notes.append(
            host_memory.kv_store_text(store) + " " + host_memory.ram_note(store["per_node_bytes"])
        )
    return Applied(r, before, notes, pieces)


def pd_store_named(
    ctx: Context, r: Rendering, wanted: str | None, is_locked: bool
) -> PdStore | None:
    """The Mooncake store `--kv-offload` names on a prefill/decode rendering (a kv-store id, any
    case), or None when it names none there; ChoiceError when the rendering cannot take it."""
    if not wanted or r.deploy_type != "pd_cluster":
        return None
    ids = kv_store_ids(ctx.strategies)
    found = [s for s in ids if s == wanted] or [s for s in ids if s.lower() == wanted.lower()]
    if not found:
        return None
    store = pd_store(found[0], mapping(ctx.strategies.get(found[0])))
    if store is None:
        raise ChoiceError(f"{found[0]} gives no prefill/decode composition (its `pd:` block)")
    if is_locked:
        raise ChoiceError(f"--kv-offload {found[0]}: {advanced.LOCKED_REASON}")
    return store


def pd_store_memory(ctx: Context, r: Rendering, kv_id: str) -> dict | None:
    """host_memory.pd_store_host_memory of a PD rendering's two pools (its chosen topology)."""
    sizes = host_memory.kv_store_sizes(mapping(ctx.strategies.get(kv_id)))
    if sizes is None or r.prefill is None or r.decode is None:
        return None
    pools = (r.prefill, r.decode)
    gpus = sum(p.pool_gpus for p in pools)
    nodes = -(-sum(max(p.nodes, 0.5) for p in pools) // 1)  # two half-node pools share one
    return host_memory.pd_store_host_memory(sizes, gpus, int(nodes))


def pd_store_pieces(store: PdStore, brand: str | None, found: dict | None) -> dict:
    """The `more_options.kv_store` member of `command --json` for a PD rendering with a store."""
    return {
        "id": store.kv_id,
        "lines": {role: list(lines) for role, lines in store.lines.items()},
        "exports": store.exports,
        "docker_env": list(store.docker_lines),
        "install": store.install.get(brand or ""),
        "companions": [
            {"id": i, "label": label, "text": text} for i, label, text in companion_steps(store)
        ],
        "host_memory": found,
    }


def pd_store_before(store: PdStore, brand: str | None) -> list[tuple[str, str]]:
    """What `command` prints before the pools: the install line, then the companion steps."""
    install = store.install.get(brand or "")
    out = [("install first (every pool node)", install)] if install else []
    where = {"mooncake-config": " (every pool node)"}
    return out + [
        (label.lower() + where.get(i, ""), text) for i, label, text in companion_steps(store)
    ]


def kv_store_ids(strategies: dict) -> list[str]:
    return [s for s, spec in strategies.items() if mapping(spec).get("deploy_type") == KV_STORE]


def kv_store_memory(
    ctx: Context, r: Rendering, the_plan: dict, instances: int | None
) -> dict | None:
    """The host memory a kv-store rendering registers for `instances` (default: its own), or None
    for another layout."""
    if r.kv is None:
        return None
    spec = mapping(ctx.strategies.get(r.strategy))
    sizes = host_memory.kv_store_sizes(spec)
    if sizes is None:
        return None
    return host_memory.kv_store_host_memory(the_plan, sizes, r.kv.instances, instances)


def _with_instances(ctx: Context, r: Rendering, n: int) -> Rendering:
    """A kv-store rendering with `n` instances: its router as the page's Instances row has it."""
    assert r.kv is not None
    if n == r.kv.instances:
        return r
    spec = mapping(ctx.strategies.get(r.strategy))
    command = kv_router_command(spec, n)
    router = mapping(spec.get("router"))
    kv = dataclasses.replace(
        r.kv,
        instances=n,
        router=None
        if command is None
        else Router(command=command, install=router.get("install"), port=router.get("port")),
    )
    return dataclasses.replace(r, kv=kv)


def json_of(applied: Applied) -> dict:
    """`command --json` with the options: the rendering as joined, and the pieces."""
    return {**rendering_json(applied.rendering), "more_options": applied.pieces}


# -- the CLI's use ------------------------------------------------------------------------------

_ALONE = ("--bench", "--monitoring", "--dashboard", "--gpus")


def asked_of(args) -> Asked:
    """The row's options a `command` (or `fit`) invocation names."""
    return Asked(
        kv_offload=getattr(args, "kv_offload", None),
        image=getattr(args, "image", None),
        max_model_len_auto=getattr(args, "max_model_len", None) == "auto",
        kv_instances=getattr(args, "kv_instances", None),
    )


def run_command(ctx: Context, taxonomy: dict, doc, r: Rendering, args, rendering_text) -> int:
    """`recipes-site command` with the row's options: the joined command (`rendering_text`: cli.py's
    printer of a rendering), preceded by the option's install line and companion process; the
    host memory as notes on stderr; `--json` the joined rendering and its `more_options` pieces;
    `--k8s` the Kubernetes forms of the joined rendering (kubernetes_options.py)."""
    used = [
        flag
        for flag, on in zip(
            _ALONE,
            (args.bench, args.monitoring, args.dashboard, args.gpus is not None),
        )
        if on
    ]
    if used:
        print(
            f"recipes-site: {doc.hf_id}: --kv-offload, --image, --max-model-len auto and "
            f"--kv-instances apply to the command (--docker, --json, --k8s), not with "
            f"{', '.join(used)}",
            file=sys.stderr,
        )
        return 1
    if args.k8s and not args.json and args.kv_instances:
        print(
            f"recipes-site: {doc.hf_id}: {kubernetes_options.kv_instances_refusal()}",
            file=sys.stderr,
        )
        return 1
    profile = ctx.profiles.get(r.hardware) or {}
    p = plan.rendering_plan(plan.RecipePlans(doc.data), r, profile)
    try:
        applied = apply(ctx, doc.data, taxonomy, r, p, asked_of(args))
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(json_of(applied), indent=2, ensure_ascii=False))
        return 0
    if args.k8s:
        return _run_k8s(ctx, taxonomy, doc, r, applied)
    for note in [*r.notes, *applied.notes]:
        print(f"# note: {note}", file=sys.stderr)
    sections = [f"# {heading}\n{text}" for heading, text in applied.before]
    print("\n\n".join([*sections, rendering_text(applied.rendering, args.docker)]))
    return 0


def _run_k8s(ctx: Context, taxonomy: dict, doc, r: Rendering, applied: Applied) -> int:
    """`command --k8s` with the options: kubernetes_options.py's forms of the joined rendering,
    or the refusal of an option whose companion process has no manifest."""
    kvo = applied.pieces.get("kv_offload")
    plain = [o["id"] for o in options(taxonomy, ctx.strategies) if not (o["tab"] or o["install"])]
    why = kubernetes_options.refusal(kvo, applied.pieces.get("kv_store"), plain)
    if why:
        print(f"recipes-site: {doc.hf_id}: {why}", file=sys.stderr)
        return 1
    option_env = (
        mapping(mapping(mapping(taxonomy.get("kv_offload")).get(kvo["id"])).get("env"))
        if kvo
        else {}
    )
    try:
        forms = kubernetes_options.forms(
            doc.hf_id,
            doc.data,
            r,
            applied.rendering,
            ctx.profiles.get(r.hardware) or {},
            kvo,
            option_env,
        )
    except KubernetesError as exc:
        print(
            f"recipes-site: {doc.hf_id}: no Kubernetes form for this choice: {exc}", file=sys.stderr
        )
        return 1
    print(forms_text(forms))
    return 0


def fit_host(ctx: Context, taxonomy: dict, recipe: dict, result, kv_offload_id: str | None):
    """`fit`'s host memory: of the `--kv-offload` option's tier on the fitted command's plan,
    and of a kv-store layout's registered segments; None when there is neither. Raises
    ChoiceError for an option the page would not offer on this choice."""
    r = render_choice(ctx, recipe, result.variant, result.hardware, result.strategy, result.nodes)
    out: dict = {}
    store_pd = pd_store_named(ctx, r, kv_offload_id, locked(ctx, recipe, r))
    if store_pd is not None:
        found = pd_store_memory(ctx, r, store_pd.kv_id)
        out["kv_store"] = {"id": store_pd.kv_id, **(found or {})}
        kv_offload_id = None
    if kv_offload_id:
        profile = ctx.profiles.get(r.hardware) or {}
        option = option_named(options(taxonomy, ctx.strategies), kv_offload_id, ctx.strategies)
        why = kv_offload.why_not(
            option,
            r.deploy_type,
            r.strategy,
            locked(ctx, recipe, r),
            kv_offload.recipe_blocks(recipe, taxonomy),
            profile.get("brand"),
        )
        if why:
            raise ChoiceError(f"--kv-offload {option['id']} is not offered here: {why}")
        spec = mapping(mapping(taxonomy.get("kv_offload")).get(option["id"]))
        tier = kv_offload.option_tier(result.plan, option, spec)
        out["kv_offload"] = {"id": option["id"], **(tier or {})}
    store = kv_store_memory(ctx, r, result.plan, None)
    if store is not None:
        out["kv_store"] = store
    return out or None


def fit_host_text(found: dict | None) -> str:
    """The lines `fit` adds for `fit_host`'s figures."""
    if not found:
        return ""
    lines = []
    tier = found.get("kv_offload")
    if tier is not None:
        lines.append(
            f"KV offload {tier['id']}: "
            + (
                host_memory.offload_text(tier) + " " + host_memory.ram_note(tier["per_node_bytes"])
                if "per_gpu_bytes" in tier
                else "vLLM keeps no host tier of its own; the companion process's pool holds the "
                "host memory."
            )
        )
    store = found.get("kv_store")
    if store is not None and "id" in store:  # a store on a prefill/decode deployment
        lines.append(
            f"Mooncake store {store['id']} on both pools: "
            + host_memory.pd_store_text(store)
            + " "
            + host_memory.ram_note(store["per_node_bytes"])
        )
    elif store is not None:
        lines.append(
            "Mooncake kv-store: "
            + host_memory.kv_store_text(store)
            + " "
            + host_memory.ram_note(store["per_node_bytes"])
        )
    return "\n" + "\n".join(lines)
