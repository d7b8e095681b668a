"""The CEL parser's LALR tables, kept between processes.

Lark works out the tables of cel-python's grammar (extended in
:mod:`dralloc.cel.parse`) in about 0.4 s of CPU, the first time a process
compiles an expression -- a load of a cluster pays it at admission, every
command that reads a DeviceClass pays it once. The parser built is saved
with Lark's own ``save``/``load`` under the user's cache folder
(``$XDG_CACHE_HOME/dralloc``, else ``~/.cache/dralloc``; ``DRALLOC_CACHE``
overrides it, and an empty value turns the cache off), named by a digest of
the grammar, the options, Lark's and Python's versions: another grammar or
release never reads it. A file that cannot be read or loaded is ignored and
the tables are worked out again; a folder that cannot be written is no error.
The file is written to a temporary name and renamed, so a process never sees
half of one."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lark


def folder() -> Path | None:
    """Where the tables are kept (None: not kept)."""
    given = os.environ.get("DRALLOC_CACHE")
    if given is not None:
        return Path(given) if given else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dralloc"


def _name(grammar: str, options: dict[str, Any]) -> str:
    text = "\0".join([grammar, repr(sorted((k, v) for k, v in options.items() if not callable(v) and k != "lexer_callbacks")),
                      lark.__version__, sys.version])
    return f"cel-lalr-{hashlib.sha256(text.encode()).hexdigest()[:32]}.lark"


def parser(grammar: str, callbacks: dict[str, Callable[..., Any]], **options: Any) -> lark.Lark:
    """``lark.Lark(grammar, lexer_callbacks=callbacks, **options)``, its tables
    read from the cache when an earlier process saved them."""
    where = folder()
    path = where / _name(grammar, options) if where is not None else None
    if path is not None:
        try:
            with path.open("rb") as f:
                return _loaded(lark.Lark.load(f), callbacks)
        except Exception:  # noqa: BLE001 - a missing, partial or foreign file: work the tables out
            pass
    made = lark.Lark(grammar, lexer_callbacks=callbacks, **options)
    if path is not None:
        _save(made, path)
    return made


def _loaded(got: lark.Lark, callbacks: dict[str, Callable[..., Any]]) -> lark.Lark:
    """A loaded parser, refused unless it calls the same lexer callbacks."""
    if got.options.lexer_callbacks != callbacks:
        raise ValueError("cached CEL parser with other lexer callbacks")
    return got


def _save(made: lark.Lark, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cel-lalr-")
        try:
            with os.fdopen(fd, "wb") as f:
                made.save(f)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, TypeError, AttributeError, lark.exceptions.LarkError):
        pass   # an unwritable cache folder is no error: the next process works the tables out again
