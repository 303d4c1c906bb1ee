"""PageEnvironment (render/templating.py) looks `x.name` up exactly as jinja's Environment does."""

from __future__ import annotations

import os
from collections import OrderedDict, defaultdict

import pytest
from jinja2 import Environment, StrictUndefined, Undefined

from recipes_site.render.templating import PageEnvironment


class _WithAttribute(dict):
    label = "class attribute"


class _Missing(dict):
    def __missing__(self, key):
        return f"missing {key}"


class _Object:
    label = "object"

    def __getitem__(self, key):
        return f"item {key}"


class _Name(str):
    pass


OBJECTS = [
    {
        "label": "L",
        "items": "not the method",
        "get": 1,
        "__class__": "x",
        "__len__": 0,
        "keys": None,
    },
    {},
    {1: "int key"},
    _WithAttribute(label="item"),
    _Missing(),
    defaultdict(lambda: "default"),
    OrderedDict(label="ordered"),
    _Object(),
    "a string",
    ["a", "list"],
    None,
]
NAMES = [
    "label",
    "items",
    "get",
    "keys",
    "__class__",
    "__len__",
    "__dict__",
    "mro",
    "__name__",
    "missing",
    "upper",
    _Name("label"),
    _Name("items"),
]


def _outcome(env, obj, name):
    value = env.getattr(obj, name)
    if isinstance(value, Undefined):
        return ("undefined", type(value), value._undefined_name, value._undefined_obj is obj)
    if callable(value):
        return (
            "callable",
            getattr(value, "__name__", None),
            getattr(value, "__self__", None) is obj,
        )
    return ("value", value)


@pytest.mark.parametrize("undefined", [Undefined, StrictUndefined])
def test_getattr_equals_jinja_on_dicts_subclasses_and_other_objects(undefined):
    jinja, ours = Environment(undefined=undefined), PageEnvironment(undefined=undefined)
    for obj in OBJECTS:
        for name in NAMES:
            assert _outcome(ours, obj, name) == _outcome(jinja, obj, name), (obj, name)


def test_a_dict_key_named_like_a_dict_method_stays_the_method():
    env = PageEnvironment()
    out = env.from_string(
        "{{ d.label }} {{ d.items()|list|length }} {{ d.get('items') }} [{{ d.nothing }}]"
    )
    assert out.render(d={"label": "L", "items": "I"}) == "L 2 I []"


def test_templates_render_alike():
    source = (
        "{% for k, v in data.items() %}{{ k }}={{ v.label }}/{{ v.get('n', 0) }}/{{ v.values is callable }};"
        "{% endfor %}{{ obj.label }} {{ sub.label }} {{ miss.label }}"
    )
    data = {"a": {"label": "<A>", "n": 2}, "items": {"label": "B", "values": "V"}, "c": {}}
    page = dict(data=data, obj=_Object(), sub=_WithAttribute(label="item"), miss=_Missing())
    expected = Environment(autoescape=True).from_string(source).render(**page)
    assert PageEnvironment(autoescape=True).from_string(source).render(**page) == expected
    assert (
        "a=&lt;A&gt;/2/True;" in expected and "items=B/0/True;" in expected
    )  # .values: the method


def test_an_edited_template_is_rendered_anew(tmp_path):
    """`serve` keeps one environment: a template edited on disk is compiled again, not taken from
    the bytecode cache or the environment's own."""
    from recipes_site.render import pages

    (tmp_path / "t.html").write_text("one {{ x }}", encoding="utf-8")
    env = pages._environment(str(tmp_path))
    assert env.get_template("t.html").render(x=1) == "one 1"
    (tmp_path / "t.html").write_text("two {{ x }}", encoding="utf-8")
    os.utime(tmp_path / "t.html", ns=(1, 1))  # another mtime, even within the clock's tick
    assert env.get_template("t.html").render(x=1) == "two 1"


def test_compiled_templates_are_kept_for_the_next_process(tmp_path):
    """A template compiled once is in jinja's bytecode cache, in the build's cache folder:
    another environment over the same folder (the next build) loads its code instead of
    compiling it."""
    from recipes_site.render import pages

    (tmp_path / "t.html").write_text("{{ x }} in " + str(tmp_path), encoding="utf-8")
    env = pages._environment(str(tmp_path))
    env.bytecode_cache = pages._bytecode_cache(env, tmp_path / "cache" / "templates")
    assert env.bytecode_cache is not None
    env.get_template("t.html")
    source, filename, _ = env.loader.get_source(env, "t.html")
    bucket = env.bytecode_cache.get_bucket(env, "t.html", filename, source)
    assert bucket.code is not None
    assert bucket.checksum == env.bytecode_cache.get_source_checksum(source)
    edited = env.bytecode_cache.get_bucket(env, "t.html", filename, source + "!")
    assert edited.code is None  # other source, no code
    assert [p.parent.name for p in (tmp_path / "cache").rglob("*.cache")] == ["templates"]
