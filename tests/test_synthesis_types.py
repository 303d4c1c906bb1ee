"""synthesis/types.py: the written-out `__init__` of Process and Rendering (one step instead of a
frozen dataclass's object.__setattr__ per field, issue 13) must stay what dataclass would make:
the declared fields, in order, with their defaults; frozen, comparable, replaceable. Their makers
`process` and `rendering` (no class call) must make exactly what the class call makes; likewise
KvStore, PdPool and HardwareResult with `kv_store`, `pd_pool` and `hardware_result`."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from recipes_site.synthesis.types import (
    HardwareResult,
    KvStore,
    PdPool,
    Process,
    Rendering,
    hardware_result,
    kv_store,
    pd_pool,
    process,
    rendering,
)

MAKERS = [
    (Process, process),
    (Rendering, rendering),
    (KvStore, kv_store),
    (PdPool, pd_pool),
    (HardwareResult, hardware_result),
]


@pytest.mark.parametrize("cls", [cls for cls, _ in MAKERS])
def test_init_takes_the_declared_fields_in_order_with_their_defaults(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in params] == [
        (f.name, inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
        for f in dataclasses.fields(cls)
    ]


@pytest.mark.parametrize("cls, maker", MAKERS)
def test_a_maker_takes_its_class_arguments(cls, maker):
    assert inspect.signature(maker).parameters == dict(
        list(inspect.signature(cls.__init__).parameters.items())[1:]
    )


@pytest.mark.parametrize("cls, maker", MAKERS)
@pytest.mark.parametrize("by_keyword", [True, False])
def test_a_maker_makes_what_the_class_makes(cls, maker, by_keyword):
    values = {f.name: object() for f in dataclasses.fields(cls)}
    made = maker(**values) if by_keyword else maker(*values.values())
    extra = ["_family"] if cls is Rendering else []  # Rendering.family's token: not a field
    assert type(made) is cls and made == cls(**values) and list(vars(made)) == list(values) + extra
    assert list(vars(cls(**values))) == list(values) + extra
    assert all(getattr(made, name) is value for name, value in values.items())
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.env = {}
    required = {
        f.name: values[f.name] for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING
    }
    assert maker(**required) == cls(**required)  # defaults as the class's


def _process(**changes):
    fields = dict(
        argv=("vllm", "serve", "m"),
        command="vllm serve m",
        env={"A": "1"},
        docker_argv=("docker",),
        docker_command="docker run m",
    )
    return Process(**{**fields, **changes})


@pytest.mark.parametrize("cls", [cls for cls, _ in MAKERS])
def test_every_field_is_set_and_the_instance_is_frozen(cls):
    values = {f.name: object() for f in dataclasses.fields(cls)}
    made = cls(**values)
    assert all(getattr(made, name) is value for name, value in values.items())
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.env = {}


def test_defaults_equality_and_replace_behave_as_a_dataclass():
    p = _process()
    assert (p.lines_before, p.lines_after, p.docker_head, p.notes) == ((), (), "", ())
    assert p == _process() and p != _process(command="other")
    assert dataclasses.replace(p, notes=("n",)) == _process(notes=("n",))
    r = Rendering("h200", "single_node_tp", "default", 1, "single_node", {}, None, single=p)
    assert (r.head, r.workers, r.kv, r.processes) == (None, (), None, (p,))
    assert repr(r).startswith("Rendering(hardware='h200', strategy='single_node_tp'")


def test_a_relabelled_rendering_is_the_same_rendering_on_another_profile():
    p = _process()
    r = Rendering(
        "h200", "single_node_tp", "default", 1, "single_node", {"A": "1"}, "img", single=p
    )
    moved = r.relabelled("h100")
    assert (
        moved == dataclasses.replace(r, hardware="h100")
        and moved.single is p
        and moved.env is r.env
    )
    assert r.hardware == "h200" and type(moved) is Rendering
    with pytest.raises(dataclasses.FrozenInstanceError):
        moved.hardware = "b200"


def test_a_family_is_a_rendering_and_its_relabelled_copies():
    """`Rendering.family` keys picker.Shown: a re-labelled copy (and its own copies) is of the
    same family; a rendering made anew is not, whether it differs in any other field (even an
    equal but distinct object) or in none; equality and repr still see the fields alone."""
    p = _process()
    r = Rendering(
        "h200", "single_node_tp", "default", 1, "single_node", {"A": "1"}, "img", single=p
    )
    assert r.relabelled("h100").relabelled("b200").family is r.relabelled("h100").family is r.family
    assert dataclasses.replace(r, hardware="b200").family is not r.family
    assert dataclasses.replace(r).family is not r.family and dataclasses.replace(r) == r
    assert (
        "_family" not in repr(r)
        and rendering(*(getattr(r, f.name) for f in dataclasses.fields(r))).family is not r.family
    )
    others = {
        "strategy": "multi_node_tp",
        "variant": "fp8",
        "node_count": 2,
        "deploy_type": "multi_node",
        "env": {"A": "1"},
        "docker_image": "other",
        "single": _process(),
        "head": p,
        "workers": (p,),
        "prefill": object(),
        "decode": object(),
        "router": object(),
        "router_config": {},
        "kv": object(),
    }
    assert set(others) == {f.name for f in dataclasses.fields(Rendering)} - {"hardware"}
    for name, value in others.items():
        assert dataclasses.replace(r, **{name: value}).family is not r.family, name
