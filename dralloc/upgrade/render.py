"""A comparison of two releases in words: the header lines, one row per
changed outcome, the summary (``dralloc compare-versions`` lays them out)."""

from __future__ import annotations

from dralloc.upgrade.compare import Comparison

WIDTH = 60   # table: outcomes are cut to this many characters (wide: whole)


def _cut(text: str, wide: bool) -> str:
    return text if wide or len(text) <= WIDTH else text[:WIDTH - 3] + "..."


def header(c: Comparison) -> list[str]:
    a, b = c.before, c.after
    lines = [f"Kubernetes {a.version} -> {b.version}"]
    read = [g.words() for g in c.gates if g.read]
    other = [g.words() for g in c.gates if not g.read]
    lines.append("gates: " + (", ".join(read) or "the allocator's are the same")
                 + (f" (not read by dralloc's engines: {', '.join(other)})" if other else ""))
    fa, fb = a.features, b.features
    lines.append(f"allocator: {a.version} runs {fa.kubernetes_variant()}, {b.version} runs "
                 f"{fb.kubernetes_variant()} (dralloc models them as {fa.variant().value} and {fb.variant().value})")
    for side in (a, b):
        lines.extend(f"api ({side.version}): {w}" for w in side.unserved)
    return lines


def summary(c: Comparison) -> str:
    counts = {k: sum(ch.kind == k for ch in c.changes) for k in ("claim", "pod", "gang")}
    return (f"{len(c.changes)} outcome(s) change ({counts['claim']} claim(s), {counts['pod']} pod(s), "
            f"{counts['gang']} gang(s)); {c.unchanged} unchanged")


def rows(c: Comparison, wide: bool = False) -> list[tuple[str, str, str, str, str]]:
    """One row per changed outcome: kind, name, before, after, why."""
    return [(ch.kind, ch.name, _cut(ch.before.text, wide), _cut(ch.after.text, wide), ch.why())
            for ch in c.changes]
