"""The picker parts inside the API hardware documents, joined by the page's rule, give exactly
the engine's command for any feature selection (the page never computes a flag)."""

from __future__ import annotations

import itertools

import pytest

from recipes_site.build import synthesis_context
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render.api import RecipeInput, hardware_docs
from recipes_site.render.picker import picker_summary
from recipes_site.synthesis import render_choice, synthesize_recipe

SEP = " \\\n  "


def get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


def assemble(
    rendering: dict, part: dict, features: list[dict], selection: dict, docker: bool = False
) -> str:
    """The page script's rule (site.js), restated: slice around the feature block, join."""
    body = get(rendering, part["path"]).split(SEP)
    lines = body[1 : 1 + part["at"]]
    for f in features:
        if f["name"] in selection:
            lines += (
                next(m["lines"] for m in f["modes"] if m["name"] == selection[f["name"]])
                if f["modes"]
                else f["lines"]
            )
    lines += body[1 + part["at"] + part["n"] :]
    head = (
        SEP.join(get(rendering, part["docker_path"]).split(SEP)[: part["docker_at"]])
        if docker
        else body[0]
    )
    return head + (SEP + SEP.join(lines) if lines else "")


def selections(features: list[dict]):
    """Every on/off combination, with each modal feature in each of its modes (capped)."""
    options = []
    for f in features:
        states = [None] + ([m["name"] for m in f["modes"]] if f["modes"] else [True])
        options.append([(f["name"], s) for s in states])
    for combo in itertools.islice(itertools.product(*options), 64):
        yield {
            name: (None if state is True else state) for name, state in combo if state is not None
        }


@pytest.fixture(scope="module")
def project():
    catalog, _ = load_catalog(PROJECT_ROOT)
    ctx = synthesis_context(catalog)
    standalone = {d.hf_id for d in catalog.recipes}
    recs = [
        RecipeInput(d.hf_id, d.data, synthesize_recipe(ctx, d.hf_id, d.data, standalone))
        for d in catalog.recipes
    ]
    return ctx, recs


def test_joined_parts_equal_the_engine_for_every_feature_selection(project):
    ctx, recs = project
    checked = 0
    for rec in recs:
        for path, doc in hardware_docs(rec, ctx).items():
            for entry in doc["renderings"]:
                parts = entry["parts"]
                features = doc["feature_sets"][parts["features"]]
                if parts["features_locked"]:
                    continue
                for sel in selections(features):
                    r = render_choice(
                        ctx,
                        rec.data,
                        entry["variant"],
                        doc["hardware"],
                        entry["strategy"],
                        entry["node_count"] if entry["deploy_type"] == "multi_node" else None,
                        sel,
                    )
                    procs = r.processes
                    assert len(procs) == len(parts["processes"])
                    for part, proc in zip(parts["processes"], procs):
                        assert assemble(entry, part, features, sel) == proc.command, (
                            path,
                            entry["strategy"],
                            sel,
                        )
                        assert (
                            assemble(entry, part, features, sel, docker=True) == proc.docker_command
                        )
                    checked += 1
    assert checked > 100


def test_default_selection_reproduces_each_rendering(project):
    ctx, recs = project
    for rec in recs:
        for doc in hardware_docs(rec, ctx).values():
            for entry in doc["renderings"]:
                features = doc["feature_sets"][entry["parts"]["features"]]
                default = {
                    f["name"]: (None if f["default"] is True else f["default"])
                    for f in features
                    if f["default"] is not False
                }
                for part in entry["parts"]["processes"]:
                    assert assemble(entry, part, features, default) == get(entry, part["path"])
                    assert assemble(entry, part, features, default, docker=True) == get(
                        entry, part["docker_path"]
                    )


def test_summary_embeds_the_default_hardware_document(project):
    ctx, recs = project
    rec = next(r for r in recs if r.hf_id == "meta-llama/Llama-3.3-70B-Instruct")
    docs = hardware_docs(rec, ctx)
    hw = rec.rendered.trees[0].default_hardware
    initial = docs[f"api/v1/models/{rec.hf_id}/hw/{hw}.json"]
    summary = picker_summary(rec, ctx, initial)
    assert summary["default"] == {"variant": "default", "hardware": hw}
    assert summary["initial"] is initial
    assert "sizing" not in summary  # every figure beside a command comes from its rendering's plan
    assert summary["api_url"] == "/api/v1/models/meta-llama/Llama-3.3-70B-Instruct/hw/{hw}.json"


def _split_by_lists(command: str, docker_command: str, before: tuple, after: tuple) -> dict | None:
    """picker._split_lines' plain definition: split both commands, compare the lists."""
    body = command.split(SEP)
    at = len(before)
    if body[1:] != list(before) + body[1 + at : len(body) - len(after)] + list(after):
        return None
    docker = docker_command.split(SEP)
    docker_at = len(docker) - (len(body) - 1)
    if docker[docker_at:] != body[1:]:
        return None
    return {"at": at, "n": len(body) - 1 - at - len(after), "docker_at": docker_at}


def test_split_equals_splitting_both_commands_into_lists():
    """_split_lines compares the docker command's end as text, not as lists; pieces of SEP (whose
    first and last space overlap) make the boundary cases: a head ending in ' \\\\\\n ', a docker
    command equal to the argument lines, fewer docker pieces than lines."""
    import random

    from recipes_site.render import picker

    rng = random.Random(13)
    atoms = ["a", "--x 1", " ", "\\", "\n", "  ", SEP, SEP[:4], SEP[1:], ""]
    word = lambda: "".join(rng.choice(atoms) for _ in range(rng.randrange(0, 4)))
    cases = 0
    for _ in range(20000):
        lines = [word() for _ in range(rng.randrange(0, 5))]
        command = SEP.join([word()] + lines)
        head = [word() for _ in range(rng.randrange(0, 3))]
        docker = SEP.join(head + lines) if rng.random() < 0.8 else SEP.join(head + [word()])
        at = rng.randrange(0, len(lines) + 1)
        before = tuple(lines[:at]) if rng.random() < 0.9 else tuple(word() for _ in range(at))
        after = tuple(lines[at + rng.randrange(0, len(lines) - at + 1) :])
        expected = _split_by_lists(command, docker, before, after)
        assert picker._split_lines(command, docker, before, after) == expected, (
            command,
            docker,
            before,
            after,
        )
        cases += expected is not None
    assert cases > 5000
    # the overlap case itself: the docker head ends in SEP's first four characters
    for docker in (
        "run \\\n " + SEP + "--a",
        "run \\\n  \\\n " + SEP + "--a",
        SEP[:4] + SEP + "--a",
        "--a",
    ):
        assert picker._split_lines("vllm" + SEP + "--a", docker, (), ()) == _split_by_lists(
            "vllm" + SEP + "--a", docker, (), ()
        )


def test_a_deployment_without_pools_or_kv_store_has_no_extra_tabs():
    from recipes_site.render import picker

    for r in (_plain_rendering(),):
        assert picker._extras_entry(r) == (picker._CANONICAL(picker._extras(r)), picker._extras(r))


def _plain_rendering():
    from recipes_site.synthesis.types import Process, Rendering

    p = Process(
        argv=("vllm", "serve", "m"),
        command="vllm serve m",
        env={},
        docker_argv=(),
        docker_command="d m",
    )
    return Rendering(
        hardware="h200",
        strategy="single_node_tp",
        variant="default",
        node_count=1,
        deploy_type="single_node",
        env={},
        docker_image="img",
        single=p,
    )


def test_exports_of_an_empty_environment_equal_export_lines():
    from recipes_site.render import picker
    from recipes_site.synthesis.shell import export_lines

    assert picker.exports({}) == export_lines({}) == ""


def test_exact_equals_toggles_are_exact_on_generated_choices_and_processes():
    # picker._exact keeps toggles_are_exact's choices' half (choices.toggle_flags) per feature set
    # and tests the fixed lines' first words (choices.fixed_lines_free_of); it must answer as
    # toggles_are_exact itself, and that as its first, one-pass form (`plain`) did
    import random

    from recipes_site.render import picker
    from recipes_site.synthesis.choices import FeatureChoice, ModeChoice, toggles_are_exact
    from recipes_site.synthesis.types import process

    def plain(choices, processes):
        flag = lambda line: line.split(" ", 1)[0] if line.split(" ", 1)[0].startswith("-") else None
        fixed = {flag(l) for p in processes for l in p.lines_before + p.lines_after} - {None}
        seen: set = set()
        for choice in choices:
            flags = set()
            for group in [m.lines for m in choice.modes] if choice.modes else [choice.lines]:
                for line in group:
                    if line and not line.startswith("-"):
                        return False
                    flags.add(flag(line))
            flags.discard(None)
            if flags & fixed or flags & seen:
                return False
            seen |= flags
        return True

    rng = random.Random(7)
    words = [
        "--a",
        "--a 1",
        "--b x",
        "-c",
        "",
        "pos",
        "pos --a",
        "--d=3",
        "--a=1",
        " --b",
        "--e '{\"x\": 1}'",
        "-",
    ]
    lines = lambda k: tuple(rng.choice(words) for _ in range(rng.randint(0, k)))
    seen = {True: 0, False: 0}
    for i in range(4000):
        choices = []
        for n in range(rng.randint(0, 3)):
            if rng.random() < 0.4:
                modes = tuple(
                    ModeChoice(f"m{j}", "M", "", lines(2)) for j in range(rng.randint(1, 3))
                )
                choices.append(FeatureChoice(f"f{n}", "F", "", False, modes, None))
            else:
                choices.append(FeatureChoice(f"f{n}", "F", "", True, None, lines(2)))
        choices = tuple(choices)
        procs = tuple(
            process((), "vllm serve m", {}, (), "", lines(3), lines(3))
            for _ in range(rng.randint(1, 2))
        )
        picker.clear_memos()
        text = f"set {i}"  # any text names the choices while the memo lasts
        expected = toggles_are_exact(choices, procs)
        assert expected is plain(choices, procs), (choices, procs)
        assert picker._exact(choices, text, procs) is expected, (choices, procs)
        assert picker._exact(choices, text, procs) is expected  # kept half, other call
        seen[expected] += 1
    assert min(seen.values()) > 500


def _summary_by_hand(profile: dict, precision, plan: dict, name: str) -> str:
    """summary_line of a plan as it was written before its memo (plain form, for the test below)."""
    per_node = profile.get("gpu_count") or 1
    gpus, nodes = plan["gpus"], plan.get("nodes", 1)
    where = f" on {nodes} nodes" if nodes > 1 else (f" of {per_node}" if gpus < per_node else "")
    parts = [f"{gpus}× {name}{where}", f"TP={plan['tp']}"]
    pp, dp = plan.get("pp", 1), plan.get("dp", 1)
    if pp > 1:
        parts.append(f"PP={pp}")
    if dp > 1:
        parts.append(f"DP={dp}")
    if plan.get("ep"):
        parts.append("EP")
    if precision:
        parts.append(precision.upper())
    return " · ".join(parts)


def test_summary_line_of_a_plan_equals_its_plain_form_whatever_the_types():
    # summary_line keeps plan headers in a typed memo: equal values of other types (2 and 2.0,
    # True and 1) print differently and must not share an entry
    import random

    from recipes_site.render import picker

    rng = random.Random(3)
    numbers = [1, 2, 4, 8, 2.0, 8.0, True, 16]
    r = _plain_rendering()
    for _ in range(5000):
        plan = {"gpus": rng.choice(numbers), "tp": rng.choice(numbers)}
        for key in ("nodes", "pp", "dp"):
            if rng.random() < 0.5:
                plan[key] = rng.choice(numbers)
        if rng.random() < 0.3:
            plan["ep"] = rng.choice([True, 1, False])
        profile = {"gpu_count": rng.choice([None, 1, 8, 8.0, 4])}
        precision = rng.choice([None, "", "fp8", "bf16"])
        name = rng.choice(["H100", "MI300X"])
        assert picker.summary_line(r, profile, precision, plan, name) == _summary_by_hand(
            profile, precision, plan, name
        )


def test_recipe_reads_are_kept_for_the_recipe_they_were_read_from():
    """AcrossHardware.recipe_reads works out once what every SharedParts reads of the recipe alone
    (features with a strategies list, with a companion command, each variant's precision); asked
    with another recipe, it reads that one (fails when the entry is not checked against the recipe)."""
    from recipes_site.render.picker import AcrossHardware

    plain = {"features": {"a": {"args": ["--a"]}}, "variants": {"default": {"precision": "bf16"}}}
    keyed = {
        "features": {
            "a": {"args": ["--a"], "strategies": ["single_node_tp"]},
            "b": {"args": ["--b"], "companion": {"command": "run-b"}},
            "c": None,
        },
        "variants": {"default": {"precision": "fp8"}, "w4": None},
    }
    across = AcrossHardware(None)
    for recipe, want in [
        (plain, (False, False, {"default": "bf16"})),
        (keyed, (True, True, {"default": "fp8", "w4": None})),
        (plain, (False, False, {"default": "bf16"})),
        ({}, (False, False, {})),
    ]:
        assert across.recipe_reads(recipe) == want
