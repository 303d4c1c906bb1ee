"""lint.heading_matches / guide_sections: the guide's `## ` headings found by trying the pattern only
where a line starts with `## `, which must give exactly what the regex gives scanning every
character (finditer, findall, split read pairwise)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.catalog.lint import _HEADING, guide_sections, heading_matches
from recipes_site.catalog.yaml import load_yaml_file

COMPAT_MODELS = PROJECT_ROOT.parent / "shared" / "compat" / "corpus" / "models"


def regex_sections(guide: str) -> dict[str, str]:
    """The plain definition: the regex's split, read pairwise."""
    parts = _HEADING.split(guide)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def spans(matches) -> list:
    return [(m.start(), m.end(), m.group(1)) for m in matches]


def assert_same(guide: str) -> None:
    assert spans(heading_matches(guide)) == spans(_HEADING.finditer(guide))
    assert [m.group(1) for m in heading_matches(guide)] == _HEADING.findall(guide)
    sections = guide_sections(guide)
    assert sections == regex_sections(guide)
    assert list(sections) == list(regex_sections(guide))  # order too


# headings, their spacing and line breaks, in every combination that matters to the pattern
# (`^## +(.+?)\s*$` under re.M: a match's trailing \s* may run across blank lines)
PIECES = st.sampled_from(
    [
        "## ",
        "##",
        "#",
        " ",
        "  ",
        "\n",
        "\r\n",
        "\r",
        "\t",
        "a",
        "Usage",
        "## A\n",
        "\n## ",
        "\n\n## B  \n\n",
        "x ## y",
        "### ",
        "\u2028",
        "\x0b",
    ]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(PIECES, max_size=24).map("".join))
def test_heading_matches_are_the_regex_matches(guide):
    assert_same(guide)


@pytest.mark.parametrize(
    "guide",
    [
        "",
        "## ",
        "##  ",
        "## A",
        "## A\n## A\n",
        "## A  \n\n\n## B\ntext\n## A\nlast",
        "text\n## A\n",
        "## A\n  \n## B",
        "\n## A\n\n\n",
        "## A\r\n## B\r\n",
        "#### A\n## B",
        "## A\n## \n## C",
        "a\n##  \n",
        "## A\n\x0b\n## B",
    ],
)
def test_heading_matches_on_edges(guide):
    assert_same(guide)


def _guides():
    roots = [PROJECT_ROOT / "models"] + ([COMPAT_MODELS] if COMPAT_MODELS.is_dir() else [])
    for root in roots:
        for path in sorted(root.rglob("*.yaml")):
            data = load_yaml_file(path, str(path)).data
            guide = data.get("guide") if isinstance(data, dict) else None
            if isinstance(guide, str):
                yield guide


def test_heading_matches_on_every_guide_of_the_recipes():
    """models/ and, where present, the compat corpus."""
    guides = list(_guides())
    assert guides
    for guide in guides:
        assert_same(guide)


@pytest.mark.parametrize(
    "guide, expected",
    [
        ("", {}),
        ("no headings\nat all", {}),
        ("## A\nalpha\n## B\nbeta\n", {"A": "\nalpha\n", "B": "\nbeta\n"}),
        ("intro\n## A  \ntext", {"A": "\ntext"}),  # trailing spaces are not the name's
        ("## A\none\n## A\ntwo", {"A": "\ntwo"}),  # a repeated heading keeps the last
        ("### A\n## B\nb", {"B": "\nb"}),  # deeper headings are text
        ("x ## y\n## B\nb", {"B": "\nb"}),  # only at the start of a line
        ("##A\n## B", {"B": ""}),  # `##` needs a space
        ("## A\r\ntext\r\n## B\r\n", {"A": "\ntext\r\n", "B": ""}),  # \s* takes the \r
    ],
)
def test_guide_sections_on_examples(guide, expected):
    assert guide_sections(guide) == expected


def test_guide_sections_keep_the_guide_order():
    guide = "## Overview\no\n## Launch\nl\n## References\nr\n"
    assert list(guide_sections(guide)) == ["Overview", "Launch", "References"]
