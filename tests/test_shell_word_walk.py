"""catalog.shell_rules.shell_word_problems (a plain recursion) finds what its first definition,
a generator over the whole recipe, found: same problems, same order, same key paths."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from recipes_site.catalog import shell_rules as SR
from recipes_site.catalog.yaml import load_yaml_file

ROOTS = [
    Path(__file__).resolve().parents[1] / "models",
    Path(__file__).resolve().parents[2] / "shared/compat/corpus/models",
]


def reference(data, path=()):
    """The first definition, kept as the plain statement of the rule."""
    if isinstance(data, list):
        for i, item in enumerate(data):
            yield from reference(item, path + (i,))
        return
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        where = path + (key,)
        if key in SR.SKIPPED and not path:
            continue
        if key in SR.ARG_KEYS and isinstance(value, list):
            for i, tok in enumerate(value):
                found = SR.arg_problem(tok) if isinstance(tok, str) else None
                if found:
                    yield (where + (i,), *found, False)
            for i, *found in SR.flag_value_problems(value):
                yield (where + (i,), *found, False)
        elif key == "docker_image":
            for at, image in SR._images(value, where):
                found = SR.image_problem(image)
                if found:
                    yield (at, *found, False)
        elif key in SR.ENV_KEYS and isinstance(value, dict):
            for name, env_value in value.items():
                found = SR.env_value_problem(name, env_value)
                if found:
                    yield (where + (name,), *found, False)
        else:
            yield from reference(value, where)


KEYS = sorted(SR.ARG_KEYS | SR.ENV_KEYS | SR.SKIPPED) + [
    "docker_image",
    "variants",
    "x",
    "features",
]
LEAVES = [
    "--ok",
    "--bad;flag",
    "--max-model-len 8",
    "value",
    "a\x01b",
    "--gpu-memory-utilization",
    "1.5",
    "--gpu_memory_utilization=0",
    "vllm/vllm-openai:v1",
    "docker pull vllm/x",
    "Bad Image",
    3,
    None,
    True,
]


def tree(rnd: random.Random, depth: int):
    pick = rnd.random()
    if depth > 3 or pick < 0.35:
        return rnd.choice(LEAVES)
    if pick < 0.6:
        return [tree(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    return {rnd.choice(KEYS): tree(rnd, depth + 1) for _ in range(rnd.randint(0, 5))}


def test_equal_to_the_generator_on_generated_trees():
    rnd = random.Random(13)
    kinds = set()
    for _ in range(3000):
        data = tree(rnd, 0)
        got = SR.shell_word_problems(data)
        assert got == list(reference(data))
        kinds.update(item[1] for item in got)
    assert kinds == {"error", "warning"}
    # a skipped key is skipped at the top only; an argument key holding a map is walked into
    data = {
        "meta": {"args": ["--bad;x"]},
        "x": {"meta": {"args": ["--bad;y"]}, "args": {"env": {"A": "\x02"}}},
    }
    assert [p for p, *_ in SR.shell_word_problems(data)] == [
        ("x", "meta", "args", 0),
        ("x", "args", "env", "A"),
    ]


@pytest.mark.parametrize("root", ROOTS, ids=["models", "compat"])
def test_equal_to_the_generator_on_recipes(root: Path):
    if not root.is_dir():
        pytest.skip("compat corpus not available")
    for path in sorted(root.rglob("*.yaml")):
        data = load_yaml_file(path, str(path)).data
        assert SR.shell_word_problems(data) == list(reference(data)), path
