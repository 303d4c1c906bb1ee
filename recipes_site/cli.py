"""The `recipes-site` command: one small function per subcommand; the work lives in the library.

Each subcommand imports the stages it runs when it runs: importing all of them (pydantic's
models, jinja, markdown-it, the process pool) takes about a quarter of a second, which
`--version`, `hardware` or a mistyped option would otherwise wait for. Nothing imports this
module, so these imports close no circle.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import stat
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

from recipes_site.catalog.diagnostics import Level, errors, summary
from recipes_site.errors import ChoiceError, DiffSourceError
from recipes_site.exits import run_cleanly
from recipes_site.hardware_list import hardware_rows, hardware_table
from recipes_site.suggest import NameIndex, did_you_mean, model_index

if TYPE_CHECKING:
    from recipes_site.synthesis.selection import Context


def _print_diagnostics(diags, files: int, strict: bool) -> int:
    for d in sorted(diags, key=lambda d: (d.path, d.line, d.col, d.key_path, d.message)):
        print(d.format())
    print(summary(diags, files))
    failing = [d for d in diags if d.level is Level.ERROR or strict]
    return 1 if failing else 0


def cmd_validate(args) -> int:
    from recipes_site.catalog import load_catalog
    from recipes_site.catalog.lint import is_project_root
    from recipes_site.catalog.report import render

    catalog, diags = load_catalog(Path(args.root), strict=args.strict)
    if catalog.benchmarks and not errors(diags):
        from recipes_site.benchmark_check import command_warnings
        from recipes_site.build import synthesis_context

        recipes = {doc.hf_id: doc.data for doc in catalog.recipes}
        diags += command_warnings(synthesis_context(catalog), recipes, catalog.benchmarks)
    kind = "project" if is_project_root(args.root) else "foreign"
    sys.stdout.write(render(diags, catalog.files_checked, args.format, root_kind=kind))
    return 1 if errors(diags) or (args.strict and diags) else 0


def _starts_as(path: Path, head: str) -> bool:
    """Whether `path` is a regular file whose first bytes are `head` (a FIFO is not waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return False
    with os.fdopen(fd, "rb") as f:
        return f.read(len(head.encode())) == head.encode()


def cmd_schema(args) -> int:
    """Writes the schema to `--output`, replacing the file (never writing through a symlink):
    an existing file that is not already a recipe schema needs --force, a symlink is refused."""
    from recipes_site.catalog.types import recipe_json_schema

    out = Path(args.output)
    text = json.dumps(recipe_json_schema(), indent=2, ensure_ascii=False) + "\n"
    head = text[: text.index('"title"')]  # `$schema` and `$id`: the file is a recipe schema
    if out.is_symlink():
        print(
            f"recipes-site: {out} is a symbolic link; refusing to write through it "
            "(remove it or name another file)",
            file=sys.stderr,
        )
        return 1
    if out.is_dir():
        print(f"recipes-site: {out} is a folder; name a file", file=sys.stderr)
        return 1
    if out.exists() and not args.force and not _starts_as(out, head):
        print(
            f"recipes-site: {out} exists and is not a recipe schema; pass --force to overwrite it",
            file=sys.stderr,
        )
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(
            tmp, out
        )  # replaces a file that appeared meanwhile, a link included, never its target
    except BaseException:
        os.unlink(tmp)
        raise
    print(f"wrote {out}")
    return 0


def cmd_build(args) -> int:
    from recipes_site.site_config import overridden

    with overridden(base_url=args.base_url, repo_url=args.repo_url):
        return _build(args)


def _build(args) -> int:
    from recipes_site.build import build
    from recipes_site.site_config import CONFIG_FILE, check_site_config, site_config

    config = site_config(Path(args.root))
    if not check_site_config(Path(args.root))[1]:  # an invalid file: the build reports it below
        where = f"set base_url in {Path(args.root) / CONFIG_FILE} or pass --base-url"
        if not config.published and args.publish:
            print(
                f"recipes-site: --publish needs the site's base URL: {where}; nothing written",
                file=sys.stderr,
            )
            return 2
        if not config.published:
            print(
                f"recipes-site: warning: no base URL ({where}): building a local preview: no canonical URLs, "
                "a sitemap.xml of site paths only, root-relative llms.txt links, API schemas without $id",
                file=sys.stderr,
            )
        if not config.repo_url:
            print(
                "recipes-site: warning: no repo_url: pages get no edit, request or source links",
                file=sys.stderr,
            )
    started = time.perf_counter()
    result = build(Path(args.root), Path(args.out))
    code = _print_diagnostics(result.diagnostics, result.files_checked, strict=False)
    if result.ok:
        print(
            f"built {len(result.recipes)} recipes into {args.out}/ "
            f"({result.files_written} files, {time.perf_counter() - started:.2f}s)"
        )
    else:
        print(f"build failed: nothing written, {args.out}/ left as it was", file=sys.stderr)
    return code


def cmd_serve(args) -> int:
    from recipes_site.serve import serve
    from recipes_site.site_config import overridden

    # a preview server's pages point at the server itself unless --base-url says otherwise
    with overridden(
        base_url=args.base_url or f"http://{args.host}:{args.port}", repo_url=args.repo_url
    ):
        return serve(Path(args.root), Path(args.out), port=args.port, host=args.host)


def _find_recipe(catalog, wanted: str):
    """A recipe by its id, or by a checkpoint one of its variants serves (case-insensitive)."""
    low = wanted.lower()
    for doc in catalog.recipes:
        if doc.hf_id.lower() == low:
            return doc, None
    for doc in catalog.recipes:
        for key, variant in (doc.data.get("variants") or {}).items():
            if str((variant or {}).get("model_id", "")).lower() == low:
                return doc, key
    return None, None


def _rendering_text(r, docker: bool) -> str:
    from recipes_site.synthesis.shell import export_lines, heredoc

    pick = (lambda p: p.docker_command) if docker else (lambda p: p.command)
    env = "" if docker else export_lines(r.env)
    if r.single:
        return env + pick(r.single)
    if r.head:
        parts = [f"# head node (rank 0)\n{env}{pick(r.head)}"]
        parts += [f"# worker node (rank {i})\n{env}{pick(w)}" for i, w in enumerate(r.workers, 1)]
        return "\n\n".join(parts)
    if r.prefill:
        role_env = lambda p: "" if docker else export_lines(p.env)
        parts = []
        for role, pool in (("prefill", r.prefill), ("decode", r.decode)):
            where = f", node 1 of {pool.nodes}" if pool.workers else ""
            parts.append(f"# {role} pool{where}\n{role_env(pool.process)}{pick(pool.process)}")
            parts += [
                f"# {role} pool, node {i} of {pool.nodes}\n{role_env(w)}{pick(w)}"
                for i, w in enumerate(pool.workers, 2)
            ]
        return "\n\n".join([*parts, f"# router\n{r.router.install}\n{r.router.command}"])
    kv = r.kv
    parts = []
    if kv.config:  # the same Mooncake config step as the page and --json (mooncake_config)
        parts.append(
            f"# mooncake config (every vLLM node)\n{heredoc('$MOONCAKE_CONFIG_PATH', kv.config, kv.config_note)}"
        )
    parts.append(f"# mooncake master\n{kv.master.get('command') if kv.master else ''}")
    if kv.store:
        store_config = kv.store.get("config")
        prefix = (
            heredoc("$MOONCAKE_STORE_CONFIG_PATH", store_config, kv.store.get("note")) + "\n"
            if isinstance(store_config, dict)
            else ""
        )
        parts.append(f"# mooncake store\n{prefix}{kv.store.get('command')}")
    parts.append(f"# vLLM instance ({kv.instances}x)\n{kv.install or ''}\n{env}{pick(kv.head)}")
    parts += [
        f"# instance worker node (rank {i})\n{env}{pick(w)}" for i, w in enumerate(kv.workers, 1)
    ]
    if kv.router:
        parts.append(f"# router\n{kv.router.install}\n{kv.router.command}")
    return "\n\n".join(parts)


def _load_recipe(args):
    """(catalog, recipe, variant, explicit) for `command` and `fit`, or None after printing why not.

    `explicit`: the person named the variant (`--variant`, or a checkpoint only that variant serves)."""
    from recipes_site.catalog import load_catalog

    catalog, diags = load_catalog(Path(args.root))
    doc, checkpoint_variant = _find_recipe(catalog, args.model)
    if doc is None:
        hint = did_you_mean(model_index(catalog).suggest(args.model))
        print(
            f"recipes-site: no recipe or checkpoint named {args.model!r} under {args.root}{hint}",
            file=sys.stderr,
        )
        return None
    bad = [d for d in errors(diags) if d.path == doc.display_path]
    for d in bad:
        print(d.format(), file=sys.stderr)
    if bad:
        return None
    variant = args.variant or checkpoint_variant
    return catalog, doc, variant or "default", variant is not None


def _variant_kept(ctx, doc, asked: str, explicit: bool, rendered: str, hw_id: str) -> bool:
    """An explicit variant is never silently replaced: False (after saying why) when a box that cannot
    be clustered made synthesis swap it; an implied one is swapped with a note."""
    if rendered == asked:
        return True
    from recipes_site.synthesis.selection import substitution_reason

    reason = substitution_reason(doc.data, asked, ctx.hardware(hw_id))
    if explicit:
        print(f"recipes-site: {doc.hf_id}: {reason}", file=sys.stderr)
        return False
    print(f"# note: {reason}; showing variant {rendered!r}", file=sys.stderr)
    return True


def _known_id(kind: str, wanted: str | None, known, listing: str) -> str | None:
    """`wanted` as the id it names among `known`: the id itself, or the one id it equals ignoring
    case (as model ids are matched). Raises ChoiceError with a did-you-mean for any other."""
    if wanted is None or wanted in known:
        return wanted
    same = [name for name in known if name.lower() == wanted.lower()]
    if len(same) == 1:
        return same[0]
    hint = did_you_mean(NameIndex(known).suggest(wanted))
    raise ChoiceError(f"unknown {kind} {wanted!r}{hint}; {listing}")


def _choice_ids(ctx: Context, args) -> tuple[str | None, str | None]:
    """(hardware, strategy) of `command` and `fit`, resolved the same way for both."""
    hardware = _known_id(
        "hardware", args.hardware, ctx.profiles, "`recipes-site hardware` lists the profiles"
    )
    strategy = _known_id(
        "strategy", args.strategy, ctx.strategies, f"strategies: {', '.join(ctx.strategies)}"
    )
    return hardware, strategy


def _site_default_hardware(catalog, ctx: Context, doc, variant: str) -> str | None:
    """The hardware the site's pages open `variant` on when the recipes root's recipes-site.yaml
    sets `default_hardware: smallest_fit` (runs_on.py), so `command` and `fit` without
    --hardware answer for the profile the page shows; None keeps render_choice's reference rule."""
    from recipes_site.build import synthesized
    from recipes_site.site_config import SMALLEST_FIT, site_config

    config = site_config(catalog.root)
    if config.default_hardware != SMALLEST_FIT:
        return None
    rec = synthesized(catalog, ctx, doc, config)
    return next((t.default_hardware for t in rec.rendered.trees if t.variant == variant), None)


def cmd_command(args) -> int:
    from recipes_site.build import synthesis_context
    from recipes_site.render.rendering_json import rendering_json
    from recipes_site.synthesis import render_choice

    loaded = _load_recipe(args)
    if loaded is None:
        return 1
    catalog, doc, variant, explicit = loaded
    ctx = synthesis_context(catalog)
    features = None
    if args.features is not None:
        features = {}
        for item in filter(None, (part.strip() for part in args.features.split(","))):
            name, _, mode = item.partition(":")
            features[name] = mode or None
    try:
        hardware, strategy = _choice_ids(ctx, args)
        hardware = hardware or _site_default_hardware(catalog, ctx, doc, variant)
        r = render_choice(ctx, doc.data, variant, hardware, strategy, args.nodes, features)
        asked = _pd_asked(args)
        if asked:
            from recipes_site.pd_topology import topology_rendering

            r = topology_rendering(ctx, doc.data, r, asked, features)
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    if not _variant_kept(ctx, doc, variant, explicit, r.variant, r.hardware):
        return 1
    from recipes_site import more_options

    if more_options.asked_of(args).any:  # the page's "More options" row
        return more_options.run_command(ctx, catalog.taxonomy, doc, r, args, _rendering_text)
    if args.bench:
        print(_bench_text(ctx, doc.data, r))
        return 0
    if args.monitoring or args.dashboard:
        return _monitoring(ctx, doc, r, args)
    if args.gpus is not None:
        return _gpus_command(ctx, doc, r, args)
    if args.json:
        print(json.dumps(rendering_json(r), indent=2, ensure_ascii=False))
    elif args.k8s:
        from recipes_site.kubernetes import KubernetesError

        try:
            print(_kubernetes_text(ctx, doc, r))
        except KubernetesError as exc:
            print(
                f"recipes-site: {doc.hf_id}: no Kubernetes form for this choice: {exc}",
                file=sys.stderr,
            )
            return 1
    else:
        for note in r.notes:
            print(f"# note: {note}", file=sys.stderr)
        print(_rendering_text(r, args.docker))
    return 0


def _pd_asked(args) -> dict[str, dict]:
    """The pool layouts `command --prefill-nodes/--prefill-mode/--decode-...` asks for."""
    asked: dict[str, dict] = {}
    for role in ("prefill", "decode"):
        nodes, mode = getattr(args, f"{role}_nodes"), getattr(args, f"{role}_mode")
        if nodes is not None or mode is not None:
            asked[role] = {"nodes": nodes, "mode": mode}
    return asked


def _gpus_command(ctx, doc, r, args) -> int:
    """`command --gpus N`: the rendering laid out on N GPUs (gpu_counts.py), one command or a copy
    per replica."""
    from recipes_site.fit_report import gpu_layout, layout_replicas
    from recipes_site.gpu_counts import layout_command, layout_docker_command
    from recipes_site.render.rendering_json import rendering_json
    from recipes_site.synthesis.shell import export_lines

    try:
        layout, member = gpu_layout(ctx, doc.data, r, args.gpus)
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    proc, profile = r.single, ctx.profiles.get(r.hardware) or {}
    command = layout_command(proc.command, member, args.gpus)
    docker_command = layout_docker_command(proc.docker_command, proc.command, member, args.gpus)
    exports = "" if args.docker else export_lines(r.env)
    replicas = layout_replicas(r, layout, member, profile, args.docker, exports)
    if args.json:
        out = rendering_json(r)
        out.update(
            command=command,
            argv=list(layout.argv),
            docker_command=docker_command,
            docker_argv=list(r.single.docker_argv[: len(r.single.docker_argv) - len(proc.argv) + 3])
            + list(layout.argv[3:]),
            gpus=dict(member, **({"replica_commands": replicas} if replicas else {})),
        )
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(f"# note: --gpus {args.gpus}: {layout.reason}", file=sys.stderr)
    if replicas:
        print(
            "\n\n".join(
                f"# copy {i}: {c['label']}, port {c['port']}\n{c['command']}"
                for i, c in enumerate(replicas, 1)
            )
        )
    else:
        print(docker_command if args.docker else exports + command)
    return 0


def _sweep(ctx: Context, recipe: dict, r) -> tuple[dict, dict, str | None]:
    """The rendering's plan, its snippets (verification.py) and why it has no bench sweep (None
    when it has one): what `command --bench` and `bench plan` print."""
    from recipes_site import plan, verification

    profile = ctx.profiles.get(r.hardware) or {}
    p = plan.rendering_plan(plan.RecipePlans(recipe), r, profile)
    v = verification.verification(recipe, r, profile, p)
    if v["bench"]:
        return p, v, None
    return (
        p,
        v,
        "this command cannot start here" if not plan.holds(p) else "no random dataset for audio",
    )


def _bench_text(ctx: Context, recipe: dict, r) -> str:
    """`command --bench`: the curl that proves the server answers, then the concurrency sweep."""
    from recipes_site import plan

    p, v, why = _sweep(ctx, recipe, r)
    out = f"# verify: the server answers\n{v['curl']}"
    if why is None:
        profile = ctx.profiles.get(r.hardware) or {}
        parts = plan.replica_parts(r, p, profile)
        copies = (
            f" (the throughput plan runs {len(parts['replicas'])}; sweep one, or each on its port)"
            if parts
            else ""
        )
        return out + f"\n\n# bench: one copy of the command{copies}\n{v['bench']}"
    return out + f"\n\n# no bench sweep: {why}"


def _monitoring(ctx: Context, doc, r, args) -> int:
    """`command --monitoring`: the rendering's Prometheus rules on stdout; `--dashboard FILE` writes
    its Grafana dashboard (`-`: prints it instead of the rules)."""
    from recipes_site import monitoring, plan

    p = plan.rendering_plan(plan.RecipePlans(doc.data), r, ctx.profiles.get(r.hardware) or {})
    found = monitoring.rendering_monitoring(doc.hf_id, r, p)
    dashboard = monitoring.dashboard_text(found["grafana_dashboard"])
    if args.dashboard == "-":
        print(dashboard, end="")
        return 0
    if args.dashboard:
        out = Path(args.dashboard)
        if out.is_symlink() or out.is_dir():
            print(f"recipes-site: {out} is not a regular file; name another", file=sys.stderr)
            return 1
        out.write_text(dashboard, encoding="utf-8")
        print(f"# wrote the Grafana dashboard to {out}", file=sys.stderr)
    print(found["prometheus_rules"], end="")
    return 0


def _kubernetes_text(ctx, doc, r) -> str:
    """`command --k8s`: the rendering's manifests, Helm values and checklist (kubernetes.py)."""
    from recipes_site import plan
    from recipes_site.kubernetes import forms_text, rendering_forms

    forms = rendering_forms(
        doc.hf_id, doc.data, r, ctx.profiles.get(r.hardware) or {}, plan.RecipePlans(doc.data)
    )
    return forms_text(forms)


def cmd_fit(args) -> int:
    from recipes_site.build import synthesis_context
    from recipes_site.fit_checks import fit_request_problems
    from recipes_site.fit_report import fit_choice, fit_text

    loaded = _load_recipe(args)
    if loaded is None:
        return 1
    catalog, doc, variant, explicit = loaded
    if args.gpus is not None and args.tp is not None:
        print(
            "recipes-site: --gpus picks the tensor-parallel size that fits; give --gpus or --tp",
            file=sys.stderr,
        )
        return 1
    ctx = synthesis_context(catalog)
    try:
        hardware, strategy = _choice_ids(ctx, args)
        hardware = hardware or _site_default_hardware(catalog, ctx, doc, variant)
        result = fit_choice(
            ctx,
            doc.data,
            variant,
            hardware,
            strategy,
            args.nodes,
            tp=args.tp,
            max_model_len=args.max_model_len,
            concurrency=args.concurrency,
            kv_cache_dtype=args.kv_cache_dtype,
            gpu_memory_utilization=args.gpu_memory_utilization,
            gpus=args.gpus,
        )
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    if not _variant_kept(ctx, doc, variant, explicit, result.variant, result.hardware):
        return 1
    problems = fit_request_problems(
        doc.data,
        ctx.profiles.get(result.hardware) or {},
        result.hardware,
        result.nodes,
        tp=result.shape.tp,
        pp=result.shape.pp,
        max_model_len=args.max_model_len,
    )
    for problem in problems:
        print(f"recipes-site: {doc.hf_id}: {problem}", file=sys.stderr)
    if problems:
        return 1
    from recipes_site import more_options

    try:  # host memory of a KV-offload tier or a Mooncake kv-store layout
        host = more_options.fit_host(ctx, catalog.taxonomy, doc.data, result, args.kv_offload)
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    print(
        json.dumps(
            {**result.as_dict(), **({"host_memory": host} if host else {})},
            indent=2,
            ensure_ascii=False,
        )
        if args.json
        else fit_text(result) + more_options.fit_host_text(host)
    )
    return 0


def _result_date(result: dict) -> str | None:
    """YYYY-MM-DD of `vllm bench serve`'s "date" (YYYYMMDD-HHMMSS), or None."""
    raw = str(result.get("date") or "")
    return f"{raw[:4]}-{raw[4:6]}-{raw[6:8]}" if raw[:8].isdigit() else None


def _mean_length(result: dict, key: str) -> int | None:
    lengths = result.get(key)
    if isinstance(lengths, list) and lengths and all(isinstance(n, int) for n in lengths):
        return round(sum(lengths) / len(lengths))
    return None


def cmd_bench_plan(args) -> int:
    """`bench plan`: the concurrency sweep to run against one rendering (verification.py, the
    same sweep the page's Bench panel shows), then how to import each result it saves."""
    from recipes_site.build import synthesis_context
    from recipes_site.synthesis import render_choice

    loaded = _load_recipe(args)
    if loaded is None:
        return 1
    catalog, doc, variant, explicit = loaded
    ctx = synthesis_context(catalog)
    try:
        hardware, strategy = _choice_ids(ctx, args)
        # no optional feature on: the serving flags benchmark_check compares a result with
        r = render_choice(ctx, doc.data, variant, hardware, strategy, args.nodes, {})
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    if not _variant_kept(ctx, doc, variant, explicit, r.variant, r.hardware):
        return 1
    _p, v, why = _sweep(ctx, doc.data, r)
    if why is not None:
        print(f"recipes-site: {doc.hf_id}: no sweep: {why}", file=sys.stderr)
        return 1
    strategy_flag = f" --strategy {shlex.quote(r.strategy)}" if strategy else ""
    print(f"# 1. start the server (no optional feature on):\n{_rendering_text(r, False)}\n")
    print(f"# 2. run the sweep (one result file per concurrency level):\n{v['bench']}\n")
    print(
        "# 3. import each result (label verified needs the image digest you ran):\n"
        f"for c in {' '.join(str(n) for n in v['levels'])}; do\n"
        f'  recipes-site bench import "bench-c$c.json" --hardware {shlex.quote(r.hardware)} '
        f"--variant {shlex.quote(r.variant)}{strategy_flag} --label verified \\\n"
        '    --run-by "$USER" --vllm-version "$(vllm --version)" --image-digest "$DIGEST"\n'
        "done"
    )
    return 0


def cmd_bench_import(args) -> int:
    from recipes_site.bench_files import Imported, build_document, destination, result_name, write
    from recipes_site.benchmark_check import differences
    from recipes_site.build import synthesis_context
    from recipes_site.catalog import load_catalog
    from recipes_site.synthesis import render_choice

    try:
        result = json.loads(Path(args.result).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"recipes-site: cannot read {args.result}: {exc}", file=sys.stderr)
        return 1
    if not isinstance(result, dict):
        print(f"recipes-site: {args.result} is not a `vllm bench serve` result", file=sys.stderr)
        return 1
    catalog, _ = load_catalog(Path(args.root))
    wanted = args.model or str(result.get("model_id") or "")
    doc, checkpoint_variant = _find_recipe(catalog, wanted)
    if doc is None:
        hint = did_you_mean(model_index(catalog).suggest(wanted))
        print(f"recipes-site: no recipe serves {wanted!r}{hint}; pass --model", file=sys.stderr)
        return 1
    ctx = synthesis_context(catalog)
    variant = args.variant or checkpoint_variant or "default"
    try:
        hardware, strategy = _choice_ids(ctx, args)
        assert hardware is not None  # --hardware is required
        rendering = render_choice(ctx, doc.data, variant, hardware, strategy, features={})
        process = rendering.single or rendering.head
        ours = list(process.argv) if process else []
        command = args.command or (shlex.join(ours) if ours else None)
        if args.command is None:
            print(
                "# note: provenance.command is the rendered command; pass --command if the "
                "run used another",
                file=sys.stderr,
            )
        found = differences(ours, shlex.split(command)) if command and ours else ()
        for difference in found:
            print(f"# differs from the rendering: {difference}", file=sys.stderr)
        provenance = {
            "label": args.label,
            "published_by": args.published_by,
            "run_by": args.run_by,
            "source_url": args.source_url,
            "date": args.date or _result_date(result),
            "vllm_version": args.vllm_version,
            "image": args.image,
            "image_digest": args.image_digest,
            "variant": variant,
            "strategy": strategy,
            "gpus": args.gpus,
            "command": command,
            "differences": list(found) or None,
            "workload": {
                "dataset": args.dataset,
                "input_len": args.input_len or _mean_length(result, "input_lens"),
                "output_len": args.output_len or _mean_length(result, "output_lens"),
            },
        }
        provenance = {k: v for k, v in provenance.items() if v is not None}
        document = build_document(result, provenance)
        path = destination(Path(args.root), doc.hf_id, hardware, args.name or result_name(result))
        write(Imported(path, document), overwrite=args.force)
    except ChoiceError as exc:
        print(f"recipes-site: {doc.hf_id}: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


def cmd_new(args) -> int:
    from recipes_site.scaffold import write_scaffold

    try:
        path, result = write_scaffold(
            Path(args.root),
            args.model,
            Path(args.config) if args.config else None,
            force=args.force,
        )
    except FileExistsError as exc:
        print(f"recipes-site: {exc} exists; pass --force to overwrite it", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"recipes-site: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    for note in result.notes:
        print(f"note: {note}")
    print("next: fill in the TODOs, then `recipes-site validate --strict`")
    return 0


def cmd_diff(args) -> int:
    """Build both sides into a private temporary folder, compare their API trees, print the report."""
    from recipes_site.diff import REPORTS, diff_trees, load_api_tree
    from recipes_site.diff_sources import built_site

    root = Path(args.root)
    with tempfile.TemporaryDirectory(prefix="recipes-site-diff-") as work:
        try:
            base = built_site(args.base, root, Path(work), "base")
            head = built_site(args.head, root, Path(work), "head")
        except DiffSourceError as exc:
            print(f"recipes-site diff: {exc}", file=sys.stderr)
            return 2
        result = diff_trees(
            load_api_tree(base), load_api_tree(head), args.base, args.head or "working tree"
        )
    sys.stdout.write(REPORTS[args.format](result))
    return 1 if args.exit_code and not result.empty else 0


def cmd_hardware(args) -> int:
    from recipes_site.catalog import load_catalog

    catalog, _ = load_catalog(Path(args.root))
    rows = hardware_rows(catalog.hardware_profiles())
    print(json.dumps(rows, indent=2, ensure_ascii=False) if args.json else hardware_table(rows))
    return 0


def _version() -> str:
    try:
        return version("recipes-site")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _whole(text: str, least: int, message: str) -> int:
    """A whole number of at least `least`, else argparse's error (`message` names `text` at {!r});
    argparse prefixes the message with the option."""
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(message.format(text))
    return value


def _positive_int(text: str) -> int:
    """A count or size on the command line."""
    return _whole(text, 1, "expected a positive whole number, got {!r}")


def _node_count(text: str) -> int:
    """A pool's node count: 0 (half of one node) or more."""
    return _whole(text, 0, "expected a node count, 0 or more; got {!r}")


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(
            f"expected a fraction above 0 and at most 1 (such as 0.9), got {text!r}"
        )
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(
            f"expected a port number from 0 to 65535 (0: any free port), got {text!r}"
        )
    return value


def _choice_arguments(p: argparse.ArgumentParser) -> None:
    """The model/hardware/variant/strategy/nodes choice shared by `command` and `fit`."""
    p.add_argument("model", metavar="ORG/REPO", help="recipe id or a variant's checkpoint id")
    p.add_argument("--root", default=".", help="recipes root; default .")
    p.add_argument(
        "--hardware",
        help="hardware profile id, as `recipes-site hardware` lists them "
        "(default: the variant's default hardware)",
    )
    p.add_argument(
        "--variant",
        help="variant key (default: default); refused, never swapped for another, "
        "when it does not fit the hardware",
    )
    p.add_argument("--strategy", help="strategy id (default: the recommended one)")
    p.add_argument("--nodes", type=_positive_int, help="node count for multi-node strategies")
    p.add_argument(
        "--gpus",
        type=_positive_int,
        help="the GPUs you have of one node: the smallest tensor-parallel size that fits, "
        "replicas on the rest (single-node tensor-parallel commands)",
    )


def _instances(text: str) -> int:
    """--kv-instances: 1..16, as the page's Instances row (render/advanced.py MAX_INSTANCES)."""
    from recipes_site.render.advanced import MAX_INSTANCES

    n = _positive_int(text)
    if n > MAX_INSTANCES:
        raise argparse.ArgumentTypeError(f"at most {MAX_INSTANCES} instances, not {n}")
    return n


def _more_arguments(p: argparse.ArgumentParser) -> None:
    """`command`'s options of the page's "More options" row (recipes_site/more_options.py)."""
    p.add_argument(
        "--kv-offload",
        metavar="ID",
        help="add a KV-offload option (simple, offloading_cpu, offloading_fs, lmcache): its "
        "connector config sized for this command, env, install line and companion process; "
        "with --strategy pd_cluster a Mooncake store (kv_store_distributed_mooncake, "
        "kv_store_centralized_mooncake) shared by both pools",
    )
    p.add_argument(
        "--image",
        metavar="TAG",
        help="container image of the docker run form (and of --k8s), among the labelled "
        "choices of the rendering's image family (e.g. vllm/vllm-openai:latest-cu129)",
    )
    p.add_argument(
        "--max-model-len",
        choices=["auto"],
        help="auto: vLLM starts from the model's window and lowers it to what the KV cache holds",
    )
    p.add_argument(
        "--kv-instances",
        type=_instances,
        metavar="N",
        help="vLLM instances of a Mooncake kv-store strategy (1-16): the router in front of them",
    )


def _url_type(origin_only: bool):
    """An argparse type for a URL flag, checked as site_config checks the file's URLs
    (`origin_only`: serve's --base-url, since the preview server serves its site at the root)."""

    def checked(text: str) -> str:
        from recipes_site.site_config import url_problem

        problem = url_problem(text, origin_only=origin_only)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return text

    return checked


_site_url = _url_type(origin_only=False)  # build's --base-url, --repo-url
_server_url = _url_type(origin_only=True)


def _site_arguments(p: argparse.ArgumentParser, serve: bool = False) -> None:
    """--base-url / --repo-url: override recipes-site.yaml (see site_config.py)."""
    p.add_argument(
        "--base-url",
        type=_server_url if serve else _site_url,
        metavar="URL",
        help="absolute URL the site is published at (canonical URLs, sitemap, llms.txt, schema $ids); "
        + (
            "default: the server's own address"
            if serve
            else "default: base_url in recipes-site.yaml"
        ),
    )
    p.add_argument(
        "--repo-url",
        type=_site_url,
        metavar="URL",
        help="repository for edit and request links; default: repo_url in recipes-site.yaml",
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="recipes-site", description="vLLM serving recipes: validate, build, query."
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    v = sub.add_parser(
        "validate", help="check every file of a recipes root and report all problems"
    )
    v.add_argument(
        "root", nargs="?", default=".", help="recipes root (folder holding models/); default ."
    )
    v.add_argument(
        "--strict",
        action="store_true",
        help="fail on warnings too; on a project root the contributor checks become errors",
    )
    v.add_argument(
        "--format",
        choices=["text", "github", "json"],
        default="text",
        help="text lines (default), GitHub Actions annotations, or one JSON document",
    )
    v.set_defaults(func=cmd_validate)

    s = sub.add_parser("schema", help="write the recipe JSON Schema for editors")
    s.add_argument(
        "--output",
        default="schema/recipe.schema.json",
        help="file to write; default schema/recipe.schema.json (a file that is not already a "
        "recipe schema is replaced only with --force; a symbolic link never)",
    )
    s.add_argument(
        "--force", action="store_true", help="replace an existing file that is not a recipe schema"
    )
    s.set_defaults(func=cmd_schema)

    b = sub.add_parser("build", help="validate, size, synthesize and write the site + JSON API")
    b.add_argument(
        "root", nargs="?", default=".", help="recipes root (folder holding models/); default ."
    )
    b.add_argument(
        "--out", default="_site", help="output folder (replaced atomically); default _site"
    )
    _site_arguments(b)
    b.add_argument(
        "--publish",
        action="store_true",
        help="a build for publishing: refuse to build without a base URL",
    )
    b.set_defaults(func=cmd_build)

    sv = sub.add_parser(
        "serve", help="build, serve the site on 127.0.0.1 and rebuild when a recipe changes"
    )
    sv.add_argument(
        "root", nargs="?", default=".", help="recipes root (folder holding models/); default ."
    )
    sv.add_argument("--out", default="_site", help="output folder; default _site")
    sv.add_argument("--port", type=_port, default=8000, help="port to listen on; default 8000")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on; default 127.0.0.1")
    _site_arguments(sv, serve=True)
    sv.set_defaults(func=cmd_serve)

    c = sub.add_parser("command", help="print the command for one model and hardware")
    _choice_arguments(c)
    c.add_argument(
        "--features",
        metavar="LIST",
        help="the full feature set, e.g. 'tool_calling,spec_decoding:mtp' ('' for none); "
        "default: the recipe's default features",
    )
    for role in ("prefill", "decode"):
        c.add_argument(
            f"--{role}-nodes",
            type=_node_count,
            metavar="N",
            help=f"--strategy pd_cluster: nodes of the {role} pool (0: half of one node)",
        )
        c.add_argument(
            f"--{role}-mode",
            metavar="MODE",
            help=f"--strategy pd_cluster: the {role} pool's layout, tp, tep or dep "
            "(those the recipe allows)",
        )
    c.add_argument("--docker", action="store_true", help="print the docker run form")
    c.add_argument("--json", action="store_true", help="print the rendering as JSON")
    c.add_argument(
        "--bench",
        action="store_true",
        help="print a curl that proves the server answers and a vllm bench serve sweep over "
        "concurrency up to what the KV cache holds",
    )
    c.add_argument(
        "--monitoring", action="store_true", help="print the Prometheus alert rules of the command"
    )
    c.add_argument(
        "--dashboard",
        metavar="FILE",
        help="write the command's Grafana dashboard (JSON) to FILE; '-' prints it",
    )
    c.add_argument(
        "--k8s",
        action="store_true",
        help="print its Kubernetes manifests, Helm values and prerequisites (with --image, "
        "--max-model-len auto or an offload option that has no companion process)",
    )
    _more_arguments(c)
    c.set_defaults(func=cmd_command)

    f = sub.add_parser("fit", help="KV-cache-aware sizing of one model on one hardware profile")
    _choice_arguments(f)
    f.add_argument(
        "--tp",
        type=_positive_int,
        help="tensor-parallel size (default: the rendered command's); at most the GPUs "
        "of the deployment's nodes",
    )
    f.add_argument(
        "--max-model-len",
        type=_positive_int,
        help="request length for the concurrency figures; at most the model's context",
    )
    f.add_argument(
        "--concurrency",
        type=_positive_int,
        help="concurrent requests: the longest length they fit at",
    )
    f.add_argument(
        "--kv-cache-dtype", choices=["auto", "fp8"], help="KV cache dtype (default: the command's)"
    )
    f.add_argument(
        "--gpu-memory-utilization",
        type=_fraction,
        help="fraction of GPU memory for vLLM (default: the command's, else vLLM's 0.92)",
    )
    f.add_argument("--json", action="store_true", help="print one JSON object")
    f.add_argument(
        "--kv-offload",
        metavar="ID",
        help="report the host memory of this KV-offload option (or PD Mooncake store)",
    )
    f.set_defaults(func=cmd_fit)

    bench = sub.add_parser("bench", help="benchmark results: import one, plan a sweep")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True)
    bp = bench_sub.add_parser(
        "plan", help="print the vllm bench serve sweep to run for one rendering, and its import"
    )
    _choice_arguments(bp)
    bp.set_defaults(func=cmd_bench_plan)
    bi = bench_sub.add_parser(
        "import",
        help="write a `vllm bench serve --save-result` file to benchmarks/<org>/<repo>/<hw>/",
    )
    bi.add_argument("result", help="the JSON file `vllm bench serve --save-result` wrote")
    bi.add_argument("--root", default=".", help="recipes root; default .")
    bi.add_argument("--hardware", required=True, help="hardware profile id it ran on")
    bi.add_argument("--variant", help="recipe variant; default: the one serving model_id")
    bi.add_argument("--strategy", help="strategy id, when not the default")
    bi.add_argument("--model", help="ORG/REPO of the recipe; default: the result's model_id")
    bi.add_argument(
        "--label",
        required=True,
        choices=("verified", "community", "published"),
        help="verified: run by this project; community: anyone, with a public source; "
        "published: by the vendor or project named in --published-by",
    )
    bi.add_argument("--run-by", required=True, help="who ran it")
    bi.add_argument("--published-by", help="the publisher (label published)")
    bi.add_argument("--source-url", help="the public page with these numbers (https)")
    bi.add_argument("--vllm-version", required=True, help="vLLM release measured, e.g. 0.33.0")
    bi.add_argument("--date", help="YYYY-MM-DD; default: the result's date")
    bi.add_argument("--image", help="container image, e.g. vllm/vllm-openai:v0.33.0")
    bi.add_argument("--image-digest", help="sha256:... of the image (label verified)")
    bi.add_argument("--gpus", type=_positive_int, help="GPUs the server used")
    bi.add_argument("--command", help="the exact `vllm serve` command; default: the rendered one")
    bi.add_argument("--dataset", default="random", help="--dataset-name of the run; default random")
    bi.add_argument("--input-len", type=_positive_int, help="prompt tokens per request")
    bi.add_argument("--output-len", type=_positive_int, help="output tokens per request")
    bi.add_argument("--name", help="file name without .json; default c<concurrency>-<date>")
    bi.add_argument("--force", action="store_true", help="replace an existing file")
    bi.set_defaults(func=cmd_bench_import)

    h = sub.add_parser("hardware", help="list the hardware profiles: id, name, GPUs and memory")
    h.add_argument("--root", default=".", help="recipes root whose taxonomy to read; default .")
    h.add_argument("--json", action="store_true", help="print the list as JSON")
    h.set_defaults(func=cmd_hardware)

    n = sub.add_parser("new", help="scaffold models/ORG/REPO.yaml, filled from a config.json")
    n.add_argument("model", metavar="ORG/REPO", help="Hugging Face id of the model")
    n.add_argument("--config", metavar="config.json", help="the model's Hugging Face config.json")
    n.add_argument("--root", default=".", help="recipes root to write into; default .")
    n.add_argument("--force", action="store_true", help="overwrite an existing recipe")
    n.set_defaults(func=cmd_new)

    d = sub.add_parser(
        "diff",
        help="everything published (commands, verdicts, fields) that differs between two versions",
    )
    d.add_argument(
        "base", metavar="BASE", help="git ref of the recipes root, a recipes root, or a built site"
    )
    d.add_argument(
        "head", metavar="HEAD", nargs="?", help="the same kinds as BASE; default: the working tree"
    )
    d.add_argument(
        "--root", default=".", help="recipes root whose repository the refs name; default ."
    )
    d.add_argument(
        "--format",
        choices=["text", "json", "markdown"],
        default="text",
        help="report format; default text",
    )
    d.add_argument(
        "--exit-code", action="store_true", help="exit 1 when anything differs (like git diff)"
    )
    d.set_defaults(func=cmd_diff)
    return p


# Commands whose recipes root is the --root option (the others take it as their first argument).
ROOT_OPTION = ("command", "fit", "hardware", "new", "diff")


def missing_input(args) -> str | None:
    """What is missing among the folders and files the command line names, for one line, before
    the command runs: otherwise a mistyped path surfaces as "no recipe named ..." or an empty
    listing. `validate` reports a missing root in its own report (text, GitHub or JSON)."""
    root = getattr(args, "root", None)
    if root is not None and args.cmd != "validate" and not Path(root).is_dir():
        named = "--root" if args.cmd in ROOT_OPTION else "recipes root"
        return f"{named} {root}: no such folder"
    config = getattr(args, "config", None)
    if config is not None and not os.path.lexists(config):
        return f"--config {config}: no such file"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run one command; `argv` None: this process's own command line (the console script,
    `python -m recipes_site`)."""
    args = parser().parse_args(argv)
    missing = missing_input(args)
    if missing is not None:
        print(f"recipes-site: error: {missing}", file=sys.stderr)
        return 1
    try:  # OS errors, refusals, Ctrl-C, SIGTERM: one line, no traceback
        return run_cleanly(args.func, args)
    except BrokenPipeError:  # `recipes-site command ... | head`: the reader left; not our error
        sys.stderr.close()
        return 0
