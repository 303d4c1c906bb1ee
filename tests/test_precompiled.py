"""Issue 13, "faster than the reference": the templates' jinja code is compiled ahead of time
(render/precompiled.py: one module per template in recipes_site/data/templates_code/, indexed by
recipes_site/data/compiled_templates.json). The store must be current, be used, and never stand in
for a template it was not compiled from."""

from __future__ import annotations

import shutil

from jinja2.bccache import Bucket

from recipes_site.render import precompiled
from recipes_site.render.pages import TEMPLATES, _environment

REGENERATE = (
    "stale: run `python -m recipes_site.render.precompiled` and commit recipes_site/data/compiled_templates.json "
    "and recipes_site/data/templates_code/"
)


def _made_here(env) -> bool:
    """Whether the store was made by the installed jinja2 (with these options). A fresh machine
    may install a newer jinja2 (pyproject asks for >=3.1): then the store must simply go unused."""
    return precompiled._stored().get("compiled_with") == precompiled.options_of(env)


def test_the_store_holds_the_current_code_of_every_template():
    env = _environment(str(TEMPLATES))
    names = precompiled.template_names(env)
    assert "model.html" in names and "base.html" in names
    if _made_here(env):
        wanted = precompiled.store_files(env)
        assert {p: p.read_text(encoding="utf-8") for p in wanted if p.exists()} == wanted, (
            REGENERATE
        )
        assert set(precompiled.MODULES.glob("*.py")) == {
            p for p in wanted if p.parent == precompiled.MODULES
        }, REGENERATE
    else:  # another jinja2: the code may differ, but the store must still follow the templates
        stored = precompiled._stored()["templates"]
        assert {n: e["sha1"] for n, e in stored.items()} == {
            n: e["sha1"] for n, e in precompiled.compiled(env)["templates"].items()
        }, REGENERATE


def test_a_store_made_by_another_jinja2_is_not_used(monkeypatch):
    env = _environment(str(TEMPLATES))
    stored = dict(precompiled._stored(), compiled_with="jinja2 0.0.0; options x")
    monkeypatch.setattr(precompiled, "_stored", lambda: stored)
    source = (TEMPLATES / "model.html").read_text(encoding="utf-8")
    assert _bucket(env, "model.html", source).code is None


def _bucket(env, name: str, source: str) -> Bucket:
    return env.bytecode_cache.get_bucket(env, name, str(TEMPLATES / name), source)


def test_the_environment_loads_the_compiled_code_named_after_the_template():
    env = _environment(str(TEMPLATES))
    source = (TEMPLATES / "model.html").read_text(encoding="utf-8")
    bucket = _bucket(env, "model.html", source)
    if not _made_here(env):
        assert bucket.code is None  # compiled from its file, as without a store
        return
    assert bucket.code is not None
    # the very code jinja would compile from the file, every nested function named after the template
    # (dont_inherit: this module's `from __future__` must not reach it; jinja's compile() has none)
    assert bucket.code == compile(
        env.compile(source, "model.html", str(TEMPLATES / "model.html"), raw=True),
        str(TEMPLATES / "model.html"),
        "exec",
        dont_inherit=True,
    )
    assert {c.co_filename for c in _codes(bucket.code)} == {str(TEMPLATES / "model.html")}
    assert len(list(_codes(bucket.code))) > 5
    assert env.get_template("model.html").filename == str(TEMPLATES / "model.html")


def _codes(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_filename"):
            yield from _codes(const)


def test_a_missing_module_leaves_the_template_to_its_file(monkeypatch, tmp_path):
    """A partial install (the index without its modules) or a hostile module name: no code from
    the store, so jinja compiles the template from its file as without a store."""
    env = _environment(str(TEMPLATES))
    source = (TEMPLATES / "model.html").read_text(encoding="utf-8")
    monkeypatch.setattr(precompiled, "MODULES", tmp_path)
    assert _bucket(env, "model.html", source).code is None
    for name in ("../base", "os.path", ""):
        assert precompiled._module_code(name) is None


def test_a_module_never_stands_in_for_another_source_or_unknown_template():
    env = _environment(str(TEMPLATES))
    source = (TEMPLATES / "model.html").read_text(encoding="utf-8")
    assert _bucket(env, "model.html", source + " ").code is None
    assert _bucket(env, "nosuch.html", "x").code is None
    assert _bucket(env, "../model.html", source).code is None


def test_an_edited_template_is_compiled_from_its_file(tmp_path):
    """What `serve` sees when a template is edited: the edit shows, the stale module is not used."""
    shutil.copytree(TEMPLATES, tmp_path / "templates", ignore=shutil.ignore_patterns("static"))
    page = tmp_path / "templates" / "redirect.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace("<title>", "<title>EDITED "), encoding="utf-8"
    )
    env = _environment(str(tmp_path / "templates"))
    html = env.get_template("redirect.html").render(
        title="t", target="/x/", recipe="a/b", canonical=None, description="d"
    )
    assert "EDITED" in html
    assert _bucket(env, "redirect.html", page.read_text(encoding="utf-8")).code is None


def test_code_made_under_other_environment_options_is_not_used():
    from jinja2 import Environment, FileSystemLoader

    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)), autoescape=True
    )  # no trim/lstrip_blocks
    env.bytecode_cache = precompiled.PrecompiledTemplates(env)
    source = (TEMPLATES / "model.html").read_text(encoding="utf-8")
    assert _bucket(env, "model.html", source).code is None
    here = _environment(str(TEMPLATES))
    assert (_bucket(here, "model.html", source).code is not None) == _made_here(here)
