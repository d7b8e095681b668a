"""Regular expressions as CEL's ``matches`` and the extension functions
(``find``, ``findAll``) use them: RE2 syntax and semantics (google-re2, as
cel-go), compiled once per pattern (a bounded cache); a pattern RE2 refuses is
a CEL runtime error, not a line on stderr."""

from __future__ import annotations

from typing import Any

import re2

from dralloc.cel.errors import CELRuntimeError
from dralloc.cel.libconv import go_str

_regex_cache: dict[str, Any] = {}
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False   # a bad pattern is a CEL error, not a line on stderr


def regex(pattern: str) -> Any:
    r = _regex_cache.get(pattern)
    if r is None:
        try:
            r = re2.compile(go_str(pattern), _RE2_OPTIONS)
        except Exception as e:  # re2.error
            why = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
            raise CELRuntimeError(f"invalid regular expression {pattern!r}: {why}") from None
        if len(_regex_cache) > 1024:
            _regex_cache.clear()
        _regex_cache[pattern] = r
    return r
