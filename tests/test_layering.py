"""The layering of design.md, enforced: models import no solver, YAML or CEL;
the inventory imports no OR-Tools; encoders import no YAML or CEL; the verifier
imports no OR-Tools (it must stay independent of the solver it checks);
nothing outside the CLI imports the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "dralloc"

FORBIDDEN = {
    "models": ("ortools", "yaml", "celpy", "dralloc.cel", "dralloc.solver", "dralloc.encoders", "dralloc.inventory"),
    "inventory": ("ortools", "dralloc.encoders", "dralloc.solver"),
    "encoders": ("yaml", "celpy", "dralloc.cel", "dralloc.io"),
    "cel": ("ortools", "dralloc.solver", "dralloc.encoders"),
}
VERIFY_INDEPENDENT = ("rules.py", "claimcounts.py", "constraints.py", "shared.py", "nodesel.py")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def _bad(mods: set[str], banned: tuple[str, ...]) -> list[str]:
    return sorted(m for m in mods if any(m == b or m.startswith(b + ".") for b in banned))


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports(layer: str) -> None:
    for f in sorted((PKG / layer).rglob("*.py")):
        assert not _bad(_imports(f), FORBIDDEN[layer]), f"{f.relative_to(PKG)} imports {_bad(_imports(f), FORBIDDEN[layer])}"


def test_verifier_rules_import_no_solver() -> None:
    for name in VERIFY_INDEPENDENT:
        f = PKG / "verify" / name
        assert not _bad(_imports(f), ("ortools", "dralloc.solver", "dralloc.encoders")), name


def test_nothing_imports_the_cli() -> None:
    for f in sorted(PKG.rglob("*.py")):
        if f.parent.name == "cli":
            continue
        assert not _bad(_imports(f), ("dralloc.cli",)), f"{f.relative_to(PKG)} imports the CLI"
