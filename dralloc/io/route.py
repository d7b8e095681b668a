"""Which YAML documents the fast parser may read.

fast-yaml resolves plain scalars by YAML 1.2's core schema; Kubernetes reads
YAML with go-yaml v2 (YAML 1.1). They differ only on plain scalars of a few
forms, and on constructs the fast parser reads but whose meaning is go-yaml's
to give (anchors, tags, merge keys, complex keys, directives).
:func:`needs_exact` finds any of them in a document's text (conservatively:
a false positive only costs speed), and such a document is read by the exact
path, :mod:`dralloc.io.goyaml` (which also gives floats as sigs.k8s.io/yaml's
JSON holds them, ``1.0`` as the integer ``1``, where the fast parser keeps a
float: a document with a plain float takes the exact path too). Every rule is
about one line, so a document's distinct lines can be checked instead of its
text. A property test
(tests/io/test_yaml_meaning.py) checks the promise: whatever the fast parser
reads from a document this lets through is what go-yaml reads."""

from __future__ import annotations

import re

# A plain scalar starts at the beginning of a line, after "- ", "? " or ": " (or
# right after the colon of a quoted key, JSON style),
# or after "[", "{" or "," (inside flow collections).
_START = r"""(?:^[ \t]*|[-?:][ \t]+|(?<=["']):|[\[{,][ \t]*)"""
_END = r"(?=[ \t]*(?:$|#|[,\]}]|:(?:[ \t]|$)))"
_KEY_END = r"(?=:(?:[ \t]|$))"
_DIFFERENT_VALUES = "|".join((
    r"[yYnN]|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF",   # YAML 1.1 booleans
    r"[-+]?0[0-9_xXoObB][^\s,\[\]{}#:]*",                 # Go's base prefixes, octal
    # underscores in numbers, or a float (1.0 reads as JSON's 1), tried after one
    # first character, so floats cost the router nothing more
    r"[-+]?[.0-9](?:[^\s,\[\]{}#:]*_[^\s,\[\]{}#:]*|(?<=\.)[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|(?<=[0-9])[0-9]*(?:\.[0-9]*|(?=[eE]))(?:[eE][-+]?[0-9]+)?)",
    r"[-+]_[^\s,\[\]{}#:]*",                             # ... right after a sign
    r"[-+]?[0-9]{19,}",                                     # beyond int64
    r"[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)",                 # not JSON
    r"<<",                                                 # merge keys
))
_NOT_STRING_KEYS = r"true|True|TRUE|false|False|FALSE|null|Null|NULL|~|[-+]?[.0-9][^\s,\[\]{}#:]*"
NEEDS_EXACT = re.compile(
    rf"{_START}(?:(?:{_DIFFERENT_VALUES}){_END}|(?:{_NOT_STRING_KEYS}){_KEY_END}|[&*!?:][^\s]|[&*!?:](?=\s|$))"
    r"|:[,\[\]{}]|^%", re.MULTILINE)


def needs_exact(text: str) -> bool:
    """Whether ``text`` may hold something the fast YAML 1.2 parser reads
    differently from Kubernetes: YAML 1.1 booleans, Go's integer forms,
    integers beyond int64, floats, infinities, merge keys, keys that are not strings,
    anchors, aliases, tags, complex keys or directives. False positives only
    cost speed."""
    return NEEDS_EXACT.search(text) is not None
