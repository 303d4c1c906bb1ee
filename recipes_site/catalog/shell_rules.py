"""Recipe-side grammar of every string that becomes a word of a generated command.

Synthesis quotes whatever it prints (synthesis/shell.py), so these rules are not what keeps a
pasted command inert; they keep the *meaning* right and tell the author early, at file:line:
a "flag" with a `;` in it is no flag vLLM knows, an image name with a space is no image docker
can pull, and a control character never belongs on a command line. The reference build checks
none of this (REFERENCE-BEHAVIOUR.md section 8.3), so the two shapes of the public corpus it
prints bare (a flag and its value in one list item; `docker pull <image>` as an image) are
warnings, not errors: that corpus must keep validating unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from recipes_site.catalog.diagnostics import CONTROL_CHARS
from recipes_site.catalog.documents import RecipeDoc
from recipes_site.data import base_flag
from recipes_site.synthesis.shell import FLAG_NAME, LEGACY_FLAG, LEGACY_IMAGE

ARG_KEYS = frozenset({"base_args", "extra_args", "vllm_args", "args"})
ENV_KEYS = frozenset({"base_env", "extra_env", "env"})
SKIPPED = frozenset(
    {"guide", "dependencies", "install", "meta", "omni", "hardware_notes"}
)  # never argv words

# distribution/reference (github.com/distribution/reference, regexp.go and the grammar in
# reference.go): name [":" tag] ["@" digest]. Go's \w is ASCII, hence the explicit classes.
_ALNUM = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = rf"{_ALNUM}(?:{_SEPARATOR}{_ALNUM})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
OCI_REFERENCE = re.compile(rf"(?P<name>{_NAME})(?::{_TAG})?(?:@{_DIGEST})?")
NAME_TOTAL_MAX = 255  # reference.go: NameTotalLengthMax

FLAG_HELP = "a flag is --name or --name=value, the name made of letters, digits, '.', '_' and '-'"
# vLLM 0.33.0 vllm/config/cache.py:215, `gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)`:
# `vllm serve` refuses to start with any other value (read with float(), as argparse does)
FRACTION_FLAGS = frozenset({"--gpu-memory-utilization"})


def _control(value: str) -> str | None:
    m = CONTROL_CHARS.search(value)
    return None if m is None else f"U+{ord(m.group()):04X}"


def _suggest_flag(token: str) -> str:
    m = FLAG_NAME.match(token)
    return f"did you mean '{m.group()}'? " if m else ""


def arg_problem(token: str) -> tuple[str, str, str] | None:
    """(level, message, hint) for one argument list item, None when it is fine."""
    bad = _control(token)
    if token.startswith("-"):
        name, eq, value = token.partition("=")
        if bad is None and (FLAG_NAME.fullmatch(token) or (eq and FLAG_NAME.fullmatch(name))):
            return None
        if bad is None and LEGACY_FLAG.fullmatch(token):
            flag, rest = token.split(" ", 1)
            return (
                "warning",
                f"flag and value in one list item: '{token}'",
                f"write them as separate items: '{flag}', "
                + ", ".join(f"'{w}'" for w in rest.split(" ")),
            )
        return (
            "error",
            f"{token!r} is not a flag name (expected --?[A-Za-z0-9][A-Za-z0-9._-]*)",
            _suggest_flag(token) + FLAG_HELP,
        )
    if bad:
        return (
            "error",
            f"argument {token!r} holds the control character {bad}",
            "a command-line argument is one line of printable text",
        )
    return None


def flag_value_problems(tokens: list):
    """(index, level, message, hint) for each value in an argument list that vLLM refuses at
    start-up: a command that cannot run. `--flag=value` and `--flag value` both count, underscores
    too. A value that is not a number is refused as well: the commands quote every value, so a
    `$VAR` reaches vLLM as those characters, and argparse's float() refuses them."""
    for i, tok in enumerate(tokens):
        if not isinstance(tok, str) or base_flag(tok) not in FRACTION_FLAGS:
            continue
        if "=" in tok:
            at, value = i, tok.split("=", 1)[1]
        elif (
            i + 1 < len(tokens)
            and isinstance(tokens[i + 1], str)
            and base_flag(tokens[i + 1]) is None
        ):
            at, value = i + 1, tokens[i + 1]
        else:
            continue  # no value: vLLM says "expected one argument"; the flag checks see the rest
        try:
            fraction = 0 < float(value) <= 1  # (NaN is neither)
        except ValueError:
            fraction = False
        if not fraction:
            yield (
                at,
                "error",
                f"vLLM refuses --gpu-memory-utilization {value}: it takes the fraction of each "
                "GPU's memory vLLM may use, a number above 0 and at most 1",
                "e.g. 0.9 for 90%, or leave the flag out for vLLM's default (0.92)",
            )


def image_problem(image: str) -> tuple[str, str, str] | None:
    m = OCI_REFERENCE.fullmatch(image)
    if m and len(m.group("name")) <= NAME_TOTAL_MAX:
        return None
    if LEGACY_IMAGE.fullmatch(image) and OCI_REFERENCE.fullmatch(image.split(" ")[-1]):
        return (
            "warning",
            f"docker_image is a command, not an image: '{image}'",
            f"write the image alone: '{image.split(' ')[-1]}'",
        )
    return (
        "error",
        f"{image!r} is not a container image reference "
        "([registry[:port]/]path[:tag][@digest], lower-case path)",
        "e.g. vllm/vllm-openai:v0.11.0 or ghcr.io/org/image@sha256:<64 hex digits>",
    )


def env_value_problem(name: Any, value: Any) -> tuple[str, str, str] | None:
    """Env *names* are held to [A-Za-z_][A-Za-z0-9_]* by the schema (types.EnvName)."""
    bad = _control(value) if isinstance(value, str) else None
    if bad:
        return (
            "error",
            f"the value of {name} holds the control character {bad}",
            "an environment value on a command line is one line of printable text",
        )
    return None


def _images(value: Any, path: tuple):
    """Every image string of a `docker_image` value (a string, a brand map, a CUDA map)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _images(inner, path + (key,))


def shell_word_problems(data: Any) -> list[tuple[tuple, str, str, str, bool]]:
    """(path, level, message, hint, at_key) for every string of a recipe that becomes a command
    word, in document order."""
    return list(_word_problems(data, ()))


def _word_problems(data: Any, path: tuple) -> Iterator[tuple[tuple, str, str, str, bool]]:
    if isinstance(data, dict):
        items: Iterable[tuple[Any, Any]] = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return
    for key, value in items:
        where = path + (key,)
        if key in ARG_KEYS and isinstance(value, list):
            for i, tok in enumerate(value):
                problem = arg_problem(tok) if isinstance(tok, str) else None
                if problem:
                    yield (where + (i,), *problem, False)
            for i, *problem in flag_value_problems(value):
                yield (where + (i,), *problem, False)
        elif key == "docker_image":
            for at, image in _images(value, where):
                problem = image_problem(image)
                if problem:
                    yield (at, *problem, False)
        elif key in ENV_KEYS and isinstance(value, dict):
            for name, env_value in value.items():
                problem = env_value_problem(name, env_value)
                if problem:
                    yield (where + (name,), *problem, False)
        elif isinstance(value, (dict, list)) and (path or key not in SKIPPED):
            yield from _word_problems(value, where)


def check_shell_words(doc: RecipeDoc, catalog) -> list:
    """RECIPE_CHECKS rule: flag names, image references and env values that reach commands (model
    ids and env names have their grammar in catalog/ids.py and the schema)."""
    report = doc.report()
    for path, level, message, hint, at_key in shell_word_problems(doc.data):
        (report.error if level == "error" else report.warning)(path, message, hint, at_key=at_key)
    return report.items
