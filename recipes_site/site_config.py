"""Site settings: where the site is published, which repository its edit links point to, its name.

They live in `recipes-site.yaml` at the recipes root, because they belong to the recipes
repository being published, not to this tool (a fork publishes elsewhere):

    site_name: vLLM Recipes
    base_url: https://recipes.example.org          # canonical URLs, sitemap.xml, llms.txt, schema $ids
                                                   # (a path is fine: https://acme.github.io/recipes)
    repo_url: https://github.com/acme/recipes      # "Edit this recipe", "Request a recipe", Source
    edit_branch: main                              # the branch edit links open
    default_hardware: smallest_fit                 # model pages open on the smallest hardware
                                                   # that fits comfortably (runs_on.py); the
                                                   # default `reference` keeps the reference's rule

Every key is optional. Without `base_url` a build is a *local preview*: pages carry no canonical
URL, `sitemap.xml` lists site paths (the sitemap protocol needs absolute URLs: a comment in it
says so, and robots.txt does not name it), llms.txt links are
root-relative and the API schemas carry no `$id`; `build --publish` refuses such a build.
Without `repo_url` the pages carry no edit / request / source links (rather than links to a
repository that is not ours). No value is ever taken from this tool's own repository.

Layers, later ones winning: the file, then RECIPES_SITE_URL / RECIPES_SITE_REPO_URL in the
environment, then the CLI flags (`--base-url`, `--repo-url`, applied with :func:`overridden`,
which forked build workers inherit).
"""

from __future__ import annotations

import os
import re
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlencode, urlsplit

from pydantic import BaseModel, ConfigDict, StrictStr

from recipes_site.catalog.diagnostics import Diagnostic, Level
from recipes_site.errors import SettingRefused
from recipes_site.site_root import root_of

CONFIG_FILE = "recipes-site.yaml"
# `default_hardware`: which profile a variant opens on when the recipe's meta.default_hardware
# does not say (that always wins). REFERENCE_DEFAULT is the reference site's rule (H200 first,
# synthesis/selection.py `default_hardware`), which the recipes of the public corpus were written
# for; SMALLEST_FIT is the smallest hardware whose command fits comfortably (runs_on.py).
REFERENCE_DEFAULT, SMALLEST_FIT = "reference", "smallest_fit"
DEFAULT_SITE_NAME = "vLLM Recipes"
_BRANCH = re.compile(r"^[A-Za-z0-9._/-]{1,100}$")


class SiteSettings(BaseModel):
    """The keys of recipes-site.yaml (strict: unknown keys are errors with a did-you-mean)."""

    # defer_build: the validator is built when a recipes-site.yaml is first validated, not by
    # every command importing this module (a root without the file never needs it)
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)

    site_name: StrictStr | None = None
    base_url: StrictStr | None = None
    repo_url: StrictStr | None = None
    edit_branch: StrictStr | None = None
    default_hardware: Literal["reference", "smallest_fit"] | None = None


@dataclass(frozen=True)
class SiteConfig:
    """The effective settings of one build (None = not configured)."""

    repo_url: str | None = None
    site_url: str | None = None
    site_name: str = DEFAULT_SITE_NAME
    edit_branch: str = "main"
    default_hardware: str = REFERENCE_DEFAULT

    @classmethod
    def from_env(cls, base: SiteConfig | None = None) -> SiteConfig:
        """`base` (default: nothing configured) with the environment's URLs on top. They pass the
        checks of `base_url` / `repo_url` in recipes-site.yaml: a CI job's variable reaches the
        same links (an "Edit this recipe" href, canonical URLs) as the file's value would."""
        base = base or cls()
        repo = _env_url("RECIPES_SITE_REPO_URL")
        site = _env_url("RECIPES_SITE_URL")
        return replace(
            base,
            repo_url=repo.rstrip("/") if repo else base.repo_url,
            site_url=site.rstrip("/") if site else base.site_url,
        )

    @property
    def published(self) -> bool:
        """True when the site knows its own address (a build meant for publishing)."""
        return bool(self.site_url)

    def edit_url(self, hf_id: str) -> str | None:
        return (
            f"{self.repo_url}/edit/{self.edit_branch}/models/{hf_id}.yaml"
            if self.repo_url
            else None
        )

    def blob_url(self, path: str) -> str | None:
        return f"{self.repo_url}/blob/{self.edit_branch}/{path}" if self.repo_url else None

    def issue_url(self, title: str) -> str | None:
        return (
            f"{self.repo_url}/issues/new?{urlencode({'title': title}, quote_via=quote)}"
            if self.repo_url
            else None
        )

    def request_url(self, hf_id: str | None = None) -> str | None:
        if not self.repo_url:
            return None
        query = {"labels": "recipe-request", "title": f"Recipe request: {hf_id or ''}"}
        if hf_id:
            query["body"] = (
                f"Model: https://huggingface.co/{hf_id}\nHardware:\nPrecision:\nNotes:\n"
            )
        return f"{self.repo_url}/issues/new?{urlencode(query, quote_via=quote)}"

    def absolute(self, path: str) -> str:
        """Site path `path` ('/x/') on the published site; root-relative (under the site root) in a
        preview build. The base URL already holds the site root, so the path is appended as is."""
        return self.site_url + path if self.site_url else path

    @property
    def root(self) -> str:
        """The path the site is served under ('/' or '/recipes/' for https://acme.github.io/recipes):
        every page and API link is put beneath it (site_root.py)."""
        return root_of(self.site_url)


# -- checking values ----------------------------------------------------------------------------------


def url_problem(value: str, *, origin_only: bool) -> str | None:
    """Why `value` cannot be the site's base URL or a repository URL, else None; `origin_only`
    also refuses a path (the preview server serves its site at the root of its address)."""
    if any(c.isspace() or c in "\"'<>\\`" for c in value):
        return "expected a URL without spaces or quotes"
    # control (Cc) and format (Cf: bidi, zero-width) characters would reach terminals and pages
    if any(unicodedata.category(c) in ("Cc", "Cf") for c in value):
        return "expected a URL without control or invisible formatting characters"
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "expected an http:// or https:// URL with a host"
    if parts.username or parts.password or parts.query or parts.fragment:
        return "expected a URL without credentials, query or fragment"
    if origin_only and parts.path not in ("", "/"):
        return f"expected the server's own address without a path, not under {parts.path}"
    return None


def _env_url(name: str) -> str | None:
    """The environment variable `name` as a URL (None when unset or empty); SettingRefused when
    it is one no page may link to."""
    value = os.environ.get(name)
    if not value:
        return None
    why = url_problem(value, origin_only=False)
    if why:
        raise SettingRefused(f"{name}={value!r}: {why}")
    return value


def check_base_url(value: str) -> str | None:
    """Why `value` cannot be where the site is published. A path is allowed (a GitHub Pages
    project site, https://<owner>.github.io/<repo>): the pages link under it (site_root.py)."""
    return url_problem(value, origin_only=False)


def _value_problems(data: dict) -> list[tuple[str, str, str]]:
    """(key, message, hint) for string values that cannot work (checked even when another key has
    a schema error, so one run reports everything)."""
    text = {k: v for k, v in data.items() if isinstance(v, str)}
    out = []
    if "base_url" in text and (why := check_base_url(text["base_url"])):
        out.append(
            (
                "base_url",
                why,
                "e.g. https://recipes.example.org or https://<owner>.github.io/<repo>",
            )
        )
    if "repo_url" in text and (why := url_problem(text["repo_url"], origin_only=False)):
        out.append(("repo_url", why, "e.g. https://github.com/<owner>/<repo>"))
    name = text.get("site_name")
    if name is not None and not (0 < len(name.strip()) <= 80 and "\n" not in name):
        out.append(("site_name", "expected one line of 1 to 80 characters", ""))
    branch = text.get("edit_branch")
    if branch is not None and (
        not _BRANCH.match(branch) or ".." in branch or branch.startswith(("-", "/"))
    ):
        out.append(("edit_branch", "expected a git branch name (letters, digits, . _ / -)", ""))
    return out


def load_site_config(root: Path, display=str) -> tuple[SiteConfig, list[Diagnostic]]:
    """The settings in `root`/recipes-site.yaml (defaults when the file is absent), and every
    problem of the file as diagnostics at its line; an invalid file yields the defaults."""
    # imported here: schema_errors builds the recipe models on import, which the CLI's commands
    # that never read this file (`--version`, `--help`, `new`) need not wait for
    from recipes_site.catalog.schema_errors import validate
    from recipes_site.catalog.yaml import load_yaml_file

    path = Path(root) / CONFIG_FILE
    if not path.is_file():
        return SiteConfig(), []
    shown = display(path)
    loaded = load_yaml_file(path, shown)
    if loaded.data is None:
        return SiteConfig(), list(loaded.diagnostics)
    settings, diags = validate(
        SiteSettings, loaded.data, shown, loaded.positions, loaded.key_positions
    )
    for key, message, hint in _value_problems(loaded.data if isinstance(loaded.data, dict) else {}):
        line, col = loaded.positions.get((key,), (0, 0))
        diags.append(Diagnostic(shown, line, col, Level.ERROR, key, message, hint))
    if diags or settings is None:
        return SiteConfig(), diags
    return SiteConfig(
        repo_url=settings.repo_url.rstrip("/") if settings.repo_url else None,
        site_url=settings.base_url.rstrip("/") if settings.base_url else None,
        site_name=settings.site_name.strip() if settings.site_name else DEFAULT_SITE_NAME,
        edit_branch=settings.edit_branch or "main",
        default_hardware=settings.default_hardware or REFERENCE_DEFAULT,
    ), []


def check_site_config(root: Path, display=str) -> tuple[int, list[Diagnostic]]:
    """For the loader: (files read, diagnostics) of `root`/recipes-site.yaml, so `validate` and
    `build` report its problems with everything else's."""
    if not (Path(root) / CONFIG_FILE).is_file():
        return 0, []
    return 1, load_site_config(root, display)[1]


# -- the effective settings of a build -------------------------------------------------------------------

_OVERRIDES: dict[str, str] = {}


@contextmanager
def overridden(*, base_url: str | None = None, repo_url: str | None = None):
    """CLI flags: inside the block they win over the file and the environment (in this process
    and the build workers it forks); afterwards the previous settings are back."""
    saved = dict(_OVERRIDES)
    for key, value in (("site_url", base_url), ("repo_url", repo_url)):
        if value:
            _OVERRIDES[key] = value.rstrip("/")
    try:
        yield
    finally:
        _OVERRIDES.clear()
        _OVERRIDES.update(saved)


def site_config(root: Path) -> SiteConfig:
    """The effective settings for a build of `root`: file, environment, CLI flags."""
    config, _ = load_site_config(Path(root))
    return replace(SiteConfig.from_env(config), **_OVERRIDES)
