"""One string that names a rendering across a model's documents: `<hw>/<variant>/<strategy>/<nodes>`.

A hardware document (`api/v1/models/<org>/<repo>/hw/<hw>.json`) lists each rendering once per
`(variant, strategy, node_count)` (render/api.py buckets them by `Rendering.key`); documents that
span every hardware of a model (monitoring, Kubernetes) key their entries by this string, so a
reader joins them to the hardware document's entry. Hardware and strategy ids hold no `/` (the
id grammar, catalog/ids.py, and strategy file names) and the node count is digits, so the key
splits back unambiguously even when a variant key holds a `/`: the hardware before the first
`/`, the strategy and node count after the last two.
"""

from __future__ import annotations


def rendering_key(rendering) -> str:
    """`<hardware>/<variant>/<strategy>/<node_count>` of a `synthesis.types.Rendering`."""
    return key_of(rendering.hardware, rendering.variant, rendering.strategy, rendering.node_count)


def key_of(hardware: str, variant: str, strategy: str, node_count: int) -> str:
    """The key of the rendering with these fields (a hardware document's entry names them)."""
    return f"{hardware}/{variant}/{strategy}/{int(node_count)}"


def split_key(key: str) -> tuple[str, str, str, int]:
    """(hardware, variant, strategy, node_count) of a key `rendering_key` made."""
    hardware, rest = key.split("/", 1)
    variant, strategy, nodes = rest.rsplit("/", 2)
    return hardware, variant, strategy, int(nodes)
