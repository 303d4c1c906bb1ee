"""recipes-site.yaml: a strict typed file in the recipes root, read by build and serve; a preview
build (no base URL) says so and bakes no made-up address in; --publish refuses it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from recipes_site import cli
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.site_config import (
    CONFIG_FILE,
    SiteConfig,
    load_site_config,
    overridden,
    site_config,
)

RECIPE = "Qwen/Qwen3-8B"
CONFIG = """\
site_name: Acme Recipes
base_url: https://recipes.acme.test/
repo_url: https://git.acme.test/ml/recipes/
edit_branch: trunk
"""


def _root(tmp: Path, config: str | None) -> Path:
    """A recipes root with one bundled recipe (its related recipes dropped) and `config`."""
    root = tmp / "root"
    target = root / "models" / f"{RECIPE}.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(
        re.sub(
            r"  related_recipes:\n(    - .*\n)+",
            "",
            (PROJECT_ROOT / "models" / f"{RECIPE}.yaml").read_text(),
        )
    )
    if config is not None:
        (root / CONFIG_FILE).write_text(config)
    return root


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv("RECIPES_SITE_URL", raising=False)
    monkeypatch.delenv("RECIPES_SITE_REPO_URL", raising=False)


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """One published build (CONFIG) and one preview build (no file), via the CLI."""
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("RECIPES_SITE_URL", raising=False)
        mp.delenv("RECIPES_SITE_REPO_URL", raising=False)
        for name, config in (("published", CONFIG), ("preview", None)):
            tmp = tmp_path_factory.mktemp(name)
            root = _root(tmp, config)
            assert cli.main(["build", str(root), "--out", str(tmp / "site")]) == 0
            out[name] = tmp / "site"
    return out


def _text(site: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(site.rglob("*")) if p.is_file())


# -- the file -------------------------------------------------------------------------------------


def test_the_file_is_read_with_types_and_normalised(tmp_path):
    root = _root(tmp_path, CONFIG)
    config, diags = load_site_config(root)
    assert diags == []
    assert config == SiteConfig(
        repo_url="https://git.acme.test/ml/recipes",
        site_url="https://recipes.acme.test",
        site_name="Acme Recipes",
        edit_branch="trunk",
    )
    assert (
        config.edit_url(RECIPE)
        == "https://git.acme.test/ml/recipes/edit/trunk/models/Qwen/Qwen3-8B.yaml"
    )


def test_every_problem_of_the_file_is_reported_at_its_line_by_validate(tmp_path, capsys):
    root = _root(
        tmp_path,
        "site_nam: Acme\nbase_url: https://acme.github.io/recipes/?x=1\nrepo_url: 42\n"
        "edit_branch: ../x\n",
    )
    code = cli.main(["validate", str(root)])
    out = capsys.readouterr().out
    assert code == 1
    lines = [line for line in out.splitlines() if CONFIG_FILE in line]
    assert len(lines) == 4, out
    assert re.search(
        r"recipes-site\.yaml:1:1: error: site_nam: unknown key 'site_nam' \(did you mean 'site_name'\?\)",
        out,
    )
    assert re.search(
        r"recipes-site\.yaml:2:\d+: error: base_url: expected a URL without credentials, query or "
        r"fragment",
        out,
    )
    assert re.search(r"recipes-site\.yaml:3:\d+: error: repo_url: expected a string, got .*42", out)
    assert re.search(
        r"recipes-site\.yaml:4:\d+: error: edit_branch: expected a git branch name", out
    )


def test_an_invalid_file_fails_the_build_and_writes_nothing(tmp_path, capsys):
    root = _root(tmp_path, "base_url: ftp://x\n")
    assert cli.main(["build", str(root), "--out", str(tmp_path / "site"), "--publish"]) == 1
    assert "base_url: expected an http:// or https:// URL" in capsys.readouterr().out
    assert not (tmp_path / "site").exists()


HOSTILE_URLS = [
    "javascript:alert(2)//",
    "data:text/html,<script>alert(1)</script>",
    "https://x.example/\x1b]0;PWNED\x07",  # a terminal escape (window title)
    "https://github.com/acme/recipes\u202e",  # a bidi override
    "https://github.com/acme/re\u200bcipes",  # a zero-width space
]


@pytest.mark.parametrize("value", HOSTILE_URLS)
@pytest.mark.parametrize("variable", ["RECIPES_SITE_REPO_URL", "RECIPES_SITE_URL"])
def test_environment_urls_pass_the_files_checks(tmp_path, monkeypatch, capsys, variable, value):
    """The variables reach the same links as the file's keys (the "Edit this recipe" href, the
    canonical URLs): a value the file may not hold fails the build, which writes nothing."""
    monkeypatch.setenv(variable, value)
    root = _root(tmp_path, None)
    assert cli.main(["build", str(root), "--out", str(tmp_path / "site")]) == 1
    err = capsys.readouterr().err
    assert f"error: {variable}=" in err and "expected" in err
    assert "\x1b" not in err and "\u202e" not in err  # the value is shown escaped
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("value", HOSTILE_URLS)
def test_the_file_and_the_flags_refuse_the_same_urls(tmp_path, capsys, value):
    for key in ("base_url", "repo_url"):
        root = _root(tmp_path / key, f"{key}: {json.dumps(value)}\n")
        assert [d.key_path for d in load_site_config(root)[1]] == [key], (key, value)
    for flag in ("--repo-url", "--base-url"):
        with pytest.raises(SystemExit) as exc:
            cli.main(["build", str(tmp_path), "--out", str(tmp_path / "site"), flag, value])
        assert exc.value.code == 2, (flag, value)
    assert not (tmp_path / "site").exists()


def test_a_good_environment_url_is_used(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPES_SITE_REPO_URL", "https://git.example.org/team/recipes/")
    assert site_config(_root(tmp_path, None)).repo_url == "https://git.example.org/team/recipes"


def test_the_projects_own_file_is_valid_and_not_inherited_by_other_roots(tmp_path):
    assert (PROJECT_ROOT / CONFIG_FILE).is_file()
    config, diags = load_site_config(PROJECT_ROOT)
    assert diags == [] and config.site_name == "vLLM Recipes"
    assert site_config(_root(tmp_path, None)) == SiteConfig()


def test_layers_file_then_environment_then_cli_flags(tmp_path, monkeypatch):
    root = _root(tmp_path, CONFIG)
    assert site_config(root).site_url == "https://recipes.acme.test"
    monkeypatch.setenv("RECIPES_SITE_URL", "https://env.acme.test")
    assert site_config(root).site_url == "https://env.acme.test"
    with overridden(base_url="https://flag.acme.test/", repo_url=None):
        assert site_config(root).site_url == "https://flag.acme.test"
        assert site_config(root).repo_url == "https://git.acme.test/ml/recipes"
    assert site_config(root).site_url == "https://env.acme.test"  # the flag's block is over


def test_a_base_url_may_have_a_path_but_the_preview_servers_may_not(tmp_path, capsys):
    """GitHub Pages serves a project site under /<repo>/: build puts every link under it
    (test_base_path.py); serve serves its site at the root of its own address."""
    root = _root(tmp_path, "base_url: https://acme.github.io/recipes/\n")
    config, diags = load_site_config(root)
    assert (
        diags == []
        and config.site_url == "https://acme.github.io/recipes"
        and config.root == "/recipes/"
    )
    with overridden(base_url="https://acme.github.io/recipes"):
        assert site_config(_root(tmp_path / "b", None)).root == "/recipes/"
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", str(tmp_path), "--base-url", "https://acme.github.io/recipes"])
    assert exc.value.code == 2
    assert "without a path, not under /recipes" in capsys.readouterr().err


def test_serve_defaults_the_base_url_to_its_own_address(tmp_path, monkeypatch):
    seen = {}

    def fake_serve(root, out, port, host):
        seen["config"] = site_config(root)
        return 0

    monkeypatch.setattr("recipes_site.serve.serve", fake_serve)
    root = _root(tmp_path, CONFIG)
    assert cli.main(["serve", str(root), "--port", "8123"]) == 0
    assert (
        seen["config"].site_url == "http://127.0.0.1:8123"
        and seen["config"].site_name == "Acme Recipes"
    )
    assert cli.main(["serve", str(root), "--base-url", "https://preview.acme.test"]) == 0
    assert seen["config"].site_url == "https://preview.acme.test"


# -- what the two kinds of build write -------------------------------------------------------------


def test_a_published_build_uses_the_files_settings_everywhere(sites):
    site = sites["published"]
    page = (site / RECIPE / "index.html").read_text()
    assert f'<link rel="canonical" href="https://recipes.acme.test/{RECIPE}/">' in page
    assert f'href="https://git.acme.test/ml/recipes/edit/trunk/models/{RECIPE}.yaml"' in page
    assert "<title>Qwen3 8B on vLLM | Acme Recipes</title>" in page
    assert f"<loc>https://recipes.acme.test/{RECIPE}/</loc>" in (site / "sitemap.xml").read_text()
    assert "Sitemap: https://recipes.acme.test/sitemap.xml" in (site / "robots.txt").read_text()
    llms = (site / "llms.txt").read_text()
    assert (
        llms.startswith("# Acme Recipes\n") and f"(https://recipes.acme.test/{RECIPE}.md)" in llms
    )
    schema = json.loads((site / "api/v1/schema/model.schema.json").read_text())
    assert schema["$id"] == "https://recipes.acme.test/api/v1/schema/model.schema.json"


def test_a_preview_build_bakes_in_no_address(sites):
    site = sites["preview"]
    everything = _text(site)
    for made_up in ("127.0.0.1:8000", "example/recipes-site", "recipes-site.local"):
        assert made_up not in everything
    page = (site / RECIPE / "index.html").read_text()
    assert 'rel="canonical"' not in page and 'property="og:url"' not in page
    assert "Edit this recipe" not in page and "/issues/new" not in (site / "404.html").read_text()
    sitemap = (site / "sitemap.xml").read_text()  # always written: site paths, said so
    assert "Local preview" in sitemap and f"<loc>/{RECIPE}/</loc>" in sitemap
    assert "http" not in sitemap.replace("http://www.sitemaps.org/schemas/sitemap/0.9", "")
    assert 'href="/sitemap.xml"' in page
    assert "Sitemap:" not in (site / "robots.txt").read_text()
    assert f"[Qwen3 8B](/{RECIPE}.md)" in (site / "llms.txt").read_text()
    assert all(
        "$id" not in json.loads(p.read_text()) for p in (site / "api/v1/schema").glob("*.json")
    )


def test_a_preview_build_says_so_and_publish_refuses_it(tmp_path, capsys):
    root = _root(tmp_path, None)
    assert cli.main(["build", str(root), "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert (
        "warning: no base URL" in err
        and "local preview" in err
        and "sitemap.xml of site paths" in err
    )
    assert "warning: no repo_url" in err
    assert cli.main(["build", str(root), "--out", str(tmp_path / "b"), "--publish"]) == 2
    assert "--publish needs the site's base URL" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
    assert (
        cli.main(
            [
                "build",
                str(root),
                "--out",
                str(tmp_path / "c"),
                "--publish",
                "--base-url",
                "https://flag.acme.test",
                "--repo-url",
                "https://git.acme.test/x",
            ]
        )
        == 0
    )
    assert "warning" not in capsys.readouterr().err
    assert (
        '<link rel="canonical" href="https://flag.acme.test/'
        in (tmp_path / "c" / RECIPE / "index.html").read_text()
    )
