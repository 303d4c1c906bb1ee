"""Synthesis renders a variant once for all profiles that answer its questions alike (issue 13).

synthesis/recording.py: a synthesis notes every fact it reads of its hardware and every answer of
a hardware question; another profile takes its result, re-labelled, only when it answers all of
them the same. Here every tree of recipes that key things by profile id, generation, brand, GPU
count, memory and NVL tray must equal a synthesis that renders each profile on its own; and
leaving any one question out of the record must break that equality (the tests have teeth).
A profile that disagrees somewhere takes each strategy's rendering (a piece) from an earlier one
that answered what that piece read alike: leaving out of a piece's questions those it asked again,
read through a memo or as a fact read again, or not noting a taken piece's questions in the taking
profile's record, must break it too.
"""

from __future__ import annotations

import copy
import dataclasses

import pytest
import synthesis_kit as H

import recipes_site.synthesis as synthesis
from recipes_site.fit import EngineSizing
from recipes_site.synthesis import Context, render_strategy, synthesize_recipe
from recipes_site.synthesis.deployments import tensor_parallel_size
from recipes_site.synthesis.features import allowed_modes
from recipes_site.synthesis.hardware import Hardware
from recipes_site.synthesis.recording import Pieces, Recording, Trace, _attribute, same
from recipes_site.synthesis.selection import Recommendation, strategy_set
from recipes_site.synthesis.shell import Placeholder

ctx = H.context()
STRATEGIES = ["single_node_tp", "single_node_tep", "multi_node_tp", "multi_node_dep", "pd_cluster"]


def _twins(**differences) -> Context:
    """A taxonomy of two profiles, `alpha` and `beta`, equal but for `differences` (beta's), and
    each a copy of the project's b200; with the project's strategies and kv-stores."""
    base = copy.deepcopy(ctx.profiles["b200"])
    return Context(
        profiles={"alpha": base, "beta": {**base, **differences}},
        strategies=ctx.strategies,
        kv_ids=ctx.kv_ids,
    )


def _by_id_overrides():
    r = H.recipe(vram=16, compatible_strategies=STRATEGIES)
    r["variants"]["default"]["hardware_overrides"] = {
        "h100": {"extra_args": ["--h100-only"], "extra_env": {"ONLY": "h100"}}
    }
    r["strategy_overrides"] = {
        "single_node_tp": {"hardware_overrides": {"b300": {"extra_args": ["--b300-tp"]}}},
        "pd_cluster": {"decode": {"hardware_overrides": {"mi325x": {"extra_args": ["--d"]}}}},
    }
    r["hardware_opt_in_features"] = {"b200": ["plain"]}
    r["features"] = {"plain": {"args": ["--plain"]}}
    r["strategy_min_gpus"] = {"gb300": {"multi_node_tp": 16}}
    r["kv_cache_strategy_hardware"] = {"kv_store_centralized_mooncake": {"mi355x": "unsupported"}}
    return r


def _by_generation_and_brand():
    r = H.recipe(vram=16, compatible_strategies=STRATEGIES)
    r["hardware_overrides"] = {"hopper": {"extra_args": ["--hopper"]}}
    r["variants"]["default"]["hardware_overrides"] = {"nvidia": {"extra_env": {"NV": "1"}}}
    r["strategy_hardware"] = {"single_node_tep": {"blackwell": "unsupported"}}
    r["model"]["docker_image"] = {"nvidia": "acme/nv:1", "amd": "acme/amd:1"}
    r["features"] = {
        "gated": {
            "modes": {
                "fast": {"args": ["--fast"], "hardware": {"hopper": "unsupported"}},
                "slow": {
                    "args": ["--slow"],
                    "hardware_overrides": {"b300": {"args": ["--slow-b300"]}},
                },
            },
            "default_mode": "fast",
        },
        "moved": {
            "args": ["--moved"],
            "hardware_overrides": {"blackwell": {"args": ["--moved-bw"]}},
        },
    }
    return r


def _by_memory():
    """700 GB: one H200, B200 or B300 node holds it, an H100 node does not (two nodes, or TP
    sized to the GPU), nor a GB200 tray; the fp8 variant's TP is keyed per profile id."""
    r = H.recipe(vram=700, compatible_strategies=STRATEGIES)
    r["variants"]["fp8"] = {
        "precision": "fp8",
        "vram_minimum_gb": 100,
        "model_id": "acme/Test-8B-FP8",
        "tp": {"b300": 2, "default": 4},
    }
    return r


def _per_profile_image():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp"])
    r["variants"]["default"]["hardware_overrides"] = {"b300": {"docker_image": "acme/img:b300"}}
    return r


def _pd_on_trays():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp", "pd_cluster"])
    r["strategy_overrides"] = {"pd_cluster": {"env": {"NCCL_MNNVL_ENABLE": "1", "KEEP": True}}}
    return r


def _multi_node_gpus():
    r = H.recipe(
        vram=16, compatible_strategies=["single_node_tp", "multi_node_tp", "multi_node_dep"]
    )
    r["variants"]["default"]["tp"] = 2
    return r


def _generation_block():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp"])
    r["hardware_overrides"] = {"hopper": {"extra_args": ["--hopper"]}}
    return r


def _mode_args_for_beta():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp"])
    r["features"] = {
        "spec": {
            "modes": {
                "fast": {"args": ["--fast"], "hardware_overrides": {"beta": {"args": ["--b"]}}}
            },
            "default_mode": "fast",
        }
    }
    return r


def _strategy_gate_for_beta():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp", "single_node_tep"])
    r["strategy_hardware"] = {"single_node_tep": {"beta": "unsupported"}}
    return r


def _mode_gate_for_beta():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp"])
    r["features"] = {
        "spec": {
            "modes": {
                "fast": {"args": ["--fast"], "hardware": {"beta": "unsupported"}},
                "slow": {"args": ["--slow"]},
            },
            "default_mode": "fast",
        }
    }
    return r


def _values_that_print_differently():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp"])
    r["variants"]["default"]["hardware_overrides"] = {
        "b200": {"extra_env": {"X": True}},
        "b300": {"extra_env": {"X": 1}},
        "h200": {"extra_env": {"X": 1.0}},
        "h100": {"extra_env": {"X": "$HEAD_IP"}},
    }
    return r


def _triplets() -> Context:
    """Three equal profiles, `alpha`, `beta` and `gamma` (copies of the project's b200): recipes
    tell them apart by id alone."""
    base = copy.deepcopy(ctx.profiles["b200"])
    return Context(
        profiles={"alpha": base, "beta": {**base}, "gamma": {**base}},
        strategies=ctx.strategies,
        kv_ids=ctx.kv_ids,
    )


def _variant_args_for_beta():
    """beta's variant args are read once per profile, in a memo (variant_on_hardware), and only
    there: every strategy's rendering reads them through that memo."""
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp", "single_node_tep"])
    r["variants"]["default"]["hardware_overrides"] = {"beta": {"extra_args": ["--beta"]}}
    return r


def _strategy_args_for_beta():
    """single_node_tp's block for beta is asked by its own rendering, then asked again (the noted
    answer) by the kv-stores' renderings, which serve through single_node_tp."""
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp", "single_node_tep"])
    r["strategy_overrides"] = {
        "single_node_tp": {"hardware_overrides": {"beta": {"extra_args": ["--beta-tp"]}}}
    }
    return r


def _three_ways():
    """beta and gamma share single_node_tp's args (not alpha's); gamma alone has single_node_tep's:
    beta takes its single_node_tep rendering from alpha, gamma its single_node_tp one from beta."""
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp", "single_node_tep"])
    r["strategy_overrides"] = {
        "single_node_tp": {
            "hardware_overrides": {
                "beta": {"extra_args": ["--x"]},
                "gamma": {"extra_args": ["--x"]},
            }
        },
        "single_node_tep": {"hardware_overrides": {"gamma": {"extra_args": ["--y"]}}},
    }
    return r


def _node_count_for_beta():
    """Both need two nodes at least; beta three (its own multi_node_tp minimum), which is decided
    before any strategy is rendered: the same strategy's rendering, on another node count."""
    r = H.recipe(
        vram=2000,
        compatible_strategies=["single_node_tp", "multi_node_tp"],
        default_strategy="multi_node_tp",
    )
    r["strategy_min_gpus"] = {"beta": {"multi_node_tp": 24}}
    return r


def _tp_the_heads_refuse():
    """multi_node_tp's TP (16 over two nodes) does not divide the model's 12 heads: left out of the
    alternatives on both profiles; beta, which disagrees on single_node_tp alone, takes that verdict
    with alpha's piece."""
    r = H.recipe(
        vram=16, compatible_strategies=["single_node_tp", "multi_node_tp", "multi_node_dep"]
    )
    r["model"]["hf_config"] = {"num_attention_heads": 12, "num_key_value_heads": 4}
    r["strategy_overrides"] = {
        "single_node_tp": {"hardware_overrides": {"beta": {"extra_args": ["--beta-tp"]}}}
    }
    return r


CASES = {
    "ids": (ctx, _by_id_overrides),
    "generations and brands": (ctx, _by_generation_and_brand),
    "memory": (ctx, _by_memory),
    "image per id": (ctx, _per_profile_image),
    "values that print differently": (ctx, _values_that_print_differently),
    "NVL trays": (
        Context(
            profiles={"b300": ctx.profiles["b300"], "gb300": {**ctx.profiles["b300"]}},
            strategies=ctx.strategies,
            kv_ids=ctx.kv_ids,
        ),
        _pd_on_trays,
    ),
    "GPU count": (_twins(gpu_count=4), _multi_node_gpus),
    # profiles told apart by one question alone
    "generation block": (_twins(generation="hopper"), _generation_block),
    "mode args for one id": (_twins(), _mode_args_for_beta),
    "strategy gate for one id": (_twins(), _strategy_gate_for_beta),
    "mode gate for one id": (_twins(), _mode_gate_for_beta),
    # profiles that disagree somewhere, sharing some strategies' renderings (Pieces)
    "variant args for one id": (_twins(), _variant_args_for_beta),
    "strategy args for one id": (_twins(), _strategy_args_for_beta),
    "three ways": (_triplets(), _three_ways),
    "node count for one id": (_twins(), _node_count_for_beta),
    "TP the heads refuse": (_twins(), _tp_the_heads_refuse),
}


def _each_alone(monkeypatch):
    """Synthesis as it was before recording: every profile rendered on its own, on the plain Hardware."""
    monkeypatch.setattr(
        synthesis,
        "_on_hardware_once",
        lambda c, recipe, key, hw, recordings, made, pieces: synthesis._on_hardware(
            c, recipe, key, hw
        ),
    )


def _alone(case, monkeypatch):
    c, make = CASES[case]
    with monkeypatch.context() as m:
        _each_alone(m)
        return synthesize_recipe(c, "acme/Test-8B", make(), set())


def _shared(case):
    c, make = CASES[case]
    return synthesize_recipe(c, "acme/Test-8B", make(), set())


def _texts(out) -> list:
    return [
        (res.hardware, r.key, p.command, p.docker_command)
        for t in out.trees
        for res in t.by_hardware
        for r in (res.recommended, *res.alternatives)
        for p in r.processes
    ]


def _equal(a, b) -> bool:
    # repr tells True from 1 and 1.0; the command texts tell a Placeholder from an equal string
    return a == b and repr(a) == repr(b) and _texts(a) == _texts(b)


@pytest.mark.parametrize("case", CASES)
def test_every_profile_gets_what_rendering_it_alone_gives(case, monkeypatch):
    alone = _alone(case, monkeypatch)
    assert alone.trees and all(len(t.by_hardware) > 1 for t in alone.trees)
    assert _equal(_shared(case), alone)


def test_an_alternative_whose_tp_the_heads_refuse_is_left_out_on_every_profile():
    c, make = CASES["TP the heads refuse"]
    recipe = make()
    out = synthesize_recipe(c, "acme/Test-8B", recipe, set())
    results = [res for t in out.trees for res in t.by_hardware]
    assert [res.hardware for res in results] == ["alpha", "beta"]
    for res in results:
        assert "multi_node_dep" in [a.strategy for a in res.alternatives]
        assert "multi_node_tp" not in [a.strategy for a in res.alternatives]
        refused = render_strategy(c, recipe, "default", "multi_node_tp", c.hardware(res.hardware))
        assert refused is not None and synthesis.tp_refusal(recipe, refused) is not None


def test_the_cases_do_tell_profiles_apart():
    """Each case renders different commands on profiles that would otherwise share them."""

    def commands(case, hw_id):
        out = _shared(case)
        [res] = [res for res in out.trees[0].by_hardware if res.hardware == hw_id]
        return [
            (p.command, p.env, p.docker_command)
            for r in (res.recommended, *res.alternatives)
            for p in r.processes
        ]

    assert commands("ids", "h100") != commands("ids", "h200")
    assert commands("generations and brands", "h200") != commands("generations and brands", "b200")
    assert commands("memory", "h100") != commands("memory", "h200")
    assert commands("image per id", "b300") != commands(
        "image per id", "b200"
    )  # the docker command
    assert commands("NVL trays", "b300") != commands("NVL trays", "gb300")
    for case in (
        "GPU count",
        "generation block",
        "mode args for one id",
        "strategy gate for one id",
        "mode gate for one id",
        "variant args for one id",
        "strategy args for one id",
        "three ways",
        "node count for one id",
    ):
        assert commands(case, "alpha") != commands(case, "beta"), case
    assert commands("three ways", "beta") != commands("three ways", "gamma")


def test_profiles_that_answer_alike_share_their_processes():
    out = synthesize_recipe(
        ctx, "acme/Test-8B", H.recipe(vram=16, compatible_strategies=STRATEGIES), set()
    )
    by_hw = {res.hardware: res for res in out.trees[0].by_hardware}
    assert by_hw["h100"].recommended.single is by_hw["h200"].recommended.single
    assert by_hw["b300"].recommended.single is by_hw["h200"].recommended.single
    assert by_hw["mi325x"].recommended.single is by_hw["mi300x"].recommended.single
    assert by_hw["mi300x"].recommended.single is not by_hw["h200"].recommended.single  # ROCm image
    assert [res.hardware for res in out.trees[0].by_hardware] == [
        res.recommended.hardware for res in out.trees[0].by_hardware
    ]


def _renderings(case) -> dict:
    out = _shared(case)
    return {
        (res.hardware, r.strategy): r
        for res in out.trees[0].by_hardware
        for r in (res.recommended, *res.alternatives)
    }


def test_profiles_that_disagree_somewhere_share_the_renderings_that_read_none_of_it():
    """A profile that disagrees on some question of the tree still takes, re-labelled, each strategy's
    rendering that read none of the questions it disagrees on (its processes are the very objects);
    the others it renders itself."""
    gate = _renderings("strategy gate for one id")  # beta offers no single_node_tep
    assert gate["beta", "single_node_tp"].single is gate["alpha", "single_node_tp"].single
    assert ("beta", "single_node_tep") not in gate and ("alpha", "single_node_tep") in gate
    kv = _renderings("strategy args for one id")
    assert kv["beta", "single_node_tep"].single is kv["alpha", "single_node_tep"].single
    assert kv["beta", "single_node_tp"].single is not kv["alpha", "single_node_tp"].single
    stores = [s for s in ctx.kv_ids if ("alpha", s) in kv]
    assert stores and all(kv["beta", s].kv.head is not kv["alpha", s].kv.head for s in stores)
    three = _renderings("three ways")
    assert three["beta", "single_node_tep"].single is three["alpha", "single_node_tep"].single
    assert three["gamma", "single_node_tp"].single is three["beta", "single_node_tp"].single
    assert three["gamma", "single_node_tep"].single is not three["alpha", "single_node_tep"].single
    assert all(r.hardware == hw for (hw, _), r in three.items())


# -- leaving a question out of the record is caught ---------------------------------------------------


def _unrecorded(fn):
    """Recording.ask that lets `fn` answer without noting it down."""
    noting = Recording.ask

    def ask(self, asked, index, rest):
        if asked is fn:
            return asked(*rest[:index], self.hw, *rest[index:])
        return noting(self, asked, index, rest)

    return ask


def _keys_dropped(nested: bool):
    """Trace.run that forgets the keys a memo's value read (`nested`: computed inside a piece, as
    every memo entry a later piece hits is) or a piece's own keys (not nested)."""
    running = Trace.run

    def run(self, compute, args):
        inside = self.keys is not None
        value, keys = running(self, compute, args)
        return value, (() if inside == nested else keys)

    return run


def _untraced_rereads(m):
    """A question asked again (its answer already noted) is not traced: Recording.ask and the
    one-argument methods read the noted answer without noting the read."""
    asking = Recording.ask

    def ask(self, fn, index, rest):
        noted = self.answers.get((fn, *map(id, rest)))
        return noted[3] if noted is not None else asking(self, fn, index, rest)

    m.setattr(Recording, "ask", ask)
    for name in ("entry", "keyed", "override_block", "named_in"):
        method = getattr(Hardware, name)
        m.setattr(Recording, name, lambda self, arg, _method=method: self.ask(_method, 0, (arg,)))


# the facts a Recording notes (recording._recorded_reads: every fact of Hardware but `label`)
FACTS = [name for name, value in vars(Recording).items() if isinstance(value, property)]


def _unrecorded_facts(m):
    """Facts are read from the profile without being noted."""
    assert {"id", "gpus", "generation", "brand", "node_vram_gb", "profile"} <= set(FACTS)
    for name in FACTS:
        m.setattr(Recording, name, property(lambda self, _name=name: getattr(self.hw, _name)))


def _untraced_facts(m):
    """A fact read again (its answer already noted) is not traced."""
    for name in FACTS:

        def read(self, _name=name, _first=vars(Recording)[name].fget):
            noted = self.answers.get((_attribute(_name),))
            return noted[3] if noted is not None else _first(self)

        m.setattr(Recording, name, property(read))


def _taken_unnoted(m):
    """A profile taking a piece does not note the piece's questions in its own record."""
    checking = Recording.agrees_on

    def agrees_on(self, keys, other):
        before, asked = dict(other.answers), len(other.asked)
        verdict = checking(self, keys, other)
        other.answers.clear()
        other.answers.update(before)
        del other.asked[asked:]
        return verdict

    m.setattr(Recording, "agrees_on", agrees_on)


MUTATIONS = {
    # what is left out of the record -> a case that needs it
    "profile-id entries": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(Hardware.entry)),
        "ids",
    ),
    "generation override blocks": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(Hardware.override_block)),
        "generation block",
    ),
    "keyed tables": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(Hardware.keyed)),
        "mode args for one id",
    ),
    "NVL trays": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(Hardware.named_in)),
        "NVL trays",
    ),
    "a hardware question": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(tensor_parallel_size.__wrapped__)),
        "memory",
    ),
    "strategy sets": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(strategy_set.__wrapped__)),
        "strategy gate for one id",
    ),
    "feature modes": (
        lambda m: m.setattr(Recording, "ask", _unrecorded(allowed_modes.__wrapped__)),
        "mode gate for one id",
    ),
    "raw facts": (_unrecorded_facts, "GPU count"),
    "strict equality": (
        lambda m: m.setattr("recipes_site.synthesis.recording.same", lambda a, b: a == b),
        "values that print differently",
    ),
    # what a piece (one strategy's rendering) leaves out of the questions it is checked against
    "a piece's own questions": (
        lambda m: m.setattr(Trace, "run", _keys_dropped(nested=False)),
        "ids",
    ),
    "questions inside a memo hit": (
        lambda m: m.setattr(Trace, "run", _keys_dropped(nested=True)),
        "variant args for one id",
    ),
    "questions asked again": (_untraced_rereads, "strategy args for one id"),
    "facts read again": (_untraced_facts, "GPU count"),
    "a taken piece's questions": (_taken_unnoted, "three ways"),
    "the node count in a piece's key": (
        lambda m: m.setattr(
            Pieces,
            "get",
            lambda self, key, hw, compute, args, _get=Pieces.get: _get(
                self, key[:3], hw, compute, args
            ),
        ),
        "node count for one id",
    ),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_leaving_a_question_out_of_the_record_is_caught(mutation, monkeypatch):
    mutate, case = MUTATIONS[mutation]
    alone = _alone(case, monkeypatch)
    with monkeypatch.context() as m:
        mutate(m)
        broken = _shared(case)
    assert not _equal(broken, alone)


# -- the pieces --------------------------------------------------------------------------------------


def test_same_tells_apart_what_prints_differently():
    assert same(1, 1) and same("a", "a") and same([1, {"a": (1,)}], [1, {"a": (1,)}])
    assert not same(True, 1) and not same(1, 1.0) and not same(0.0, -0.0)
    assert not same(Placeholder("$HEAD_IP"), "$HEAD_IP") and not same(
        "$HEAD_IP", Placeholder("$HEAD_IP")
    )
    assert not same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    # keys and values pairwise: a key or a value that prints differently, anywhere in the dict
    assert same({"a": 1, "b": [2]}, {"a": 1, "b": [2]})
    assert not same({1: "x", "b": 2}, {True: "x", "b": 2}) and not same(
        {"a": 1, "b": 2}, {"a": 1, "b": 2.0}
    )
    assert not same({"a": 1, "b": 2}, {"a": 1, "c": 2}) and not same({"a": 1}, {"a": 1, "b": 2})
    assert not same([1], (1,)) and not same([1, 2], [1])
    assert not same(object(), object())
    assert same(Recommendation("multi_node_tp", 2), Recommendation("multi_node_tp", 2))
    assert not same(Recommendation("multi_node_tp", 1), Recommendation("multi_node_tp", True))
    assert not same(Recommendation("multi_node_tp", 2), ("multi_node_tp", 2))
    assert same(
        EngineSizing(("--max-model-len", "8192"), ("n",)),
        EngineSizing(("--max-model-len", "8192"), ("n",)),
    )
    assert not same(
        EngineSizing(("--max-model-len", "8192")), EngineSizing(("--max-model-len", "4096"))
    )
    assert not same(EngineSizing((1,)), EngineSizing((True,)))
    assert not same(
        EngineSizing(("a",), ("n",)), EngineSizing(("a",), ("m",))
    )  # the last field too
    marker = object()
    assert same(marker, marker)


def test_a_recording_notes_what_is_read_and_not_the_label():
    h200, h100 = Recording(ctx.hardware("h200")), Recording(ctx.hardware("h100"))
    assert h200.label == "h200" and not h200.answers
    assert h200.gpus == 8 and h200.image_family == "nvidia"
    assert h200.agrees(h100) and h100.agrees(h200)
    assert h200.entry({"h100": 1}) is None and h200.agrees(h100) is False  # h100 has an entry
    assert h100.node_vram_gb == 640 and not h100.agrees(Recording(ctx.hardware("h200")))
    b200 = Recording(ctx.hardware("b200"))
    assert b200.id == "b200" and not b200.agrees(
        Recording(ctx.hardware("b300"))
    )  # the id read as such


def test_a_recording_notes_every_fact_and_method_of_a_profile_but_its_label():
    """Recording has no `__getattr__` fallback (recording._recorded_reads): each fact and method of
    Hardware has its recorded form on the class, so none can be read unnoted."""
    names = {f.name for f in dataclasses.fields(Hardware)} | {
        n for n in vars(Hardware) if not n.startswith("_")
    }
    assert names - {"label"} <= set(vars(Recording)) and "label" not in vars(Recording)
    h200, plain = Recording(ctx.hardware("h200")), ctx.hardware("h200")
    for name in sorted(set(FACTS)):
        assert (
            same(getattr(h200, name), getattr(plain, name)) and (_attribute(name),) in h200.answers
        ), name
    table = {"h200": 1, "hopper": 2, "nvidia": 3}
    for method in ("entry", "keyed", "override_block", "named_in"):
        assert same(getattr(h200, method)(table), getattr(plain, method)(table))
        assert (getattr(Hardware, method), id(table)) in h200.answers
    assert h200.label == "h200" and not any(key[0] is _attribute("label") for key in h200.answers)
    with pytest.raises(AttributeError):
        h200.no_such_fact


def test_a_pair_checked_again_compares_only_what_the_record_gained():
    """`agrees` goes on from where it stopped for a pair: answers compared before are not compared
    again, answers noted since are, and a pair that disagreed still does."""
    h200, h100 = Recording(ctx.hardware("h200")), Recording(ctx.hardware("h100"))
    asked = []

    def brand(hw):
        asked.append(hw.id)
        return hw.brand

    assert h200.ask(brand, 0, ()) == "NVIDIA" and asked == ["h200"]
    assert h200.agrees(h100) and asked == ["h200", "h100"]
    h100.replies.clear()  # were it asked again, h100 would answer again
    assert h200.agrees(h100) and asked == ["h200", "h100"]
    assert h200.gpus == 8 and h200.agrees(h100) and asked == ["h200", "h100"]  # gpus: 8 on both
    assert h200.node_vram_gb != h100.hw.node_vram_gb and h200.agrees(h100) is False
    h100.replies.clear()
    assert h200.agrees(h100) is False and h100.agrees(h200)
    assert h100.node_vram_gb == 640 and h100.agrees(h200) is False


def test_a_trace_gives_each_key_once_in_first_read_order_to_every_enclosing_piece():
    """Trace.run gathers the keys a computation read (reads, re-reads, a nested piece's or memo's
    keys) once each, in first-read order, and hands them to the enclosing piece as well."""
    h200 = Recording(ctx.hardware("h200"), Trace())
    trace = h200.trace
    facts = [(_attribute(name),) for name in ("gpus", "brand", "generation", "id")]

    def nested():
        return h200.brand, h200.gpus, h200.brand, h200.generation

    def outer():
        first = h200.gpus
        value, keys = trace.run(nested, ())
        assert list(keys) == [facts[1], facts[0], facts[2]]
        assert list(trace.keys) == [
            facts[0],
            facts[1],
            facts[2],
        ]  # in the order this piece read them
        return first, value, h200.id, h200.generation

    (gpus, _, hw_id, _), keys = trace.run(outer, ())
    assert (gpus, hw_id) == (8, "h200") and trace.keys is None
    assert list(keys) == facts
    memo_keys = {facts[3]: None, facts[0]: None}
    _, keys = trace.run(
        lambda: trace.keys.update(memo_keys) or h200.brand, ()
    )  # a memo hit, then a read
    assert list(keys) == [facts[3], facts[0], facts[1]] and list(memo_keys) == [facts[3], facts[0]]


def _corpus_roots():
    from pathlib import Path

    from conftest import COMPAT_CORPUS

    roots = [pytest.param(Path(__file__).resolve().parent.parent, id="own models")]
    roots.append(
        pytest.param(
            COMPAT_CORPUS,
            id="compat corpus",
            marks=pytest.mark.skipif(
                not COMPAT_CORPUS.is_dir(), reason="compat corpus not beside the clone"
            ),
        )
    )
    return roots


@pytest.mark.parametrize("root", _corpus_roots())
def test_every_recipe_of_a_corpus_equals_its_per_profile_synthesis(root, monkeypatch):
    """Beyond the hand-made cases: every recipe of our models/ and of the compat corpus (real
    contributors' keyed tables, overrides and gates) synthesizes to exactly what rendering each
    profile on its own gives."""
    from recipes_site.build import synthesis_context
    from recipes_site.catalog import load_catalog

    catalog, _ = load_catalog(root)
    c = synthesis_context(catalog)
    shared = [synthesize_recipe(c, d.hf_id, d.data, catalog.index.ids) for d in catalog.recipes]
    with monkeypatch.context() as m:
        _each_alone(m)
        alone = [synthesize_recipe(c, d.hf_id, d.data, catalog.index.ids) for d in catalog.recipes]
    assert sum(len(t.by_hardware) for out in alone for t in out.trees) > 100
    for doc, a, b in zip(catalog.recipes, shared, alone):
        assert _equal(a, b), doc.hf_id
