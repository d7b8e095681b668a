"""The CEL parser's LALR tables kept between processes (dralloc/cel/tables.py):
a parser read from the cache parses exactly as one worked out afresh, and a
bad or unwritable cache is never an error."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import lark
import pytest

from dralloc.cel import parse, tables

OPTIONS: dict[str, Any] = dict(parser="lalr", start="expr", g_regex_flags=re.M, propagate_positions=True,
                               maybe_placeholders=False, priority="invert")
CALLBACKS = {"IDENT": parse._literal_callback}
EXPRESSIONS = ["device.attributes['gpu.example.com'].type == 'gpu' && true",
               "a.?b.orValue(1) > 2u || x[?'k'].hasValue()", "[1, 2.5, b'x', \"s\"].all(v, v != null)"]


def _trees(p: lark.Lark) -> list[str]:
    return [p.parse(e).pretty() for e in EXPRESSIONS]


def test_a_cached_parser_parses_as_a_fresh_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRALLOC_CACHE", str(tmp_path))
    fresh = tables.parser(parse._grammar(), CALLBACKS, **OPTIONS)
    saved = list(tmp_path.iterdir())
    assert len(saved) == 1 and saved[0].name.startswith("cel-lalr-")
    again = tables.parser(parse._grammar(), CALLBACKS, **OPTIONS)
    assert again is not fresh and _trees(again) == _trees(fresh)
    assert [t.type for t in again.parse("true").scan_values(lambda v: isinstance(v, lark.Token))] == ["BOOL_LIT"]


def test_another_grammar_never_reads_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRALLOC_CACHE", str(tmp_path))
    tables.parser(parse._grammar(), CALLBACKS, **OPTIONS)
    small = tables.parser('expr: "a" | "b"', {}, parser="lalr", start="expr")
    assert small.parse("b").pretty().strip() == "expr" and len(list(tmp_path.iterdir())) == 2


def test_a_broken_cache_file_is_worked_out_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRALLOC_CACHE", str(tmp_path))
    fresh = tables.parser(parse._grammar(), CALLBACKS, **OPTIONS)
    (saved,) = tmp_path.iterdir()
    saved.write_bytes(b"not a parser")
    assert _trees(tables.parser(parse._grammar(), CALLBACKS, **OPTIONS)) == _trees(fresh)
    assert saved.read_bytes() != b"not a parser"   # replaced by a good one


def test_an_unwritable_or_disabled_cache_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("DRALLOC_CACHE", str(blocker / "sub"))   # a folder under a file cannot be made
    assert _trees(tables.parser(parse._grammar(), CALLBACKS, **OPTIONS))
    monkeypatch.setenv("DRALLOC_CACHE", "")
    assert tables.folder() is None
    assert _trees(tables.parser(parse._grammar(), CALLBACKS, **OPTIONS))
