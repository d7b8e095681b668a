"""Per-node device occupancy, first-fit beside the optimum (``nodes.png``).

A node is a row of cells in the allocator's search order: a device that
consumes a counter set with memory slices (a GPU with MIG partitions,
KEP-4815) is drawn once per memory slice of its counter set, each slice
coloured by what holds the partition on it; any other device (whole GPU,
NIC) is one cell. Free cells are light grey.

Every node is drawn on its own when there are few (colours: the workload,
i.e. the pod, holding a device). Otherwise identical nodes -- same devices,
same holders cell by cell -- are one row with their count (colours: the
claim template, so that identical gangs on identical nodes are one
configuration), each side with its own rows, most numerous first; a cut is
said under the picture, with where every placement is."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.report.grid import (
    FREE,
    Row,
    aggregate,
    colours,
    draw_rows,
    footnote,
    legend_below,
)
from dralloc.planner.view.pods import PodDemand, PodsDemand

DeviceId = tuple[str, str, str]
MAX_ROWS = 30          # rows per side; more nodes (or configurations) are aggregated, then cut
MAX_WORKLOADS = 20     # distinct colours by workload; more: by claim template


def _short(key: str) -> str:
    return key.removeprefix("default/")


def _pod_of(name: str, shorts: Sequence[tuple[str, PodDemand]]) -> tuple[PodDemand, str] | None:
    """The pod whose template made the claim ``<pod>-<replica>-<ref>``, and ref."""
    return next(((p, name[len(short) + 1:].partition("-")[2]) for short, p in shorts
                 if name.startswith(f"{short}-")), None)


def owner_labels(claims: Mapping[str, Sequence[ResourceClaim]], demand: PodsDemand,
                 by: str = "workload") -> dict[DeviceId, str]:
    """Device -> what holds it: the workload (pod name) whose claim it is,
    or (``by="template"``) the claim's ResourceClaimTemplate; a claim of no
    pod's template (shared, PodGroup-level, lone) is named by itself."""
    shorts = sorted(((p.name.rpartition("/")[2], p) for p in demand.pods), key=lambda s: -len(s[0]))
    out: dict[DeviceId, str] = {}
    for held in claims.values():
        for c in held:
            label = c.key
            found = _pod_of(c.name, shorts) if c.key not in demand.shared else None
            if found is not None:
                pod, ref = found
                tmpl = next((t for r, t in pod.templates if r == ref), None)
                label = pod.name if by == "workload" or tmpl is None else f"{pod.namespace}/{tmpl.name}"
            alloc = c.status.allocation if c.status else None
            for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
                out[(r.driver, r.pool, r.device)] = _short(label)
    return out


def _slice_index(name: str) -> int | None:
    if name.startswith("memory-slice-") and name[13:].isdigit():
        return int(name[13:])
    return None


def node_row(node: Node, slices: Sequence[ResourceSlice], holders: Mapping[DeviceId, str]) -> Row:
    """The node's cells (devices of slices with its nodeName only)."""
    cells: list[str] = []
    edges: list[int] = []
    mine = sorted((s for s in slices if s.spec.node_name == node.name),
                  key=lambda s: (s.spec.driver.encode(), s.spec.pool.name.encode(), s.name.encode()))
    sets: dict[tuple[str, str, str], int] = {}
    for s in mine:
        for cset in s.spec.shared_counters or []:
            n = sum(1 for k in cset.counters or {} if _slice_index(k) is not None)
            if n:
                sets[(s.spec.driver, s.spec.pool.name, cset.name)] = n
    start: dict[tuple[str, str, str], int] = {}
    for s in mine:
        for d in s.spec.devices or []:
            label = holders.get((s.spec.driver, s.spec.pool.name, d.name), FREE)
            used = [(cc.counter_set, i) for cc in d.consumes_counters or [] for k in cc.counters or {}
                    if (i := _slice_index(k)) is not None and (s.spec.driver, s.spec.pool.name, cc.counter_set) in sets]
            if not used:
                edges.append(len(cells))
                cells.append(label)
                continue
            for cs, i in used:
                key = (s.spec.driver, s.spec.pool.name, cs)
                if key not in start:
                    start[key] = len(cells)
                    edges.append(len(cells))
                    cells.extend([FREE] * sets[key])
                if label:
                    cells[start[key] + i] = label
            if label:      # a held partition is a block of its own (two 3g side by side are two)
                at = [start[(s.spec.driver, s.spec.pool.name, cs)] + i for cs, i in used]
                edges.extend((min(at), max(at) + 1))
    return Row(node.name, tuple(cells), tuple(sorted(set(edges))))


def side_rows(nodes: Sequence[Node], slices_of: Callable[[Node], Sequence[ResourceSlice]],
              holders: Mapping[DeviceId, str], one_each: bool) -> list[Row]:
    rows = [node_row(n, slices_of(n), holders) for n in nodes]
    return rows if one_each else aggregate(rows)


def cut_note(sides: Sequence[Sequence[Row]], shown: Sequence[Sequence[Row]], nodes: int, one_each: bool) -> str:
    """What a cut picture leaves out, and where everything is ("" uncut)."""
    cut = [f"{side}: {len(rows)} of {len(full)} {'nodes' if one_each else 'kinds of node'} "
           f"({sum(r.count for r in rows):,} of {nodes:,} nodes)"
           for side, rows, full in zip(("first-fit", "optimal"), shown, sides, strict=True) if len(rows) < len(full)]
    return ("Cut -- " + "; ".join(cut) + ". Every pod's node: -o yaml, detail.placement.") if cut else ""


def node_picture(plt: Any, objs: ObjectSet, demand: PodsDemand, claims: tuple[Mapping[str, Sequence[ResourceClaim]],
                 Mapping[str, Sequence[ResourceClaim]]], slices_of: Callable[[Node], Sequence[ResourceSlice]],
                 path: str, totals: tuple[str, str]) -> None:
    """Both sides of a fit answer, one row per node or per identical nodes."""
    nodes = sorted(objs.nodes, key=lambda n: n.name.encode())
    one_each = len(nodes) <= MAX_ROWS and len(demand.pods) <= MAX_WORKLOADS
    by = "workload" if one_each else "template"
    sides = [side_rows(nodes, slices_of, owner_labels(c, demand, by), one_each) for c in claims]
    shown = [rows[:MAX_ROWS] for rows in sides]
    labels = sorted({c for rows in shown for r in rows for c in r.cells if c})
    palette = colours(plt, labels)
    width = max((len(r.cells) for rows in shown for r in rows), default=1)
    height = max(len(rows) for rows in shown)
    fig, axes = plt.subplots(1, 2, figsize=(min(18.0, 5 + 0.12 * width * 2), 2.6 + 0.28 * height))
    for ax, rows, name, total in zip(axes, shown, ("first-fit (Kubernetes)", "optimal"), totals, strict=True):
        draw_rows(ax, rows, palette, width)
        ax.set_title(f"{name}: {total}", fontsize=9)
        ax.set_xlabel("device cells in search order", fontsize=7)
    note = cut_note(sides, shown, len(nodes), one_each)
    kind = "each node" if one_each else f"identical nodes as one row, with their count ({len(nodes):,} nodes)"
    fig.suptitle(f"Devices per node, {kind}\n(a MIG GPU: one cell per memory slice; colour: "
                 f"{'workload' if one_each else 'claim template'} holding the device)", fontsize=9, y=0.99)
    foot = footnote(fig, note)
    low = legend_below(fig, plt, palette, "held by " + ("workload (pod)" if one_each else "claim template"), foot)
    fig.tight_layout(rect=(0, low, 1, 1 - 0.36 / fig.get_figheight()))
    fig.savefig(path, dpi=100)
    plt.close(fig)
