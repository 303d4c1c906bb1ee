"""The jinja environment class of the site's pages: jinja's own, with one lookup made cheaper.

Why: the templates read their data as `p.label`, `install.pip`, `view.sizing.ok`, and that data
is plain dicts (the API documents, the picker summary, page views). jinja's `Environment.getattr`
(what every `x.name` in a template compiles to) tries `getattr(x, "name")` first and only then
`x["name"]`: on a dict that is an AttributeError raised and caught per lookup, ~29k per compat
build's model pages, a quarter of their rendering time.

`PageEnvironment.getattr` goes to the item directly when the result cannot differ: the object is
exactly a `dict` (not a subclass, which may define attributes or `__missing__`) and the name, a
plain str, is none of dict's own attributes (so `getattr` would fail: a dict instance has no `__dict__`, its
attributes are its type's). `x.items()`, `x.get(...)` and every other object take jinja's path
unchanged. The generated template code is the same (it calls `environment.getattr`).
"""

from __future__ import annotations

from jinja2 import Environment

# every attribute a dict instance has (its type's, inherited ones included)
_DICT_ATTRIBUTES = frozenset(dir(dict))


class PageEnvironment(Environment):
    def getattr(self, obj, attribute: str):
        """`Environment.getattr` (attribute first, then item), the item read directly where the
        attribute lookup can only fail."""
        if type(obj) is dict and type(attribute) is str and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except (TypeError, LookupError, AttributeError):  # as jinja's own fallback catches
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)
