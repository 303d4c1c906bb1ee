"""The site's templates compiled ahead of time: the Python code jinja makes of each
templates/*.html, kept in recipes_site/data/compiled_templates.json. Regenerate after editing a
template (tests/test_precompiled.py says when):

    python -m recipes_site.render.precompiled

Why: jinja's parsing and code generation for the eight templates cost ~45 ms of CPU in every
build process (~25 ms of it the model page's), producing the same code each time; only Python's
compile() of that code (~9 ms) is left. The code of a template is used only when it was made
from the very source (jinja's sha1 of it) by the same jinja2 version with the same environment
options; any other template (an edited one, `serve` reloading it) is compiled from its file as
before. Nothing is written at build time (`dump_bytecode` does nothing).
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket, BytecodeCache

STORE = Path(__file__).resolve().parent.parent / "data" / "compiled_templates.json"


def options_of(env: jinja2.Environment) -> str:
    """The environment options jinja's code depends on (those its lexer and code generator
    read), hashed: code made under other options is not used."""
    opts = (env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
            env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
            env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, env.optimized,
            env.autoescape if isinstance(env.autoescape, bool) else "function", sorted(env.extensions))
    return f"jinja2 {jinja2.__version__}; options {hashlib.sha1(repr(opts).encode()).hexdigest()[:12]}"


@lru_cache(maxsize=1)
def _stored() -> dict:
    # read once per process (~90 KB); {} without the file (e.g. a partial install)
    try:
        return json.loads(STORE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


class PrecompiledTemplates(BytecodeCache):
    """A read-only jinja bytecode cache over the stored code, for an environment set up as `env`."""

    def __init__(self, env: jinja2.Environment):
        self.options = options_of(env)

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return f"{name}\n{filename or name}"

    def load_bytecode(self, bucket: Bucket) -> None:
        name, filename = bucket.key.split("\n", 1)
        stored = _stored()
        entry = stored.get("templates", {}).get(name)
        if stored.get("compiled_with") != self.options or entry is None or entry["sha1"] != bucket.checksum:
            return   # another source, jinja2 or environment: the template is compiled from its file
        bucket.code = compile(entry["code"], filename, "exec")   # what Environment.compile does last

    def dump_bytecode(self, bucket: Bucket) -> None:
        pass


def template_names(env: jinja2.Environment) -> list[str]:
    return env.list_templates(filter_func=lambda n: n.endswith(".html") and "/" not in n)


def compiled(env: jinja2.Environment) -> dict:
    """What the store holds for these templates: jinja's code of each, and what it was made from."""
    out = {"compiled_with": options_of(env), "templates": {}}
    for name in template_names(env):
        source, filename, _ = env.loader.get_source(env, name)
        out["templates"][name] = {"sha1": hashlib.sha1(source.encode("utf-8")).hexdigest(),   # = jinja's checksum
                                  "code": env.compile(source, name, filename, raw=True)}
    return out


def store_text(env: jinja2.Environment) -> str:
    return json.dumps(compiled(env), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    from recipes_site.render.pages import TEMPLATES, _environment
    environment = _environment(str(TEMPLATES))
    STORE.write_text(store_text(environment), encoding="utf-8")
    print("compiled:", ", ".join(template_names(environment)), "->", STORE)
