"""Issue 24 point 7: bounds stop attacks (megabytes, deep nesting, alias and number blow-ups),
they do not police style. Each bound of the recipe formats must admit four times the longest
value of its kind in the public compat corpus; the few bounds that are someone else's grammar
(Hugging Face repo ids, docker image names, TCP ports) are listed with their source instead.

The corpus sits beside the checkout (../shared/compat/corpus); without it these tests skip."""

from __future__ import annotations

import json
import re

import pytest
import security_kit as kit
import yaml
from catalog_kit import COMPAT_CORPUS

from recipes_site.catalog import load_catalog
from recipes_site.catalog import yaml as recipe_yaml
from recipes_site.catalog.ids import MAX_PART
from recipes_site.catalog.shell_rules import NAME_TOTAL_MAX
from recipes_site.catalog.types import KvStoreSpec, Platforms, Recipe, Strategy, Taxonomy
from recipes_site.sizing import parse_parameter_count

# bounds that are another system's grammar, not ours to widen: (schema property or bound, source)
EXTERNAL = {
    "port": "a TCP port is 1-65535",
    "ids": "huggingface_hub REPO_ID_REGEX: each part of a repo id is 1-96 characters",
    "images": "distribution/reference.go NameTotalLengthMax: an image name is at most 255 characters",
}


@pytest.fixture(scope="module")
def corpus() -> list:
    if not (COMPAT_CORPUS / "models").is_dir():
        pytest.skip(f"no compat corpus at {COMPAT_CORPUS}")
    files = sorted(COMPAT_CORPUS.rglob("*.yaml"))
    return [(f, f.read_bytes()) for f in files]


def _leaves(node, key=None, depth=0):
    """(property name, value, depth) of every scalar, and each collection's own depth."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, str(k), depth + 1)
    elif isinstance(node, list):
        for v in node:
            yield from _leaves(v, key, depth + 1)
    else:
        yield key, node, depth


@pytest.fixture(scope="module")
def longest(corpus) -> dict:
    """The longest value of each kind in the corpus."""
    found = {"text": 0, "file": 0, "depth": 0, "int_digits": 0, "id_part": 0, "numbers": {}}
    for _, raw in corpus:
        found["file"] = max(found["file"], len(raw))
        for key, value, depth in _leaves(yaml.safe_load(raw)):
            found["depth"] = max(found["depth"], depth)
            if isinstance(value, str):
                found["text"] = max(found["text"], len(value))
                if key in ("model_id", "related_recipes"):
                    found["id_part"] = max(found["id_part"], *map(len, value.split("/")))
            elif isinstance(value, int) and not isinstance(value, bool):
                found["int_digits"] = max(found["int_digits"], len(str(abs(value))))
                found["numbers"][key] = max(found["numbers"].get(key, 0), abs(value))
    return found


def _schema_bounds():
    """(property, maxLength or None, maximum or None, has a grammar) of every bounded node of
    every file format's schema."""
    out = []

    def walk(node, prop, key_of=False):
        if isinstance(node, dict):
            if "maxLength" in node or "maximum" in node:
                # a mapping's keys here are ids (patternProperties holds their grammar)
                grammar = key_of or any(k in node for k in ("pattern", "enum", "const"))
                out.append((prop, node.get("maxLength"), node.get("maximum"), grammar))
            for k, v in node.items():
                if k == "properties" and isinstance(v, dict):
                    for name, sub in v.items():
                        walk(sub, name)
                else:
                    walk(v, prop, k == "propertyNames")
        elif isinstance(node, list):
            for v in node:
                walk(v, prop)

    for model in (Recipe, Taxonomy, Strategy, KvStoreSpec, Platforms):
        walk(model.model_json_schema(), None)
    return out


def test_no_free_text_field_is_shorter_than_four_times_the_corpus_longest(longest):
    """A length bound on text without a grammar polices style (model.parameter_count was capped
    at 32 characters: a real recipe's "~30B total (3B active per token)" failed to build)."""
    need = 4 * longest["text"]
    short = [
        (p, n)
        for p, n, _, grammar in _schema_bounds()
        if n is not None and not grammar and n < need
    ]
    assert short == [], f"free text must admit {need} characters"


def test_number_bounds_admit_four_times_the_corpus_largest(longest):
    numbers = longest["numbers"]
    bounds = [(p, m) for p, _, m, _ in _schema_bounds() if m is not None and p in numbers]
    assert {p for p, _ in bounds} >= {"context_length", "vram_minimum_gb", "vram_gb", "gpu_count"}
    low = [(p, m, numbers[p]) for p, m in bounds if m < 4 * numbers[p] and p != "port"]
    assert low == []
    assert max(m for p, m in bounds if p == "port") == 65535  # EXTERNAL["port"]


def test_file_size_nesting_and_number_literal_bounds(longest):
    assert recipe_yaml.MAX_FILE_BYTES >= 4 * longest["file"]
    assert recipe_yaml.MAX_EXPANDED_CHARS >= 4 * longest["file"]
    assert recipe_yaml.MAX_DEPTH >= 4 * longest["depth"]
    assert recipe_yaml._MAX_INT_BITS >= 4 * longest["int_digits"] * 4  # 4 bits per digit at most


def test_alias_bound_admits_four_times_the_corpus_aliases(corpus):
    most = max(raw.count(b"*") for _, raw in corpus)  # an upper bound on each file's aliases
    assert recipe_yaml.MAX_ALIAS_NODES >= 4 * most


def test_external_grammars_hold_every_corpus_value(longest):
    """Not ours to widen (EXTERNAL): every real value already fits them."""
    assert longest["id_part"] <= MAX_PART
    assert NAME_TOTAL_MAX == 255


def test_a_recipe_with_four_times_the_longest_free_text_everywhere_builds(tmp_path, longest):
    """Every free-text field at once, each four times the corpus's longest string: no error, and
    the build publishes it (the parameter counts as written, not sized)."""
    long = "Lorem ipsum dolor sit amet, " * (4 * longest["text"] // 28 + 1)
    count = "~30B total (3B active per token), " + long
    text = kit.recipe()
    for old in (
        'title: "Widget 7B"',
        'provider: "Acme"',
        'description: "A small dense test model."',
        'parameter_count: "7B"',
        'description: "Tool calling."',
        'description: "BF16 weights."',
    ):
        key = old.split(":")[0]
        value = count if key == "parameter_count" else long
        text = kit.replace(text, old, f"{key}: {json.dumps(value)}")
    text = kit.replace(text, "  A test recipe.\n", "  " + long + "\n")
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", text)
    _, diags = load_catalog(root)
    assert [d.format() for d in diags if d.level == "error"] == []
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    doc = json.loads((out / "api" / "v1" / "models" / "acme" / "Widget-7B.json").read_text())
    assert doc["recipe"]["model"]["parameter_count"] == count


@pytest.mark.parametrize(
    "text, billions",
    [
        ("7B", 7.0),
        ("~1.2T", 1200.0),
        ("9" * 15 + "B", 1e15),
        ("9" * 16 + "B", None),
        ("9" * 320 + "B", None),
    ],
)
def test_only_a_count_of_at_most_fifteen_digits_is_sized(text, billions):
    """The guard the 32-character cap stood for: a 320-digit count overflowed float arithmetic."""
    got = parse_parameter_count(text)
    assert got == pytest.approx(billions) if billions is not None else got is None
    assert got is None or got < float("inf")


def test_the_bounds_named_here_are_all_there_are():
    """A new length bound in the formats must be reviewed here: the schema's string bounds are the
    id grammars only."""
    strings = {(p, n) for p, n, _, _ in _schema_bounds() if n is not None}
    assert {n for _, n in strings} <= {MAX_PART, 2 * MAX_PART + 1}, strings
    assert re.search(r"\b96\b", EXTERNAL["ids"])
