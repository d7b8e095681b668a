"""The one progress reporter (dralloc.io.progress): quiet for short work and
when nobody asked; on a terminal one line rewritten in place; in a log one
line per update; whole lines when several threads report at once."""

from __future__ import annotations

import io
import threading

import pytest

from dralloc.io import progress as prog
from dralloc.io.progress import Reporter, counter


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prog, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(prog, "EVERY", 0.0)
    monkeypatch.setattr(prog, "LOG_EVERY", 0.0)


def test_nothing_in_the_first_seconds_nor_when_disabled() -> None:
    out = io.StringIO()
    rep = Reporter(True, out, tty=False)
    rep("pods simulated", 1, 10)      # within SHOW_AFTER of the start
    Reporter(False, out, tty=False)("pods simulated", 2, 10)
    assert out.getvalue() == ""


def test_a_log_gets_one_line_per_update(at_once: None) -> None:
    out = io.StringIO()
    rep = Reporter(True, out, tty=False)
    rep("pods simulated", 1, 3)
    rep("pods simulated", 3, 3)
    rep("column generation: iteration", 1, note="LP 20.5")
    rep("CP-SAT: the integer master", note="4 configurations")
    rep.finish()
    assert out.getvalue().splitlines() == ["pods simulated 1/3", "pods simulated 3/3",
                                           "column generation: iteration 1 (LP 20.5)",
                                           "CP-SAT: the integer master: 4 configurations"]
    assert "\r" not in out.getvalue()


def test_a_log_shows_a_new_step_at_once_and_repeats_of_a_step_at_most_every_few_seconds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prog, "SHOW_AFTER", 0.0)
    out = io.StringIO()
    rep = Reporter(True, out, tty=False)
    for i in range(100):
        rep("nodes tried", i + 1, 100)
    rep("next step")
    assert out.getvalue().splitlines() == ["nodes tried 1/100", "next step"]


def test_a_terminal_line_is_rewritten_in_place_and_cleared(at_once: None) -> None:
    out = io.StringIO()
    rep = Reporter(True, out, tty=True)
    rep("nodes tried", 1, 20)
    rep("nodes tried", 2, 20)
    assert out.getvalue() == "\rnodes tried 1/20\rnodes tried 2/20"
    prog.clear_line()                  # what the command line does before printing the answer
    assert out.getvalue().endswith("\r" + " " * len("nodes tried 2/20") + "\r")
    rep.finish()


def test_threads_write_whole_lines(at_once: None) -> None:
    out = io.StringIO()
    rep = Reporter(True, out, tty=False)

    def work(t: int) -> None:
        for i in range(200):
            rep(f"search {t}", i)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = out.getvalue().splitlines()
    assert len(lines) == 800 and all(line.startswith("search ") and len(line.split()) == 3 for line in lines)


def test_counter_adapts_a_done_total_callback(at_once: None) -> None:
    seen: list[tuple[str, int | None, int | None]] = []
    tick = counter(lambda step, done=None, total=None, note="": seen.append((step, done, total)), "nodes analysed")
    assert tick is not None
    tick(3, 7)
    assert seen == [("nodes analysed", 3, 7)]
    assert counter(None, "x") is None
