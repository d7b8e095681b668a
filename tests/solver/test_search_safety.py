"""Every CP-SAT search runs through dralloc.solver.search.run: never in the
configuration that aborts OR-Tools 9.15, a failed search retried with one
worker (and said), and the reason a search ended reported truthfully."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from ortools.sat.python import cp_model

from dralloc.solver.search import deterministic, run

# The smallest model found that aborts: two node types' configurations
# supplying two pod shapes; a complete feasible hint; interleaved workers; a
# callback that stops at the hint's value (the integer master's stop at its
# target bound). Presolve keeps variables, so the hint is postsolved.
MODEL = """
from ortools.sat.python import cp_model

class StopAt(cp_model.CpSolverSolutionCallback):
    def __init__(self, target):
        super().__init__()
        self.target, self.stopped = target, False

    def on_solution_callback(self):
        if self.objective_value >= self.target:
            self.stopped = True
            self.stop_search()

m = cp_model.CpModel()
x = [m.new_int_var(0, 3, f"x{i}") for i in range(3)]
y = [m.new_int_var(0, 3, f"y{i}") for i in range(2)]
m.add(sum(x) <= 3)
m.add(y[0] <= 2 * x[0] + x[1])
m.add(y[1] <= x[1] + 2 * x[2])
m.maximize(sum(y))
for v in x:
    m.add_hint(v, 1)
for v in y:
    m.add_hint(v, 3)
solver = cp_model.CpSolver()
solver.parameters.num_workers = 2
solver.parameters.interleave_search = True
"""


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_ortools_aborts_in_that_configuration() -> None:
    """The reproducer itself (what the guard exists for; when a new OR-Tools
    fixes it, this fails and the pin in pyproject.toml can move)."""
    got = _python(MODEL + "solver.solve(m, StopAt(6))\nprint('answered')")
    assert got.returncode != 0 and "answered" not in got.stdout
    assert "postsolve_mapping.size()" in got.stderr


def test_run_answers_the_same_search() -> None:
    got = _python(MODEL + "from dralloc.solver.search import run\n"
                  "ran = run(solver, m, StopAt(6))\n"
                  "print(ran.name, solver.objective_value, ran.why, solver.parameters.num_workers)")
    assert got.returncode == 0, got.stderr[-1000:]
    assert got.stdout.split() == ["OPTIMAL", "6.0", "None", "1"] or got.stdout.split() == ["FEASIBLE", "6.0",
                                                                                           "stopped", "1"]


def _hinted() -> cp_model.CpModel:
    m = cp_model.CpModel()
    x = m.new_int_var(0, 3, "x")
    m.maximize(x)
    m.add_hint(x, 1)
    return m


def test_deterministic_search_gives_a_hinted_model_one_worker() -> None:
    assert deterministic(_hinted(), 4, 5.0).parameters.num_workers == 1
    plain = cp_model.CpModel()
    plain.maximize(plain.new_int_var(0, 3, "x"))
    solver = deterministic(plain, 4, 5.0)
    assert solver.parameters.num_workers == 4 and solver.parameters.interleave_search
    assert solver.parameters.max_time_in_seconds == 5.0


def test_a_failed_search_is_retried_with_one_worker_and_says_so() -> None:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 2
    solver.parameters.interleave_search = True
    solver.parameters.enumerate_all_solutions = True   # refused with interleaved workers: MODEL_INVALID
    m = cp_model.CpModel()
    x = m.new_int_var(0, 3, "x")
    m.add(x >= 2)
    ran = run(solver, m)
    assert ran.found and solver.value(x) in (2, 3)
    assert ran.notes == ["CP-SAT failed with 2 workers (MODEL_INVALID); retried with one worker"]


def _golomb(marks: int) -> cp_model.CpModel:
    """A Golomb ruler of ``marks`` marks, shortest: far beyond a second."""
    m = cp_model.CpModel()
    top = marks * marks
    x = [m.new_int_var(0, top, f"x{i}") for i in range(marks)]
    m.add(x[0] == 0)
    diffs = []
    for i in range(marks):
        if i + 1 < marks:
            m.add(x[i + 1] > x[i])
        for j in range(i + 1, marks):
            d = m.new_int_var(1, top, f"d{i}_{j}")
            m.add(d == x[j] - x[i])
            diffs.append(d)
    m.add_all_different(diffs)
    m.minimize(x[-1])
    return m


def test_why_a_search_ended() -> None:
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = 0.3
    solver.parameters.num_workers = 1
    ran = run(solver, _golomb(13))
    assert ran.why == "time limit" and ran.at_time_limit
    assert ran.stopped_words() == "CP-SAT stopped at its time limit (0.3 s)"
    done = cp_model.CpSolver()
    done.parameters.max_time_in_seconds = 30.0
    finished = run(done, _hinted())
    assert finished.name == "OPTIMAL" and finished.why is None and finished.stopped_words() is None
    assert finished.wall < 30.0   # finished early: never "stopped at its time limit"


def test_every_cp_sat_search_goes_through_run() -> None:
    """No module calls a CP-SAT solver's solve itself (only cancel.solve,
    under search.run): every search is interruptible and never aborts."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "dralloc"
    direct = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "cancel.py" and path.parent.name == "solver":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("solve", "Solve") and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id.lower().endswith("solver"):
                direct.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    assert direct == []


def test_asking_whether_a_model_is_hinted_adds_no_hint() -> None:
    """Reading ``solution_hint`` of a model without one adds an empty hint,
    and OR-Tools 9.15 aborts some interleaved searches on an empty hint
    ("heuristics.fixed_search != nullptr", met by plan make-room's model): the
    search configuration must leave a model without a hint as it is."""
    from ortools.sat.python import cp_model as cpm

    from dralloc.solver.search import deterministic, run

    m = cpm.CpModel()
    xs = [m.new_bool_var(f"x{i}") for i in range(3)]
    m.add(sum(xs) >= 2)
    m.minimize(sum(xs))
    solver = deterministic(m, 2, 5.0)
    assert not m.proto.has_solution_hint() and solver.parameters.num_workers == 2
    assert run(solver, m).name == "OPTIMAL" and not m.proto.has_solution_hint()
