"""`recipes-site hardware`: the hardware profile ids a person may pass to `--hardware`, with what they are.

Why a command of its own: `--hardware` takes taxonomy ids (`rtx_pro_6000_2x`, `mi355x`) that are not
the names people know the machines by; the list puts id, name, GPU count and memory side by side.
Names come from a recipes root's taxonomy, which strangers may edit, so terminal control
characters are shown escaped, never sent to the terminal.
"""

from __future__ import annotations

from recipes_site.jsish import is_number, mapping

COLUMNS = (
    ("id", "id"),
    ("name", "name"),
    ("brand", "brand"),
    ("gpus", "GPUs"),
    ("gb_per_gpu", "GB/GPU"),
    ("gb_total", "GB total"),
    ("clusters", "clusters"),
)


def _shown(value) -> str:
    """One printable line: non-printable characters (ESC, newlines) as escapes."""
    text = "" if value is None else str(value)
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _number(value):
    return value if is_number(value) else None


def hardware_rows(profiles: dict) -> list[dict]:
    """One row per profile, in taxonomy order: id, display name, brand, GPUs per node, memory."""
    rows = []
    for hw_id, profile in profiles.items():
        profile = mapping(profile)
        rows.append(
            {
                "id": _shown(hw_id),
                "name": _shown(profile.get("display_name") or hw_id),
                "brand": _shown(profile.get("brand") or ""),
                "gpus": _number(profile.get("gpu_count")),
                "gb_per_gpu": _number(profile.get("vram_per_gpu_gb")),
                "gb_total": _number(profile.get("vram_gb")),
                "clusters": profile.get("scalable") is not False,
            }
        )
    return rows


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


def hardware_table(rows: list[dict]) -> str:
    """Aligned columns; numbers right-aligned."""
    table = [[title for _, title in COLUMNS]] + [
        [_cell(row[key]) for key, _ in COLUMNS] for row in rows
    ]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    numeric = {i for i, (key, _) in enumerate(COLUMNS) if key in ("gpus", "gb_per_gpu", "gb_total")}
    return "\n".join(
        "  ".join(
            cell.rjust(w) if i in numeric else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(line, widths))
        ).rstrip()
        for line in table
    )
