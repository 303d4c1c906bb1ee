"""Recipe text is data, never markup: a recipe full of HTML and script renders inert on every page."""

from __future__ import annotations

import json
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from recipes_site.build import synthesis_context, synthesize_catalog
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.catalog.diagnostics import errors
from recipes_site.render.api import api_documents
from recipes_site.render.pages import script_json, site_pages

EVIL_ID = "evil-org/Evil-Model"
TITLE = 'Evil </script><script>alert("title")</script> Model'
DESCRIPTION = '<img src=x onerror=alert("description")> & friends'
HEADLINE = '"><svg onload=alert("headline")>'
SPEED_CHART = '<svg viewBox="0 0 360 298" role="img"'  # templates/model.html, the speed chart
VARIANT = '</script><script>alert("variant")</script>'
FEATURE = '<b onmouseover=alert("feature")>bold</b>'
ARG = '</script><img src=x onerror=alert("arg")>'
GUIDE = """## Setup <script>alert("heading")</script>

<script>alert("guide")</script>

<img src=x onerror=alert("img")>

[click me](javascript:alert("link")) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
[vb](vbscript:msgbox(1)) <javascript:alert("autolink")> [ok](https://docs.vllm.ai/)

```html
</pre><script>alert("code")</script>
```
"""
INLINE_THEME = 'try{var t=localStorage.getItem("theme");if(t)document.documentElement.dataset.theme=t}catch(e){}'


def evil_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for name in ("strategies", "kv_store"):
        shutil.copytree(PROJECT_ROOT / name, root / name)
    shutil.copy(PROJECT_ROOT / "taxonomy.yaml", root / "taxonomy.yaml")
    data = yaml.safe_load((PROJECT_ROOT / "models/Qwen/Qwen3-8B.yaml").read_text())
    data["meta"].update(title=TITLE, description=DESCRIPTION, performance_headline=HEADLINE)
    data["meta"].pop("related_recipes", None)
    data["model"]["model_id"] = EVIL_ID
    data["variants"]["default"]["description"] = VARIANT
    data["variants"]["fp8"].update(model_id=EVIL_ID + "-FP8", description=VARIANT)
    data["features"]["reasoning"]["description"] = FEATURE
    data["features"]["evil"] = {"description": FEATURE, "args": ["--chat-template", ARG]}
    data["model"]["base_env"] = {"EVIL": ARG}
    data["guide"] = GUIDE
    target = root / "models" / EVIL_ID.split("/")[0] / (EVIL_ID.split("/")[1] + ".yaml")
    target.parent.mkdir(parents=True)
    target.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return root


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, bytes]:
    root = evil_root(tmp_path_factory.mktemp("evil"))
    catalog, diags = load_catalog(root)
    assert not errors(diags), [d.format() for d in errors(diags)]
    recipes = synthesize_catalog(catalog)
    ctx = synthesis_context(catalog)
    return site_pages(catalog, recipes, ctx, api_documents(recipes, ctx, catalog.taxonomy))


class Audit(HTMLParser):
    """Everything in a page that could run code."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict, str]] = []
        self.handlers: list[tuple[str, str]] = []
        self.urls: list[str] = []
        self.tags: list[str] = []
        self._in: dict | None = None
        self._buf: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.handlers += [(tag, k) for k in a if k.lower().startswith("on")]
        for key in ("href", "src", "action", "formaction", "content"):
            if (
                a.get(key)
                and not (tag == "link" and a.get("rel") == "icon")
                and not (tag == "meta" and key == "content" and not a.get("http-equiv"))
            ):
                self.urls.append(a[key])
        if tag == "script":
            self._in, self._buf = a, []

    def handle_data(self, data):
        if self._in is not None:
            self._buf.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._in is not None:
            self.scripts.append((self._in, "".join(self._buf)))
            self._in = None


def audit(text: str) -> Audit:
    a = Audit()
    a.feed(text)
    a.close()
    return a


def test_every_html_page_is_inert(files):
    pages = {p: b.decode() for p, b in files.items() if p.endswith(".html")}
    assert (
        f"{EVIL_ID}/index.html" in pages
        and "index.html" in pages
        and "evil-org/index.html" in pages
    )
    for path, text in pages.items():
        a = audit(text)
        assert a.handlers == [], path
        assert not [
            u for u in a.urls if u.strip().lower().startswith(("javascript:", "data:", "vbscript:"))
        ], path
        for attrs, body in a.scripts:
            if attrs.get("type") == "application/json":
                json.loads(body)
            elif attrs.get("src"):
                # site.js everywhere; the comparison page adds its own script
                allowed = ("/static/site.js?v=",) + (
                    ("/static/compare.js?v=",) if path == "compare/index.html" else ()
                )
                assert attrs["src"].startswith(allowed), path
                assert body == ""
            else:
                assert body == INLINE_THEME, (path, body)
        # the one SVG a page may hold is the model page's speed chart, a <use> of the build's file
        assert a.tags.count("svg") == text.count(SPEED_CHART) <= 1 and "img" not in a.tags, path


def test_no_recipe_string_appears_unescaped(files):
    for path, data in files.items():
        if not path.endswith(".html"):
            continue
        text = data.decode()
        for raw in (
            TITLE,
            DESCRIPTION,
            HEADLINE,
            VARIANT,
            FEATURE,
            ARG,
            "<script>alert(",
            "<img src=x",
            "<svg",
        ):
            assert raw not in text.replace(SPEED_CHART, ""), (path, raw)


def test_the_model_page_shows_the_text_escaped(files):
    text = files[f"{EVIL_ID}/index.html"].decode()
    assert (
        "<title>Evil &lt;/script&gt;&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt; Model on vLLM | vLLM Recipes</title>"
        in text
    )
    assert "&lt;img src=x onerror=alert(&#34;description&#34;)&gt; &amp; friends" in text
    assert (
        "&lt;script&gt;alert(&#34;guide&#34;)&lt;/script&gt;" in text
        or "&lt;script&gt;alert(&quot;guide&quot;)&lt;/script&gt;" in text
    )
    assert "click me" in text  # the link's text stays, as text
    body = text.split("<body>", 1)[1].lower()  # (the head's favicon is our own data: URL)
    for scheme in ("javascript:", "data:", "vbscript:"):
        assert f'href="{scheme}' not in body and f'src="{scheme}' not in body
    assert 'href="https://docs.vllm.ai/"' in text


def test_embedded_json_round_trips_the_hostile_strings(files):
    text = files[f"{EVIL_ID}/index.html"].decode()
    a = audit(text)
    data = json.loads(next(body for attrs, body in a.scripts if attrs.get("id") == "picker-data"))
    assert data["variants"]["default"]["description"] == VARIANT
    features = data["initial"]["feature_sets"][0]
    assert any(f["description"] == FEATURE for f in features)
    assert "</script>" not in text.split('id="picker-data">', 1)[1].split("</script>", 1)[0]


def test_script_json_escapes_every_tag_breaker():
    out = str(script_json({"a": "</script><!-- & \u2028 \u2029 -->"}))
    assert out == '{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028 \\u2029 --\\u003e"}'
    assert json.loads(out) == {"a": "</script><!-- & \u2028 \u2029 -->"}
