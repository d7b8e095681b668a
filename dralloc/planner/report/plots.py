"""Pictures (PNG, matplotlib -- the optional ``plot`` extra): first-fit
against optimal per question, utilisation per node, and slice-occupancy maps
of partitioned devices in the style of KEP-4815's memory-slice diagrams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dralloc.errors import InputError
from dralloc.planner.answer import Answer
from dralloc.planner.view.cluster import Cluster

HEADLINE_KEYS = {"fit": "pods", "add-nodes": "nodes", "layout": "units", "fragmentation": "unitsInUse"}


def _plt() -> Any:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("pictures need matplotlib: pip install 'dralloc[plot]'") from None
    return plt


def _bars(ax: Any, xs: list[float], values: list[int], width: float, label: str) -> None:
    bars = ax.bar(xs, values, width, label=label)
    ax.bar_label(bars, labels=[str(v) for v in values], fontsize=7, padding=1)


def _integer_ticks(ax: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def compare(answers: list[Answer], path: str | Path) -> None:
    """First-fit against the optimum, one pair of bars per answer."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(1.8 * max(2, len(answers)) + 2, 3.8))
    names, ff, opt = [], [], []
    for a in answers:
        key = HEADLINE_KEYS[a.question]
        names.append(f"{a.question}\n({key})")
        ff.append(int(a.first_fit.get(key) or 0))
        opt.append(int(a.optimal.get(key) or 0))
    xs = range(len(names))
    _bars(ax, [x - 0.2 for x in xs], ff, 0.4, "first-fit (Kubernetes)")
    _bars(ax, [x + 0.2 for x in xs], opt, 0.4, "optimal")
    ax.set_xticks(list(xs), names)
    ax.set_ylabel("count")
    _integer_ticks(ax)
    ax.margins(y=0.15)
    ax.set_title("First-fit (what Kubernetes does) against the optimum")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def workloads(a: Answer, path: str | Path, limit: int = 30) -> None:
    """Pods placed per workload, first-fit beside the optimum."""
    plt = _plt()
    ff, opt = a.first_fit.get("perWorkload") or {}, a.optimal.get("perWorkload") or {}
    names = sorted(set(ff) | set(opt))[:limit]
    fig, ax = plt.subplots(figsize=(max(5.0, 0.7 * len(names) + 2), 4.2))
    xs = list(range(len(names)))
    _bars(ax, [x - 0.2 for x in xs], [int(ff.get(n, 0)) for n in names], 0.4, "first-fit (Kubernetes)")
    _bars(ax, [x + 0.2 for x in xs], [int(opt.get(n, 0)) for n in names], 0.4, "optimal")
    ax.set_xticks(xs, [n.rpartition("/")[2] for n in names], rotation=45, ha="right", fontsize=7)
    ax.set_xlabel("workload (pod)")
    ax.set_ylabel("pods placed")
    _integer_ticks(ax)
    ax.margins(y=0.15)
    ax.set_title(f"Pods placed per workload: first-fit {a.first_fit.get('pods', 0)}, optimal {a.optimal.get('pods', 0)}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def utilisation(util: dict[str, Any], path: str | Path, limit: int = 60) -> None:
    plt = _plt()
    items = sorted(util.items())[:limit]
    fig, ax = plt.subplots(figsize=(max(4, 0.25 * len(items) + 2), 3.5))
    ax.bar([k for k, _ in items], [float(v) for _, v in items])   # floats only for drawing
    ax.set_ylim(0, 1)
    ax.set_ylabel("utilisation (cluster-autoscaler, DRA)")
    ax.set_xlabel("node")
    ax.set_title("Utilisation per node")
    ax.tick_params(axis="x", labelrotation=90, labelsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def occupancy(cluster: Cluster, assignment: list[dict[str, Any]] | None, path: str | Path,
              limit: int = 32) -> None:
    """One row per unit, one cell per memory slice, coloured by the partition
    occupying it: allocated devices (current state) or, with ``assignment``
    (from the layout question), the devices chosen there."""
    plt = _plt()
    rows = _rows(cluster, assignment)[:limit]
    labels = sorted({lab for _, cells in rows for lab in cells if lab})
    colours = {lab: plt.cm.tab20(i % 20) for i, lab in enumerate(labels)}
    width = max((len(cells) for _, cells in rows), default=8)
    fig, ax = plt.subplots(figsize=(2 + 0.5 * width, 1 + 0.3 * len(rows)))
    for y, (_, cells) in enumerate(rows):
        for x, lab in enumerate(cells):
            ax.add_patch(plt.Rectangle((x, y), 0.95, 0.9, color=colours.get(lab, (0.92, 0.92, 0.92))))
    ax.set_xlim(0, width)
    ax.set_ylim(0, max(1, len(rows)))
    ax.set_yticks([y + 0.45 for y in range(len(rows))], [name for name, _ in rows], fontsize=6)
    ax.set_xticks([x + 0.47 for x in range(width)], [f"slice {x}" for x in range(width)], fontsize=6)
    ax.invert_yaxis()
    ax.set_xlabel("memory slice")
    ax.set_ylabel("GPU (pool/counter set)")
    ax.set_title("Partitions chosen per GPU" if assignment is not None else "Partitions allocated now per GPU",
                 fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    if handles:
        ax.legend(handles, list(colours), fontsize=6, loc="upper left", bbox_to_anchor=(1, 1), title="profile",
                  title_fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _rows(cluster: Cluster, assignment: list[dict[str, Any]] | None) -> list[tuple[str, list[str]]]:
    """Per unit with memory slices, the label of the partition (profile)
    holding each slice: the allocated devices (current state) or the devices
    an assignment chose; a slice taken by something unknown is "allocated"."""
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
        if assignment is None:
            held = list(zip(u.used_labels, u.used_uses, strict=False))
        else:
            index = {d: i for i, d in enumerate(u.device_ids)}
            held = [(cluster.kinds[ut.devices[index[d]][1]][1], ut.devices[index[d]][0])
                    for d in chosen.get(u.label, []) if d in index]
        for label, use in held:
            for j, ci in enumerate(slices):
                if use[ci]:
                    cells[j] = label
        for j, ci in enumerate(slices):   # taken before (current state) and not drawn yet
            if assignment is None and ut.caps[ci] == 0 and not cells[j]:
                cells[j] = "allocated"
        out.append((u.label, cells))
    return out


def node_occupancy(a: Answer, path: str | Path, limit: int = 40) -> None:
    """Devices per node held by each workload, first-fit beside the optimum
    (answers of the general and configuration models)."""
    from dralloc.planner.report.occupancy import draw, node_row, owner_labels, pick_nodes

    plt = _plt()
    src = a.sources
    objs, demand = src["objs"], src["demand"]
    ff, opt = owner_labels(src["firstFit"], demand), owner_labels(src["optimal"], demand)
    nodes = pick_nodes(objs, ff, opt, limit)
    slices = src["slicesOf"]
    rows = [(node_row(n, slices(n), ff), node_row(n, slices(n), opt)) for n in nodes]
    more = f" ({len(nodes)} of {len(objs.nodes)} nodes)" if len(nodes) < len(objs.nodes) else ""
    draw(plt, rows, str(path), f"Device occupancy per node{more}",
         (int(a.first_fit.get("pods", 0)), int(a.optimal.get("pods", 0))))


def write_all(answers: list[Answer], prefix: str | Path) -> list[str]:
    """Every picture the answers call for, as ``PREFIX-<what>.png``; the
    paths written."""
    base = Path(prefix)
    if base.suffix == ".png":   # "report.png" -> report-compare.png, report-occupancy.png, ...
        base = base.with_suffix("")
    written: list[str] = []

    def out(what: str) -> str:
        written.append(f"{base}-{what}.png")
        return written[-1]

    compare(answers, out("compare"))
    a = answers[0]
    if a.detail.get("utilisation"):
        utilisation(a.detail["utilisation"], out("utilisation"))
    if a.first_fit.get("perWorkload") or a.optimal.get("perWorkload"):
        workloads(a, out("workloads"))
    if a.sources.get("objs") is not None:
        node_occupancy(a, out("nodes"))
    if a.cluster is not None and a.question in ("layout", "fragmentation"):
        occupancy(a.cluster, a.detail.get("assignment") if a.question == "layout" else None, out("occupancy"))
    return written
