"""Small page parts (render/pages.py) against their plain definitions: hardware labels, the
strategy notes, the hardware pills and JSON links, the static files."""

from __future__ import annotations

from types import SimpleNamespace

from recipes_site.jsish import mapping
from recipes_site.render import pages


def test_hardware_labels_add_the_gpu_count_only_where_names_are_shared():
    profiles = {
        "h100": {"display_name": "H100", "gpu_count": 8},
        "h100x4": {"display_name": "H100", "gpu_count": 4},
        "mi300": {"display_name": "MI300X"},
        "b200": {},
        "x": {"display_name": 7},
        "y": {"display_name": "7"},
        "z": {"display_name": "H100"},
    }
    assert pages.hw_labels(profiles) == {
        "h100": "H100 (8×)",
        "h100x4": "H100 (4×)",
        "mi300": "MI300X",
        "b200": "b200",
        "x": "7 (1×)",
        "y": "7 (1×)",
        "z": "H100 (1×)",
    }
    assert list(pages.hw_labels(profiles)) == list(profiles)


def _notes_plainly(strategies: dict, used: set) -> dict:
    out = {}
    for sid, spec in strategies.items():
        desc = " ".join(str(mapping(spec).get("description") or "").split())
        first = desc.split(". ")[0].rstrip(".")
        if sid in used and first:
            out[sid] = first + "."
    return out


def test_strategy_notes_equal_their_plain_definition():
    descriptions = [
        "One replica.  Scales out.",
        "Ends with a dot.",
        "...",
        ".",
        "",
        None,
        3.5,
        ["a. b"],
        "no dot",
        "  spaced\n out . x",
        "A. B. C",
        "Dots... then. more",
        "é. ü",
    ]
    strategies = {f"s{i}": {"description": d} for i, d in enumerate(descriptions)} | {
        "bare": {},
        "odd": "text",
    }
    docs = [
        {"renderings": [{"strategy": sid} for sid in list(strategies)[::2]]},
        {"renderings": [{"strategy": "s1"}, {"strategy": "odd"}, {"strategy": "missing"}]},
    ]
    used = {r["strategy"] for d in docs for r in d["renderings"]}
    ctx = SimpleNamespace(strategies=strategies)
    assert pages.strategy_notes(ctx, docs) == _notes_plainly(strategies, used)
    assert pages.strategy_notes(ctx, docs)["s0"] == "One replica."


# the model page's hardware pills as the template wrote them before `hardware_buttons`
_PILLS_BY_LOOKUP = """{% set hwlist, profiles, reasons, chosen = summary.variants[view.variant].hardware, summary.hardware, data.reasons[view.variant], view.hardware %}
{% for brand, ids in groups %}
<div class="hw-brand"><span class="brand-name">{{ brand }}</span>
{% for h in ids %}{% set p = profiles[h] %}
<button type="button" class="opt" role="radio" data-value="{{ h }}" {% if h == chosen %}aria-checked="true" tabindex="0"{% else %}aria-checked="false" tabindex="-1"{% endif %}{% if h not in hwlist %} aria-disabled="true" title="{{ reasons[h] }}"{% endif %}><b>{{ p.label }}</b><small>{{ p.gpu_count }}×{{ p.vram_per_gpu_gb|gb }} GiB</small>{% if p.verified %}<i class="ok"><span class="sr-only">verified</span></i>{% endif %}</button>
{% endfor %}
</div>
{% endfor %}
"""


def test_hardware_pills_are_written_as_by_the_template_lookups():
    """hardware_buttons gives the template each pill's fields; the pills are the same bytes."""
    source = (pages.TEMPLATES / "model.html").read_text(encoding="utf-8")
    start = source.index("{% for brand in hw_buttons %}")
    end = source.index("{% endfor %}\n</div>\n{% endfor %}\n", start) + len(
        "{% endfor %}\n</div>\n{% endfor %}\n"
    )
    env = pages._environment(str(pages.TEMPLATES))
    ours, theirs = env.from_string(source[start:end]), env.from_string(_PILLS_BY_LOOKUP)
    hardware = {
        "h100": {
            "label": 'H100 <SXM> & "8"',
            "brand": "NVIDIA",
            "gpu_count": 8,
            "vram_per_gpu_gb": 80.0,
            "verified": True,
        },
        "mi300": {
            "label": "MI300X",
            "brand": "AMD",
            "gpu_count": None,
            "vram_per_gpu_gb": 191.5,
            "verified": False,
        },
        "tpu": {
            "label": "TPU v6e",
            "brand": None,
            "gpu_count": 4,
            "vram_per_gpu_gb": 31.25,
            "verified": False,
        },
        "b200": {
            "label": "B200",
            "brand": "NVIDIA",
            "gpu_count": 1,
            "vram_per_gpu_gb": 178.4,
            "verified": True,
        },
    }
    summary = {
        "hardware": hardware,
        "variants": {"fp8": {"hardware": ["h100", "b200"]}, "bf16": {"hardware": []}},
    }
    reasons = {
        "fp8": {"mi300": "FP8 weights need <NVIDIA> hardware", "tpu": "No layout fits"},
        "bf16": {h: f"why {h} & more" for h in hardware},
    }
    for variant in ("fp8", "bf16"):
        for chosen in ("h100", "mi300", "nowhere"):
            view, data = {"variant": variant, "hardware": chosen}, {"reasons": reasons}
            page = dict(
                summary=summary,
                view=view,
                data=data,
                groups=pages.hardware_groups(summary),
                hw_buttons=pages.hardware_buttons(summary, reasons[variant], view),
            )
            assert ours.render(**page) == theirs.render(**page)
            assert (
                'title="FP8 weights need &lt;NVIDIA&gt; hardware"' in theirs.render(**page)
                or variant == "bf16"
            )


# the model page's 'JSON per hardware' links as the template wrote them before `hardware_json_links`
_JSON_LINKS_BY_LOOKUP = """{% if hw_json %}JSON per hardware: {% for h, u in hw_json.items() %}{% if not loop.first %}, {% endif %}<a href="{{ u }}">{{ hw_labels[h] }}</a>{% endfor %}{% endif %}</p>"""


def test_hardware_json_links_are_written_as_by_the_template_lookups():
    """hardware_json_links gives the template each link's separator, URL and label; the links
    are the same bytes (none, one, several; labels and ids holding characters to escape)."""
    source = (pages.TEMPLATES / "model.html").read_text(encoding="utf-8")
    start = source.index("{% if hw_json %}")
    end = source.index("</p>", start) + len("</p>")
    env = pages._environment(str(pages.TEMPLATES))
    ours, theirs = env.from_string(source[start:end]), env.from_string(_JSON_LINKS_BY_LOOKUP)
    labels = {"h100": "H100 (8×)", "b200": 'B200 <SXM> & "x"', "a&b": "A'B", "mi300": "MI300X"}
    for ids in ([], ["h100"], ["h100", "b200"], ["b200", "a&b", "mi300", "h100"]):
        hw_docs = {h: {} for h in ids}
        plain = {h: pages.url("/" + pages.hw_doc_path("org/re<po", h)) for h in hw_docs}
        links = pages.hardware_json_links("org/re<po", hw_docs, labels)
        assert ours.render(hw_json=links) == theirs.render(hw_json=plain, hw_labels=labels)
        assert ours.render(hw_json=links).count(", <a") == max(0, len(ids) - 1)


def test_static_assets_are_read_again_when_their_file_changes(tmp_path, monkeypatch):
    """Each page set reads the static files, so an edited file (`serve`) gets its new bytes and
    URL hash, an unchanged one keeps its own."""
    (tmp_path / "static").mkdir()
    css, js = tmp_path / "static" / "site.css", tmp_path / "static" / "site.js"
    for name in pages.STATIC:  # the on-demand scripts too
        (tmp_path / "static" / name).write_text("y()", encoding="utf-8")
    css.write_text("a{}", encoding="utf-8")
    js.write_text("x()", encoding="utf-8")
    monkeypatch.setattr(pages, "TEMPLATES", tmp_path)
    first = pages._Pages({}, {}, None)
    assert first.static_files["static/site.css"] == b"a{}"
    # scripts are served as lean_js writes them: one statement a line
    assert first.static_files["static/site.js"] == b"x()\n"
    assert first.static_files["static/verify.js"] == b"y()\n"
    css.write_text("a{color:red}", encoding="utf-8")
    second = pages._Pages({}, {}, None)
    assert (
        second.static_files["static/site.css"] == b"a{color:red}"
        and second.static_files["static/site.js"] == b"x()\n"
    )
    assert (
        second.static["site.css"] != first.static["site.css"]
        and second.static["site.js"] == first.static["site.js"]
    )


def test_counts_take_their_irregular_plural():
    from recipes_site.render.pages import _count

    assert _count(1, "copy", "copies") == "1 copy"
    assert _count(8, "copy", "copies") == "8 copies"
    assert _count(1_200, "GPU") == "1,200 GPUs"
    assert _count(1, "request") == "1 request"
