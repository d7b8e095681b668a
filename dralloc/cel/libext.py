"""CEL extension libraries enabled for DRA: ext Strings, ext Lists, ext Sets
and the Kubernetes list helpers (isSorted, sum, min, max, indexOf, lastIndexOf)."""

from __future__ import annotations

import json
from functools import cmp_to_key
from typing import Any

from dralloc.cel.cost import charge, text_cost
from dralloc.cel.errors import CELRuntimeError, no_overload
from dralloc.cel.values import UInt, cel_cmp, cel_eq, check_int, check_uint


def _ints(*vals: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in vals)


# ---------------------------------------------------------------- strings
def s_char_at(*a: Any) -> str:
    if len(a) != 2 or not isinstance(a[0], str) or not _ints(a[1]):
        raise no_overload("charAt", *a)
    if not 0 <= a[1] <= len(a[0]):
        raise CELRuntimeError(f"index out of range: {a[1]}")
    return a[0][a[1] : a[1] + 1]


def _index_of(fn: str, a: tuple[Any, ...], last: bool) -> int:
    if not a:
        raise no_overload(fn)
    if isinstance(a[0], list) and len(a) == 2:
        idx = [i for i, v in enumerate(a[0]) if cel_eq(v, a[1])]
        return (idx[-1] if last else idx[0]) if idx else -1
    if len(a) not in (2, 3) or not isinstance(a[0], str) or not isinstance(a[1], str):
        raise no_overload(fn, *a)
    s, sub = a[0], a[1]
    if len(a) == 3:
        if not _ints(a[2]):
            raise no_overload(fn, *a)
        if not 0 <= a[2] <= len(s):
            raise CELRuntimeError(f"index out of range: {a[2]}")
        return s.rfind(sub, 0, a[2] + len(sub)) if last else s.find(sub, a[2])
    return s.rfind(sub) if last else s.find(sub)


def s_index_of(*a: Any) -> int:
    return _index_of("indexOf", a, False)


def s_last_index_of(*a: Any) -> int:
    return _index_of("lastIndexOf", a, True)


def _ascii(s: str, upper: bool) -> str:
    return "".join(
        (c.upper() if upper else c.lower()) if c.isascii() else c for c in s
    )


def s_lower(*a: Any) -> str:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("lowerAscii", *a)
    return _ascii(a[0], False)


def s_upper(*a: Any) -> str:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("upperAscii", *a)
    return _ascii(a[0], True)


def s_replace(*a: Any) -> str:
    if len(a) not in (3, 4) or not all(isinstance(x, str) for x in a[:3]):
        raise no_overload("replace", *a)
    n = a[3] if len(a) == 4 else -1
    if not _ints(n):
        raise no_overload("replace", *a)
    s, old, new = a[0], a[1], a[2]
    count = s.count(old) if old else len(s) + 1
    if n >= 0:
        count = min(count, n)
    charge(text_cost(len(s) + count * max(0, len(new) - len(old))))   # the result, before building it
    return str(s.replace(old, new, n))


def s_split(*a: Any) -> list[str]:
    if len(a) not in (2, 3) or not isinstance(a[0], str) or not isinstance(a[1], str):
        raise no_overload("split", *a)
    n = a[2] if len(a) == 3 else -1
    if not _ints(n):
        raise no_overload("split", *a)
    if n == 0:
        return []
    s, sep = a[0], a[1]
    charge(len(s) + 1 if sep == "" else s.count(sep) + 1)   # the parts, before building them
    if sep == "":
        parts = list(s)
        return parts if n < 0 or n >= len(parts) else parts[: n - 1] + ["".join(parts[n - 1 :])]
    return s.split(sep, n - 1 if n > 0 else -1)


def s_substring(*a: Any) -> str:
    if len(a) not in (2, 3) or not isinstance(a[0], str) or not _ints(*a[1:]):
        raise no_overload("substring", *a)
    s, start = a[0], a[1]
    end = a[2] if len(a) == 3 else len(s)
    if not 0 <= start <= len(s) or not 0 <= end <= len(s) or start > end:
        raise CELRuntimeError(f"index out of range: {start if not 0 <= start <= len(s) else end}")
    return str(s[start:end])


def s_trim(*a: Any) -> str:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("trim", *a)
    return str(a[0].strip())


def s_join(*a: Any) -> str:
    if len(a) not in (1, 2) or not isinstance(a[0], list) or not all(isinstance(x, str) for x in a[0]):
        raise no_overload("join", *a)
    sep = a[1] if len(a) == 2 else ""
    if not isinstance(sep, str):
        raise no_overload("join", *a)
    charge(text_cost(sum(map(len, a[0])) + len(sep) * max(0, len(a[0]) - 1)))
    return sep.join(a[0])


def s_quote(*a: Any) -> str:
    if len(a) != 1 or not isinstance(a[0], str):
        raise no_overload("strings.quote", *a)
    return json.dumps(a[0], ensure_ascii=False)


# ---------------------------------------------------------------- lists
def _list(fn: str, a: tuple[Any, ...], n: int) -> list[Any]:
    if len(a) != n or not isinstance(a[0], list):
        raise no_overload(fn, *a)
    return a[0]


def l_range(*a: Any) -> list[int]:
    if len(a) != 1 or not _ints(a[0]):
        raise no_overload("lists.range", *a)
    charge(max(0, a[0]))
    return list(range(max(0, a[0])))


def l_slice(*a: Any) -> list[Any]:
    lst = _list("slice", a, 3)
    if not _ints(a[1], a[2]):
        raise no_overload("slice", *a)
    if a[1] < 0 or a[2] < 0 or a[1] > a[2] or a[2] > len(lst):
        raise CELRuntimeError(f"cannot slice({a[1]}, {a[2]}) of a list of size {len(lst)}")
    return lst[a[1] : a[2]]


def _flatten(lst: list[Any], depth: int) -> list[Any]:
    out: list[Any] = []
    charge(len(lst))   # nested lists may share elements: charge what is copied
    for v in lst:
        if isinstance(v, list) and depth > 0:
            out.extend(_flatten(v, depth - 1))
        else:
            out.append(v)
    return out


def l_flatten(*a: Any) -> list[Any]:
    if not a or not isinstance(a[0], list) or len(a) > 2 or not _ints(*a[1:]):
        raise no_overload("flatten", *a)
    depth = a[1] if len(a) == 2 else 1
    if depth < 0:
        raise CELRuntimeError("level must be non-negative")
    return _flatten(a[0], depth)


def _key(v: Any) -> Any:
    """A hashable key equal exactly when CEL values are equal (numbers across
    int, uint and double; NaN never), or None when there is none."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int | float):
        return None if v != v else ("num", v)
    if isinstance(v, str | bytes) or v is None:
        return (type(v).__name__, v)
    return None


def l_distinct(*a: Any) -> list[Any]:
    out: list[Any] = []
    seen: set[Any] = set()
    for v in _list("distinct", a, 1):
        k = _key(v)
        if k is not None:
            if k not in seen:
                seen.add(k)
                out.append(v)
            continue
        charge(len(out))
        if not any(cel_eq(v, o) for o in out):
            out.append(v)
    return out


def l_reverse(*a: Any) -> Any:
    if len(a) == 1 and isinstance(a[0], str):
        return a[0][::-1]
    return list(reversed(_list("reverse", a, 1)))


def _sorted(fn: str, lst: list[Any]) -> list[Any]:
    return sorted(lst, key=cmp_to_key(lambda x, y: cel_cmp(fn, x, y)))


def sort_cost(n: int) -> int:
    """Comparisons of a sort of ``n`` elements: n·⌈log2 n⌉."""
    return n * max(1, n.bit_length())


def l_sort(*a: Any) -> list[Any]:
    lst = _list("sort", a, 1)
    charge(sort_cost(len(lst)))
    return _sorted("sort", lst)


def l_is_sorted(*a: Any) -> bool:
    lst = _list("isSorted", a, 1)
    return all(cel_cmp("isSorted", lst[i], lst[i + 1]) <= 0 for i in range(len(lst) - 1))


def l_sum(*a: Any) -> Any:
    lst = _list("sum", a, 1)
    if not lst:
        return 0
    total = lst[0]
    for v in lst[1:]:
        if type(v) is not type(total) or isinstance(v, bool) or not isinstance(v, int | float):
            raise no_overload("sum", *a)
        total = total + v
    if isinstance(lst[0], UInt):
        return check_uint(total)
    return check_int(total) if isinstance(total, int) else total


def _extreme(fn: str, a: tuple[Any, ...], sign: int) -> Any:
    lst = _list(fn, a, 1)
    if not lst:
        raise CELRuntimeError(f"{fn} called on empty list")
    best = lst[0]
    for v in lst[1:]:
        if cel_cmp(fn, v, best) * sign > 0:
            best = v
    return best


def l_min(*a: Any) -> Any:
    return _extreme("min", a, -1)


def l_max(*a: Any) -> Any:
    return _extreme("max", a, 1)


# ---------------------------------------------------------------- sets
def _two_lists(fn: str, a: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
    if len(a) != 2 or not isinstance(a[0], list) or not isinstance(a[1], list):
        raise no_overload(fn, *a)
    charge(len(a[0]) * len(a[1]))   # every pair may be compared
    return a[0], a[1]


def sets_contains(*a: Any) -> bool:
    x, y = _two_lists("sets.contains", a)
    return all(any(cel_eq(v, w) for w in x) for v in y)


def sets_equivalent(*a: Any) -> bool:
    x, y = _two_lists("sets.equivalent", a)
    return all(any(cel_eq(v, w) for w in x) for v in y) and all(any(cel_eq(v, w) for w in y) for v in x)


def sets_intersects(*a: Any) -> bool:
    x, y = _two_lists("sets.intersects", a)
    return any(any(cel_eq(v, w) for w in x) for v in y)


MEMBER = {
    "charAt": s_char_at, "indexOf": s_index_of, "lastIndexOf": s_last_index_of,
    "lowerAscii": s_lower, "upperAscii": s_upper, "replace": s_replace, "split": s_split,
    "substring": s_substring, "trim": s_trim, "join": s_join,
    "slice": l_slice, "flatten": l_flatten, "distinct": l_distinct, "reverse": l_reverse,
    "sort": l_sort, "isSorted": l_is_sorted, "sum": l_sum, "min": l_min, "max": l_max,
}
GLOBAL = {
    "strings.quote": s_quote, "lists.range": l_range, "sets.contains": sets_contains,
    "sets.equivalent": sets_equivalent, "sets.intersects": sets_intersects,
}
