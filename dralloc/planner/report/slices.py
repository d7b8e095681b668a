"""Memory-slice maps of partitioned GPUs (``occupancy.png``), in the style
of KEP-4815's diagrams: one row per GPU, one cell per memory slice, each
cell coloured by the partition (MIG profile) holding it -- the partitions
allocated now (fragmentation) or those a layout chose. GPUs with the same
cells are one row with their count (most numerous first); what does not fit
is said under the picture, with where the whole list is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dralloc.planner.report.grid import Row, aggregate, colours, draw_rows, footnote, legend_below
from dralloc.planner.view.cluster import Cluster

MAX_ROWS = 40


def gpu_rows(cluster: Cluster, assignment: list[dict[str, Any]] | None) -> list[Row]:
    """Per unit with memory slices, the label of the partition (profile)
    holding each slice: the allocated devices (current state) or the devices
    an assignment chose; a slice taken by something unknown is "allocated".
    Each partition starts an edge (two 3g side by side are two blocks)."""
    chosen: dict[str, list[str]] = {}
    for row in assignment or []:
        chosen[row["unit"]] = row["devices"]
    out = []
    for u in cluster.units:
        ut = cluster.types[u.type]
        slices = [i for i, name in enumerate(ut.counters) if "memory-slice-" in name]
        if not slices:
            continue
        cells = [""] * len(slices)
        edges: set[int] = set()
        if assignment is None:
            held = list(zip(u.used_labels, u.used_uses, strict=False))
        else:
            index = {d: i for i, d in enumerate(u.device_ids)}
            held = [(cluster.kinds[ut.devices[index[d]][1]][1], ut.devices[index[d]][0])
                    for d in chosen.get(u.label, []) if d in index]
        for label, use in held:
            mine = [j for j, ci in enumerate(slices) if use[ci]]
            for j in mine:
                cells[j] = label
            edges.update(mine[:1] + [j + 1 for j in mine[-1:]])
        for j, ci in enumerate(slices):   # taken before (current state) and not drawn yet
            if assignment is None and ut.caps[ci] == 0 and not cells[j]:
                cells[j] = "allocated"
        out.append(Row(u.label.removesuffix("-counter-set"), tuple(cells),
                       tuple(sorted(e for e in edges if 0 < e < len(cells)))))
    return out


def occupancy(plt: Any, cluster: Cluster, assignment: list[dict[str, Any]] | None, path: str | Path) -> None:
    """The map; ``assignment`` (from the layout question) or, without it,
    the devices allocated now."""
    rows = aggregate(gpu_rows(cluster, assignment))
    total = sum(r.count for r in rows)
    shown = rows[:MAX_ROWS]
    labels = sorted({c for r in shown for c in r.cells if c})
    palette = colours(plt, labels)
    width = max((len(r.cells) for r in shown), default=8)
    fig, ax = plt.subplots(figsize=(6.5, 2.2 + 0.24 * max(1, len(shown))))
    draw_rows(ax, shown, palette, width)
    ax.set_xticks([x + 0.5 for x in range(width)], [str(x) for x in range(width)], fontsize=6)
    ax.set_xlabel("memory slice", fontsize=8)
    what = "Partitions chosen per GPU (layout)" if assignment is not None else "Partitions allocated now per GPU"
    alike = f"\n{total:,} GPUs; identical ones as one row, with their count" if len(rows) < total else ""
    ax.set_title(what + alike, fontsize=9)
    note = ""
    if len(shown) < len(rows):
        note = (f"Cut -- {len(shown)} of {len(rows)} kinds of GPU shown ({sum(r.count for r in shown):,} of "
                f"{total:,} GPUs). Every GPU: -o yaml, " + ("detail.assignment." if assignment is not None
                                                            else "detail.units."))
    foot = footnote(fig, note)
    low = legend_below(fig, plt, palette, "MIG profile", foot)
    fig.tight_layout(rect=(0, low, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)
