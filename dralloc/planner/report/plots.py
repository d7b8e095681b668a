"""Pictures (PNG, matplotlib -- the optional ``plot`` extra), each saying
what it compares, in which unit, and what it leaves out:

* ``compare.png``: the headline of each answer, side by side with the
  labels of its question (fit: first-fit against the optimum, in the
  objective's unit; fragmentation: in use now against re-packed);
* ``workloads.png``: pods placed per workload, first-fit beside the optimum
  with what was asked, on a log scale when the counts span two orders of
  magnitude; the workloads where the answers differ most first;
* ``utilisation.png``: DRA utilisation per node, or, for many nodes, how
  many nodes have each utilisation;
* ``nodes.png`` (:mod:`.occupancy`) and ``occupancy.png`` (:mod:`.slices`):
  device maps, identical nodes or GPUs aggregated with their counts."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from dralloc.errors import InputError
from dralloc.planner.answer import Answer
from dralloc.planner.report.grid import footnote

LOG_SPAN = 100       # a log scale when the largest bar is this many times the smallest non-zero one
MAX_BARS = 30        # workloads per picture
MAX_NODE_BARS = 40   # nodes drawn one by one in utilisation.png; more: a histogram


def _plt() -> Any:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("pictures need matplotlib: pip install 'dralloc[plot]'") from None
    return plt


def _num(v: Any) -> Fraction:
    return Fraction(v) if v is not None else Fraction(0)


def headline(a: Answer) -> tuple[str, list[tuple[str, Any]]]:
    """What the answer's picture compares: the quantity and its bars."""
    ff, opt = a.first_fit, a.optimal
    unit = (a.objective or {}).get("unit")
    key = unit.lower() if unit in ("GPUs", "devices") and a.question in ("fit", "fragmentation") else "pods"
    if a.question == "fit":
        what = f"{unit or 'pods'} placed" if key != "pods" else "pods placed"
        return what, [("first-fit (Kubernetes)", ff.get(key)), ("optimal", opt.get(key))]
    if a.question == "add-nodes":
        return "nodes to add", [("first-fit (Kubernetes)", ff.get("nodes")), ("optimal", opt.get("nodes"))]
    if a.question == "layout":
        return "GPUs used for the whole demand", [("first-fit (Kubernetes)", ff.get("units")),
                                                  ("optimal", opt.get("units"))]
    if "unitsInUse" in ff:
        return "GPUs in use", [("now", ff.get("unitsInUse")), ("re-packed (optimal)", opt.get("unitsInUse"))]
    what = f"{unit} placed" if key != "pods" else "pending pods placed"
    return what, [("now: first-fit (Kubernetes)", ff.get(key)), ("now: optimal", opt.get(key)),
                  ("after a re-pack: optimal", opt.get(f"{key}AfterRepack"))]


TITLES = {"fit": "first-fit (Kubernetes) against the optimum",
          "add-nodes": "first-fit (Kubernetes) against the optimum",
          "layout": "first-fit (Kubernetes) against the optimum",
          "fragmentation": "now against after a re-pack"}


def _log_if_wide(ax: Any, values: list[Fraction]) -> bool:
    """A log scale when the non-zero values span two orders of magnitude
    (call before drawing bars, so that zero bars get their label)."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) >= LOG_SPAN * min(positive):
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.5, top=float(max(positive)) * 3)
        return True
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=all(v.denominator == 1 for v in values)))
    return False


def _text(v: Any) -> str:
    """A bar's exact value: thousands separated, a fraction as ``n/d``, none as "-"."""
    return "-" if v is None else f"{v:,}" if isinstance(v, int) else str(v)


def _bars(ax: Any, xs: list[float], values: list[Any], width: float, label: str, colour: Any) -> None:
    shown = [float(_num(v)) for v in values]     # floats only for drawing; labels are exact
    bars = ax.bar(xs, shown, width, label=label, color=colour)
    log = ax.get_yscale() == "log"
    texts = ["" if log and v <= 0 else _text(raw) for v, raw in zip(shown, values, strict=True)]
    upright = len(xs) > 3 and max(map(len, texts), default=0) > 4     # many groups: long numbers would touch
    ax.bar_label(bars, labels=texts, fontsize=7 if not upright else 6, padding=1, rotation=90 if upright else 0)
    for x, v in zip(xs, shown, strict=True):
        if log and v <= 0:        # a zero bar has no top on a log scale: its label sits on the axis
            ax.text(x, 0.55, "0", ha="center", va="bottom", fontsize=7)


def compare(answers: list[Answer], path: str | Path) -> None:
    """The headline of every answer (a sweep: one group of bars each)."""
    plt = _plt()
    heads = [headline(a) for a in answers]
    names = list(dict.fromkeys(n for _, bars in heads for n, _ in bars))
    fig, ax = plt.subplots(figsize=(max(5.5, 1.6 * len(answers) * len(names) / 2 + 2.5), 4.2))
    width = 0.8 / len(names)
    cmap = plt.get_cmap("tab10")
    values = [_num(v) for _, bars in heads for _, v in bars]
    _log_if_wide(ax, values)
    for i, name in enumerate(names):
        xs = [x - 0.4 + width * (i + 0.5) for x in range(len(answers))]
        _bars(ax, xs, [dict(bars).get(name) for _, bars in heads], width, name, cmap(i))
    whats = list(dict.fromkeys(w for w, _ in heads))
    ax.set_xticks(list(range(len(answers))), [_answer_name(a) for a in answers], fontsize=8)
    ax.set_ylabel(" / ".join(whats) + (" (log scale)" if ax.get_yscale() == "log" else ""))
    ax.margins(y=0.2)
    q = answers[0].question
    ax.set_title(f"{q}: {TITLES[q]}\n({' / '.join(whats)})", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _answer_name(a: Answer) -> str:
    inputs = a.detail.get("inputs") or {}
    files = [*inputs.get("demand", []), *inputs.get("template", [])]
    return ", ".join(Path(f).stem for f in files) if files else a.question


def _asked(a: Answer) -> dict[str, int]:
    demand = a.sources.get("demand")
    if demand is not None:
        return {p.name: p.replicas for p in demand.pods}
    if a.cluster is not None:
        return {w.name: w.replicas for w in a.cluster.demand.workloads}
    return {}


def workload_order(ff: dict[str, int], opt: dict[str, int], asked: dict[str, int]) -> list[tuple[str, int]]:
    """Workloads with the same numbers (asked, first-fit, optimal) as one
    (name of the first by name, count), those where the answers differ most
    first, then the most asked, then by name."""
    same: dict[tuple[int, int, int], list[str]] = {}
    for n in sorted(set(ff) | set(opt) | set(asked)):
        same.setdefault((asked.get(n, 0), int(ff.get(n, 0)), int(opt.get(n, 0))), []).append(n)
    return [(names[0], len(names)) for (a, f, o), names in
            sorted(same.items(), key=lambda kv: (-abs(kv[0][2] - kv[0][1]), -kv[0][0], kv[1][0]))]


def workloads(a: Answer, path: str | Path, limit: int = MAX_BARS) -> None:
    """Pods placed per workload, first-fit beside the optimum, with what was
    asked; workloads with the same numbers as one bar group with their
    count; the workloads where the answers differ most first."""
    plt = _plt()
    ff, opt, asked = a.first_fit.get("perWorkload") or {}, a.optimal.get("perWorkload") or {}, _asked(a)
    every = workload_order(ff, opt, asked)
    shown = every[:limit]
    names = [n for n, _ in shown]
    fig, ax = plt.subplots(figsize=(min(16.0, max(6.0, 0.75 * len(names) + 2.5)), 4.6))
    xs = list(range(len(names)))
    cmap = plt.get_cmap("tab10")
    log = _log_if_wide(ax, [Fraction(v) for n in names for v in (ff.get(n, 0), opt.get(n, 0), asked.get(n, 0))])
    if asked:
        box = ax.bar(xs, [asked.get(n, 0) for n in names], 0.9, fill=False, edgecolor="0.55", linewidth=0.8,
                     label="asked")
        ax.bar_label(box, labels=[f"of {asked.get(n, 0):,}" if asked.get(n, 0) > max(ff.get(n, 0), opt.get(n, 0))
                                  else "" for n in names], fontsize=6, padding=1, color="0.4")
    _bars(ax, [x - 0.2 for x in xs], [int(ff.get(n, 0)) for n in names], 0.4, "first-fit (Kubernetes)", cmap(0))
    _bars(ax, [x + 0.2 for x in xs], [int(opt.get(n, 0)) for n in names], 0.4, "optimal", cmap(1))
    ax.set_xticks(xs, [n.removeprefix("default/") if k == 1 else f"{k} x like {n.removeprefix('default/')}"
                       for n, k in shown], rotation=40, ha="right", fontsize=7)
    ax.set_xlabel("workload (pod); workloads with the same numbers as one, with their count")
    ax.set_ylabel("pods placed per workload" + (" (log scale)" if log else ""))
    ax.margins(y=0.15)
    ax.set_title(f"Pods placed per workload: first-fit {a.first_fit.get('pods', 0):,}, optimal "
                 f"{a.optimal.get('pods', 0):,}" + (f" of {sum(asked.values()):,} asked" if asked else "")
                 + f" ({sum(k for _, k in every):,} workloads)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    note = ""
    if len(shown) < len(every):
        note = (f"Cut -- {len(shown)} of {len(every)} bar groups ({sum(k for _, k in shown):,} of "
                f"{sum(k for _, k in every):,} workloads), where the answers differ most first. "
                "Every workload: -o yaml, firstFit.perWorkload and optimal.perWorkload.")
    fig.tight_layout(rect=(0, footnote(fig, note), 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def utilisation(util: dict[str, Any], path: str | Path) -> None:
    """Per node (a few), or nodes per utilisation value (many)."""
    plt = _plt()
    values = {k: Fraction(v) for k, v in util.items()}
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    if len(values) <= MAX_NODE_BARS:
        items = sorted(values.items())
        ax.bar([k for k, _ in items], [float(v) for _, v in items])   # floats only for drawing
        ax.set_ylim(0, 1)
        ax.set_ylabel("utilisation")
        ax.set_xlabel("node")
        ax.tick_params(axis="x", labelrotation=90, labelsize=6)
        ax.set_title("DRA utilisation per node (as cluster-autoscaler computes it)", fontsize=9)
    else:
        _histogram(ax, values)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _histogram(ax: Any, values: dict[str, Fraction]) -> None:
    counts: dict[Fraction, int] = {}
    for v in values.values():
        counts[v] = counts.get(v, 0) + 1
    if len(counts) > 25:   # too many distinct values: tenths
        binned: dict[Fraction, int] = {}
        for v, n in counts.items():
            b = min(Fraction(9, 10), Fraction(int(v * 10), 10))
            binned[b] = binned.get(b, 0) + n
        labels = {b: f"{float(b):.0%}-{float(b + Fraction(1, 10)):.0%}" for b in binned}
        counts = binned
    else:
        labels = {v: f"{float(v):.0%}" if v.denominator <= 100 else str(v) for v in counts}
    keys = sorted(counts)
    log = _log_if_wide(ax, [Fraction(counts[k]) for k in keys])
    bars = ax.bar(range(len(keys)), [counts[k] for k in keys], 0.6)
    ax.bar_label(bars, labels=[f"{counts[k]:,}" for k in keys], fontsize=7, padding=1)
    ax.set_xticks(range(len(keys)), [labels[k] for k in keys], rotation=40, ha="right", fontsize=7)
    ax.set_ylabel("nodes" + (" (log scale)" if log else ""))
    ax.set_xlabel("DRA utilisation (as cluster-autoscaler computes it)")
    ax.margins(y=0.15)
    ax.set_xlim(-1, max(1, len(keys)))
    ax.set_title(f"Nodes per utilisation: {len(values):,} nodes (each node: -o yaml, detail.utilisation)",
                 fontsize=9)


def write_all(answers: list[Answer], prefix: str | Path) -> list[str]:
    """Every picture the answers call for, as ``PREFIX-<what>.png``; the
    paths written."""
    from dralloc.planner.report.occupancy import node_picture
    from dralloc.planner.report.slices import occupancy

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
    src = a.sources
    if src.get("objs") is not None:
        what, bars = headline(a)
        node_picture(_plt(), src["objs"], src["demand"], (src["firstFit"], src["optimal"]), src["slicesOf"],
                     out("nodes"), tuple(f"{_text(v)} {what}" for _, v in bars[:2]))   # type: ignore[arg-type]
    if a.cluster is not None and a.question in ("layout", "fragmentation"):
        occupancy(_plt(), a.cluster, a.detail.get("assignment") if a.question == "layout" else None,
                  out("occupancy"))
    return written
