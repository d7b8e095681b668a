"""The layering of design.md, enforced.

Every room of the package has a layer; an import (function-level ones
included) may only go to a room of a lower layer, so nothing runs up the house
and there is no cycle between rooms. The independent checker sits below the
solver and the encoders; the cluster audit sits above the solver; the
planner's rooms are layered among themselves; nothing imports the CLI.
Libraries are kept where they belong: models import no YAML, CEL or
OR-Tools, the inventory and the checker no OR-Tools, encoders no YAML or CEL."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "dralloc"

# lowest first; rooms on one line share a layer and may not import each other
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("quantity", "release"),
    ("features",),
    ("models",),
    ("io", "cel"),
    ("validation", "formats", "inventory"),
    ("checker", "gangs", "extended"),
    ("encoders",),
    ("defects",),
    ("solver",),
    ("cluster",),
    ("check", "audit"),
    ("planner.objective",),
    ("planner", "planner.view", "planner.parallel", "planner.generate"),
    ("planner.simulate", "planner.pattern", "planner.answer"),
    ("planner.general",),
    ("planner.blocks", "planner.mixed"),
    ("planner.questions", "planner.report"),
    ("planner.makeroom",),
    ("planner.api", "upgrade"),
    ("cli",),
)
RANK = {room: i for i, rooms in enumerate(LAYERS) for room in rooms}
ROOT_MODULES = {"dralloc"}  # the package's own __init__ (version, top-level re-exports)

LIBRARIES = {
    "models": ("ortools", "yaml", "celpy"),
    "inventory": ("ortools",),
    "checker": ("ortools",),
    "encoders": ("yaml", "celpy"),
    "cel": ("ortools",),
}


def room(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return parts[0]
    if parts[1] == "planner" and len(parts) > 2:
        return f"planner.{parts[2]}"
    return parts[1]


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(parts)


def _import_statements(path: Path) -> list[tuple[str, list[str]]]:
    """Every absolute import in ``path`` (function-level and TYPE_CHECKING ones
    included): (module, the names taken from it; none for ``import m``)."""
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, [a.name for a in node.names]))
    return out


def _imports(path: Path) -> set[str]:
    return {module for module, _ in _import_statements(path)}


FILES = sorted(PKG.rglob("*.py"))


def test_every_room_has_a_layer() -> None:
    rooms = {room(_module(f)) for f in FILES} - ROOT_MODULES
    missing = sorted(r for r in rooms if r not in RANK)
    assert not missing, f"rooms without a layer (add them to LAYERS): {missing}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_run_down(path: Path) -> None:
    here = room(_module(path))
    if here in ROOT_MODULES:
        return
    up = []
    for mod in _imports(path):
        if not mod.startswith("dralloc."):
            continue
        there = room(mod)
        if there != here and there not in ROOT_MODULES and RANK.get(there, 99) >= RANK[here]:
            up.append(mod)
    assert not up, f"{path.relative_to(PKG)} ({here}) imports up or sideways: {sorted(up)}"


@pytest.mark.parametrize("where", sorted(LIBRARIES))
def test_libraries_stay_in_their_rooms(where: str) -> None:
    banned = LIBRARIES[where]
    for f in sorted((PKG / where).rglob("*.py")):
        bad = sorted(m for m in _imports(f) if any(m == b or m.startswith(b + ".") for b in banned))
        assert not bad, f"{f.relative_to(PKG)} imports {bad}"


def test_solver_never_imports_the_audit() -> None:
    for f in sorted((PKG / "solver").rglob("*.py")):
        assert not any(room(m) == "audit" for m in _imports(f) if m.startswith("dralloc.")), f.name


def test_a_lower_import_is_caught() -> None:
    """The rule itself: the checker importing the solver would be refused."""
    assert RANK[room("dralloc.solver.cpsat")] > RANK[room("dralloc.checker.rules")]
    assert RANK[room("dralloc.planner.view.cluster")] < RANK[room("dralloc.planner.questions.pattern")]


def _module_edges(path: Path, modules: set[str]) -> set[str]:
    """The dralloc modules ``path`` imports; ``from pkg import sub`` names the
    submodule, and a package's __init__ that only hands names on is not a
    module of its own."""
    out: set[str] = set()
    for module, names in _import_statements(path):
        subs = {f"{module}.{n}" for n in names} & modules
        out.update(subs or {module})
    return out & modules


def test_no_import_circles_inside_a_room() -> None:
    """No two modules import each other, directly or around a loop, even
    inside one package (the re-cut broke the last ones: encoders' model and
    families, CEL's values and errors, interp and its macros, the audit's
    pending pods and gangs, optimal and first-fit)."""
    import networkx as nx

    faces = {_module(f) for f in FILES if f.name == "__init__.py"}
    modules = {_module(f) for f in FILES} - faces
    graph = nx.DiGraph()
    for f in FILES:
        here = _module(f)
        if here in modules:
            graph.add_edges_from((here, there) for there in _module_edges(f, modules) if there != here)
    circles = sorted(sorted(c) for c in nx.simple_cycles(graph))
    assert not circles, f"import circles: {circles}"
