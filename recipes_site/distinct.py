"""Distinct values in first-seen order, each with its index: the shared-lines form of the
per-model deploy.json parts (monitoring.py, render/kubernetes_api.py), where the renderings of a
model repeat most lines and a text is stored as indexes of them."""

from __future__ import annotations


class DistinctTable:
    """Each value once, in the order first seen; `index` gives its position."""

    def __init__(self) -> None:
        self.items: list = []
        self._index: dict = {}

    def index(self, value) -> int:
        found = self._index.get(value)
        if found is None:
            found = self._index[value] = len(self.items)
            self.items.append(value)
        return found
