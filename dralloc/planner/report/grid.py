"""Shared pieces of the pictures: rows of coloured cells drawn as one image
(fast at any size), identical rows aggregated with their counts, a footnote
saying what is left out and where it is, and a legend kept off the cells."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FREE = ""
FREE_COLOUR = (0.9, 0.9, 0.9, 1.0)
EDGE_COLOUR = (1.0, 1.0, 1.0, 1.0)


@dataclass(frozen=True)
class Row:
    """One drawn row: ``count`` identical things (nodes, GPUs), named by the
    first of them, with a holder label per cell ("" free) and the cell
    positions where a new device starts."""

    name: str
    cells: tuple[str, ...]
    edges: tuple[int, ...] = ()
    count: int = 1

    @property
    def label(self) -> str:
        return self.name if self.count == 1 else f"{self.count:,} x like {self.name}"


def aggregate(rows: Sequence[Row]) -> list[Row]:
    """Identical rows (same cells and device boundaries) as one, with their
    count, named by the first in input order; most numerous first, then
    input order."""
    groups: dict[tuple[tuple[str, ...], tuple[int, ...]], list[Row]] = {}
    for r in rows:
        groups.setdefault((r.cells, r.edges), []).append(r)
    out = [Row(rs[0].name, rs[0].cells, rs[0].edges, sum(r.count for r in rs)) for rs in groups.values()]
    return [r for _, r in sorted(enumerate(out), key=lambda ir: (-ir[1].count, ir[0]))]


def colours(plt: Any, labels: Sequence[str]) -> dict[str, tuple[float, float, float, float]]:
    """A colour per holder label: tab10's distinct hues for up to ten, else
    tab20, tab20b and tab20c (60)."""
    if len(labels) <= 10:
        return {lab: plt.get_cmap("tab10")(i) for i, lab in enumerate(labels)}
    maps = [plt.get_cmap(m) for m in ("tab20", "tab20b", "tab20c")]
    return {lab: maps[(i // 20) % 3](i % 20) for i, lab in enumerate(labels)}


def draw_rows(ax: Any, rows: Sequence[Row], palette: dict[str, Any], width: int) -> None:
    """The rows as one image: a cell per column, free cells light grey, a
    thin white line where a device starts, row labels on the left."""
    import numpy as np

    image = np.ones((max(1, len(rows)), max(1, width), 4))
    for y, r in enumerate(rows):
        for x in range(width):
            lab = r.cells[x] if x < len(r.cells) else None
            image[y, x] = palette.get(lab, FREE_COLOUR) if lab is not None else EDGE_COLOUR
    ax.imshow(image, aspect="auto", interpolation="nearest", extent=(0, width, len(rows), 0))
    from matplotlib.collections import LineCollection

    lines = [[(e, y), (e, y + 1)] for y, r in enumerate(rows) for e in r.edges if 0 < e < width]
    lines += [[(0, y), (width, y)] for y in range(1, len(rows))]
    ax.add_collection(LineCollection(lines, colors="white", linewidths=0.8))
    size = 7 if len(rows) <= 30 else 6
    ax.set_yticks([y + 0.5 for y in range(len(rows))], [r.label for r in rows], fontsize=size)
    ax.set_xlim(0, width)
    ax.set_ylim(max(1, len(rows)), 0)
    ax.tick_params(axis="x", labelsize=6)


def legend_below(fig: Any, plt: Any, palette: dict[str, Any], title: str, bottom: float = 0.0) -> float:
    """A legend under the axes (never over the cells), ``bottom`` up from
    the figure's foot; returns the height fraction it needs (with ``bottom``)."""
    if not palette:
        return bottom
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in palette.values()]
    ncol = min(len(handles), 4)
    fig.legend(handles, list(palette), fontsize=7, loc="lower center", ncol=ncol, title=title, title_fontsize=7,
               frameon=False, bbox_to_anchor=(0.5, bottom))
    lines = (len(handles) + ncol - 1) // ncol + 1
    return bottom + min(0.45, (0.17 * lines + 0.08) / fig.get_figheight())


def footnote(fig: Any, text: str, bottom: float = 0.0) -> float:
    """A line at the bottom of the figure (what is cut and where the rest
    is); returns the height fraction it takes."""
    if not text:
        return 0.0
    fig.text(0.01, bottom + 0.01, text, fontsize=7, ha="left", va="bottom", style="italic")
    return 0.3 / fig.get_figheight()
