"""The path the published site lives under, and the one function that puts links beneath it.

GitHub Pages serves an ordinary repository's site at `https://<owner>.github.io/<repo>/`, so a
page cannot link to `/static/` or `/api/v1/`: those are the host's root, not the site's. Every
site link is therefore written as a root-relative *site path* (`/static/site.js`, `/<org>/<repo>/`)
and passed through :func:`url`, which puts it under the site root (`/recipes/static/site.js`).
Without a base URL, or with one at the root of its host, the root is `/` and :func:`url` returns
its argument unchanged, so those builds are byte for byte what they were before prefixes existed.

The root is process state set once per build (:func:`served_under`, from `SiteConfig.root`)
rather than a parameter of every API and page function: the API documents (api.py) carry site
links but know nothing of the site's settings, and the forked build workers inherit the value.
"""

from __future__ import annotations

from contextlib import contextmanager
from urllib.parse import urlsplit

_ROOT = "/"


def root_of(site_url: str | None) -> str:
    """The path part of a base URL as a site root: '' or '/' -> '/', '/recipes' -> '/recipes/'."""
    path = urlsplit(site_url).path.strip("/") if site_url else ""
    return f"/{path}/" if path else "/"


def root() -> str:
    """The current site root ('/' or '/<prefix>/', always with both slashes)."""
    return _ROOT


def url(path: str) -> str:
    """A site path ('/x/y', root-relative) as pages and API documents link to it: under the root.
    Anything else (relative, external, fragment) is returned unchanged."""
    if not path.startswith("/") or path.startswith("//"):
        return path
    return _ROOT[:-1] + path


def site_path(href: str) -> str:
    """The inverse of :func:`url`: a link under the root back to its site path ('/x/y')."""
    return "/" + href[len(_ROOT) :] if href.startswith(_ROOT) else href


@contextmanager
def served_under(site_root: str):
    """Inside the block, :func:`url` puts site paths under `site_root`; afterwards the previous
    root is back (so one process can build a prefixed site and then a preview)."""
    global _ROOT
    saved = _ROOT
    _ROOT = (
        site_root if site_root.startswith("/") and site_root.endswith("/") else root_of(site_root)
    )
    try:
        yield
    finally:
        _ROOT = saved
