"""Distinct values in first-seen order, each with its index: the shared-lines form of the
per-model deploy.json parts (monitoring.py, render/kubernetes_api.py, render/pd_json.py) and the
hardware documents' feature and extra-tab sets (render/picker.py), where renderings repeat most
values and refer to them by index."""

from __future__ import annotations


class DistinctTable:
    """Each value once, in the order first seen; `index` gives its position."""

    def __init__(self) -> None:
        self.items: list = []
        self._index: dict = {}

    def index(self, value) -> int:
        return self.index_by(value, lambda: value)

    def index_by(self, key, make) -> int:
        """The index of the value known by `key` (a value that cannot key a dict itself goes by
        a text of it); `make()` gives the value when it is new."""
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.items)
            self.items.append(make())
        return found
