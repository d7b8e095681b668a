"""Per-node device occupancy, first-fit beside the optimum.

A node is a row of cells in the allocator's search order: a device that
consumes a counter set with memory slices (a GPU with MIG partitions,
KEP-4815) is drawn once per memory slice of its counter set, each slice
coloured by the workload holding the partition on it; any other device
(whole GPU, NIC) is one cell. Free cells are light grey."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dralloc.io import ObjectSet
from dralloc.models import Node, ResourceClaim, ResourceSlice
from dralloc.planner.view.pods import PodsDemand

DeviceId = tuple[str, str, str]
FREE = ""


@dataclass
class Row:
    node: str
    cells: list[str]          # holder label per cell ("" free)
    edges: list[int]          # cell positions where a new device group (GPU / plain device) starts


def owner_labels(claims: Mapping[str, Sequence[ResourceClaim]], demand: PodsDemand) -> dict[DeviceId, str]:
    """Device -> the workload (pod name) whose claim holds it; a shared
    claim is labelled with its own name."""
    shorts = sorted(((p.name.rpartition("/")[2], p.name) for p in demand.pods), key=lambda s: -len(s[0]))
    out: dict[DeviceId, str] = {}
    for held in claims.values():
        for c in held:
            label = next((full for short, full in shorts if c.name.startswith(f"{short}-")), c.key)
            alloc = c.status.allocation if c.status else None
            for r in (alloc.devices.results or []) if alloc and alloc.devices else []:
                out[(r.driver, r.pool, r.device)] = label
    return out


def _slice_index(name: str) -> int | None:
    if name.startswith("memory-slice-") and name[13:].isdigit():
        return int(name[13:])
    return None


def node_row(node: Node, slices: Sequence[ResourceSlice], holders: Mapping[DeviceId, str]) -> Row:
    """The node's cells (devices of slices with its nodeName only)."""
    row = Row(node.name, [], [])
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
            did = (s.spec.driver, s.spec.pool.name, d.name)
            label = holders.get(did, FREE)
            used = [(cc.counter_set, i) for cc in d.consumes_counters or [] for k in cc.counters or {}
                    if (i := _slice_index(k)) is not None and (s.spec.driver, s.spec.pool.name, cc.counter_set) in sets]
            if not used:
                row.edges.append(len(row.cells))
                row.cells.append(label)
                continue
            for cs, i in used:
                key = (s.spec.driver, s.spec.pool.name, cs)
                if key not in start:
                    start[key] = len(row.cells)
                    row.edges.append(len(row.cells))
                    row.cells.extend([FREE] * sets[key])
                if label:
                    row.cells[start[key] + i] = label
    return row


def pick_nodes(objs: ObjectSet, ff: Mapping[DeviceId, str], opt: Mapping[DeviceId, str], limit: int) -> list[Node]:
    """Up to ``limit`` nodes in name order, those where first-fit and the
    optimum differ first."""
    nodes = sorted(objs.nodes, key=lambda n: n.name.encode())
    if len(nodes) <= limit:
        return nodes
    diff = {d[1] for d in set(ff) | set(opt) if ff.get(d) != opt.get(d)}
    pools = {n.name: {s.spec.pool.name for s in objs.slices if s.spec.node_name == n.name} for n in nodes}
    first = [n for n in nodes if pools[n.name] & diff]
    rest = [n for n in nodes if not pools[n.name] & diff]
    return sorted((first + rest)[:limit], key=lambda n: n.name.encode())


def draw(plt: Any, rows: list[tuple[Row, Row]], path: str, title: str, totals: tuple[int, int]) -> None:
    """Two panels (first-fit, optimum), one row per node."""
    labels = sorted({c for a, b in rows for c in [*a.cells, *b.cells] if c})
    cmap = plt.get_cmap("tab20")
    colours = {lab: cmap(i % 20) for i, lab in enumerate(labels)}
    width = max((len(r.cells) for pair in rows for r in pair), default=1)
    fig, axes = plt.subplots(1, 2, figsize=(min(16.0, 4 + 0.13 * width * 2), 2.4 + 0.3 * len(rows)), sharey=True)
    for ax, side, name, total in zip(axes, (0, 1), ("first-fit (Kubernetes)", "optimal"), totals, strict=True):
        for y, pair in enumerate(rows):
            r = pair[side]
            for x, lab in enumerate(r.cells):
                ax.add_patch(plt.Rectangle((x, y + 0.05), 0.92, 0.9, color=colours.get(lab, (0.9, 0.9, 0.9))))
            for e in r.edges:
                ax.axvline(e - 0.04, ymin=0, ymax=1, color="white", linewidth=0.5)
        ax.set_xlim(0, width)
        ax.set_ylim(0, max(1, len(rows)))
        ax.invert_yaxis()
        ax.set_title(f"{name}: {total} pods placed", fontsize=9)
        ax.set_xlabel("device cells in search order (a MIG GPU: one cell per memory slice)", fontsize=7)
        ax.set_yticks([y + 0.5 for y in range(len(rows))], [a.node for a, _ in rows], fontsize=6)
        ax.tick_params(axis="x", labelsize=6)
    axes[0].set_ylabel("node")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[lab]) for lab in labels[:20]]
    if handles:
        fig.legend(handles, labels[:20], fontsize=6, loc="center right", title="held by (workload)",
                   title_fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0, 0.86 if handles else 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
