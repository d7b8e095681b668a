"""Pictures of a make-room plan or a drain: the affected nodes before and
after, one row per node, one cell per device in the allocator's search
order (a MIG GPU: one cell per memory slice, :func:`node_row`), each cell
coloured by the workload holding it (its ``app`` label, else the pod's
name); pods the plan evicts are hatched ``xx`` before, pods it moves ``//``
before and after, the pending work is outlined after. At most
:data:`LIMIT` nodes (the ones with the most changes first)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dralloc.io import ObjectSet
from dralloc.planner.makeroom.plan import DeviceId, RoomAnswer
from dralloc.planner.report.occupancy import FREE, Row, node_row
from dralloc.planner.report.plots import _plt

LIMIT = 40
HATCH = {"evicted": "xxxx", "moved": "////"}


def _rows(objs: ObjectSet, ans: RoomAnswer) -> list[tuple[Row, Row]]:
    by_name = {n.name: n for n in objs.nodes}
    changed = {name: sum(1 for d, p in [*ans.before.items(), *ans.after.items()] if d[1] == name
                         and ans.before.get(d) != ans.after.get(d)) for name in ans.nodes}
    names = sorted(sorted(ans.nodes, key=str.encode), key=lambda n: -changed[n])[:LIMIT]
    slices: dict[str, list[Any]] = {}
    for s in objs.slices:
        if s.spec.node_name in names:
            slices.setdefault(s.spec.node_name, []).append(s)
    out = []
    for name in sorted(names, key=str.encode):
        node = by_name.get(name)
        if node is None:
            continue
        out.append((node_row(node, slices.get(name, []), ans.before), node_row(node, slices.get(name, []), ans.after)))
    return out


WORK = (0.2, 0.2, 0.25)      # the pending work, whatever its name


def _colours(plt: Any, ans: RoomAnswer, rows: list[tuple[Row, Row]]) -> dict[str, Any]:
    works = sorted({ans.labels.get(c, c) for a, b in rows for c in [*a.cells, *b.cells]
                    if c and ans.marks.get(c) != "placed"})
    cmap = plt.get_cmap("tab20")
    return {w: cmap(i % 20) for i, w in enumerate(works)}


def _panel(plt: Any, ax: Any, rows: list[Row], ans: RoomAnswer, colours: dict[str, Any], after: bool) -> None:
    for y, r in enumerate(rows):
        for x, pod in enumerate(r.cells):
            mark = ans.marks.get(pod, "") if pod != FREE else ""
            colour = WORK if mark == "placed" else colours.get(ans.labels.get(pod, pod), (0.9, 0.9, 0.9)) \
                if pod else (0.92, 0.92, 0.92)
            edge = "black" if mark == "placed" or (mark == "moved" and after) else "white"
            hatch = HATCH.get(mark) if (mark == "evicted" and not after) or mark == "moved" else None
            ax.add_patch(plt.Rectangle((x, y + 0.05), 0.92, 0.9, facecolor=colour, edgecolor=edge, hatch=hatch,
                                       linewidth=1.2 if edge == "black" else 0.3))
        for e in r.edges:
            ax.axvline(e - 0.04, color="white", linewidth=0.5)


def draw(ans: RoomAnswer, objs: ObjectSet, path: str, title: str) -> None:
    plt = _plt()
    rows = _rows(objs, ans)
    colours = _colours(plt, ans, rows)
    width = max((len(r.cells) for pair in rows for r in pair), default=1)
    figw = min(18.0, 7 + 0.16 * width * 2)
    fig, axes = plt.subplots(1, 2, figsize=(figw, 2.6 + 0.32 * len(rows)), sharey=True)
    for ax, side, name in zip(axes, (0, 1), ("before", "after the plan"), strict=True):
        _panel(plt, ax, [pair[side] for pair in rows], ans, colours, side == 1)
        ax.set_xlim(0, width)
        ax.set_ylim(0, max(1, len(rows)))
        ax.invert_yaxis()
        ax.set_title(name, fontsize=9)
        ax.set_yticks([y + 0.5 for y in range(len(rows))], [a.name for a, _ in rows], fontsize=6)
        ax.tick_params(axis="x", labelsize=6)
    axes[0].set_ylabel("node")
    fig.supxlabel("device cells in search order (a MIG GPU: one cell per memory slice)", fontsize=7)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=colours[w]) for w in list(colours)[:16]]
    names = list(colours)[:16]
    if len(colours) > 16:
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="white"))
        names.append(f"... {len(colours) - 16} more (colours repeat)")
    handles += [plt.Rectangle((0, 0), 1, 1, facecolor=WORK, edgecolor="black", linewidth=1.5),
                plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch=HATCH["evicted"]),
                plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch=HATCH["moved"])]
    names += ["the pending work, placed", "evicted", "moved"]
    fig.legend(handles, names, fontsize=6, loc="center right", title="workload / mark", title_fontsize=7)
    shown = f" ({len(rows)} of {len(ans.nodes)} affected nodes)" if len(rows) < len(ans.nodes) else ""
    fig.suptitle(title + shown, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1 - 2.1 / figw, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_pictures(answer: Any, objs: ObjectSet, prefix: str) -> list[str]:
    """``PREFIX-before-after.png`` for a make-room answer, or for a drain
    (its make-room plan when it needed one, else where the displaced pods go)."""
    base = Path(prefix)
    if base.suffix == ".png":
        base = base.with_suffix("")
    path = f"{base}-before-after.png"
    room: RoomAnswer | None = answer if isinstance(answer, RoomAnswer) else getattr(answer, "picture", None)
    if room is None or not room.nodes:
        return []
    d = room.data
    if d.get("question") == "drain":
        title = f"drain {d['target']}"
    else:
        title = f"make room for {d['work']}: {d.get('disruptions', 0)} {'moves' if d['mode'] == 'move' else 'evictions'}"
    draw(room, objs, path, title)
    return [path]


__all__ = ["DeviceId", "draw", "write_pictures"]
