"""Hostile and random CEL selector expressions.

Three families, mixed by :func:`expression`:

* hostile templates: growth by doubling (strings, lists, shared-element
  trees), nested comprehensions, deep nesting of every kind at and beyond
  cel-go's limit of 250, integer edges for every operator, conversions of
  edge strings, huge format precisions, odd literals and escapes;
* random expressions from the library's function tables over device fields
  and edge literals (often ill-typed: the point is that nothing but a CEL
  error comes back);
* the corpus's own selectors with one token changed."""

from __future__ import annotations

import random

from dralloc.cel.library import GLOBAL, MEMBER

INT_EDGES = ["0", "1", "-1", "9223372036854775807", "-9223372036854775808", "4611686018427387904",
             "18446744073709551615u", "0u", "1u", "9223372036854775808u", "0.0", "-0.0", "1e308",
             "1.7976931348623157e308", "5e-324", "0x7fffffffffffffff", "0xffffffffffffffffu"]
STRING_EDGES = ['""', '" 1"', '"1_0"', '"+1"', '"-0"', '"1e400"', '"NaN"', '"inf"', '"-Infinity"',
                '"0x1p-2"', '"९"', '"true"', '"T"', '"yes"', r'"\u00e9"', r'"\ud800"', r'"\x00"',
                '"9223372036854775808"', '"18446744073709551616"', '"1Gi"', '"1e1000"', '"1.2.3"',
                '"10.0.0.1"', '"::1"', '"2020-01-01T00:00:00Z"', '"-1h"', '"%s%d%f"', '"(a*)*b"',
                '"["', '"\\\\"', "'''x'''", 'r"\\d+"', 'b"\\xff"']
FIELDS = ['device.driver', 'device.attributes["gpu.nvidia.com"].index',
          'device.attributes["gpu.nvidia.com"].productName', 'device.attributes["driver-a"].x',
          'device.capacity["gpu.nvidia.com"].memory', 'device.allowMultipleAllocations',
          'device.attributes', 'device.capacity', 'device']
OPS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "in", "&&", "||"]


def _bind_chain(seed: str, step: str, times: int, body: str) -> str:
    return f"cel.bind(a, {seed}, " + f"cel.bind(a, {step}, " * times + body + ")" * (times + 1)


def hostile(rng: random.Random) -> str:
    n = rng.choice([2, 8, 20, 40, 63, 64])
    deep = rng.choice([50, 240, 249, 250, 251, 300, 1000, 3000])
    edge = rng.choice(INT_EDGES)
    other = rng.choice(INT_EDGES)
    s = rng.choice(STRING_EDGES)
    templates = [
        _bind_chain('"xxxxxxxxxx"', "a + a", n, "size(a) > 0"),
        _bind_chain("[1, 2]", "a + a", n, "size(a) > 0"),
        _bind_chain("[1, 1]", "[a, a]", n, rng.choice(["a == a", "a.flatten(64).size() > 0",
                                                        '"%s".format([a]) != ""', "[a].distinct() == [a]",
                                                        "a in [a]", "sets.contains([a], [a])"])),
        f"lists.range({rng.choice([10, 1000, 2000000])}).all(i, lists.range({rng.choice([10, 1000])})"
        f".all(j, i + j >= 0))",
        f"lists.range({rng.choice([100, 1000])}).map(i, lists.range({rng.choice([100, 1000])})"
        f".map(j, {s})).size() > 0",
        f"lists.range({rng.choice([1000, 100000, 1000000])}).{rng.choice(['distinct()', 'sort()', 'reverse()'])}"
        ".size() > 0",
        "(" * deep + "true" + ")" * deep,
        "size(" + "[" * deep + "]" * deep + ") > 0",
        "+".join(["1"] * deep) + " > 0",
        "!" * deep + "true",
        "-" * deep + "1 == 1",
        "device" + ".driver" * deep + " == 1",
        "[1]" + "[0]" * deep + " == 1",
        " || ".join(["false"] * deep) + " || true",
        "".join(f"cel.bind(x{i}, {i}, " for i in range(min(deep, 400))) + "true" + ")" * min(deep, 400),
        f"{edge} {rng.choice(OPS)} {other} == {edge}",
        f"-({edge}) {rng.choice(OPS)} {other} != {other}",
        f"{rng.choice(['int', 'uint', 'double', 'string', 'bool', 'bytes', 'duration', 'timestamp'])}({edge})"
        f" == {rng.choice(['int', 'uint', 'double', 'string', 'bool', 'bytes', 'duration', 'timestamp'])}({s})",
        f"{rng.choice(['int', 'uint', 'double', 'bool', 'quantity', 'semver', 'ip', 'cidr', 'url'])}({s}) != null",
        f'"%.{rng.choice([6, 1000, 999999, 1000001, 99999999])}f".format([1.5]) != ""',
        f"{s}.matches({s})", f"{s}.findAll({s}).size() >= 0", f"{s}.replace({s}, {s}) != {s}",
        f"{s}.split({s}).size() >= 0", f"{s}.format([{edge}, {s}]) != {s}",
        f"[{edge}, {other}].sum() > 0", f"[{edge}, {other}].sort() == []", f"{{{edge}: 1, {other}: 2}}[{edge}] == 1",
        f"quantity({s}).add({edge}).isInteger()", f'quantity("1e1000").asApproximateFloat() > {edge}',
        f"optional.of({edge}).orValue({s}) == {s}", f"{rng.choice(FIELDS)}.?x.orValue(1) == 1",
        "x" * rng.choice([1, 10240, 10241, 20000]), "\x00", "'unterminated", "1 +", "", " ",
        "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(1, 40))),
    ]
    return rng.choice(templates)


def _literal(rng: random.Random) -> str:
    return rng.choice(INT_EDGES + STRING_EDGES + FIELDS + ["null", "true", "false", "[]", "{}", "[1, 'a']",
                                                          "{'a': 1}", "optional.none()", "int", "dyn(1)"])


def random_expr(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return _literal(rng)
    if roll < 0.5:
        return f"({random_expr(rng, depth + 1)} {rng.choice(OPS)} {random_expr(rng, depth + 1)})"
    if roll < 0.7:
        name = rng.choice(sorted(MEMBER))
        args = ", ".join(random_expr(rng, depth + 1) for _ in range(rng.randrange(0, 3)))
        return f"{random_expr(rng, depth + 1)}.{name}({args})"
    if roll < 0.85:
        name = rng.choice(sorted(GLOBAL))
        args = ", ".join(random_expr(rng, depth + 1) for _ in range(rng.randrange(0, 3)))
        return f"{name}({args})"
    macro = rng.choice(["all", "exists", "exists_one", "map", "filter", "sortBy", "transformList"])
    two = macro == "transformList"
    var = "i, v" if two else "i"
    return f"{random_expr(rng, depth + 1)}.{macro}({var}, {random_expr(rng, depth + 1)})"


def tweak(expr: str, rng: random.Random) -> str:
    """An existing selector with one token replaced."""
    tokens = expr.split(" ")
    i = rng.randrange(len(tokens))
    tokens[i] = rng.choice([rng.choice(OPS), _literal(rng), tokens[i][::-1], tokens[i] * 2, ""])
    return " ".join(tokens)


def expression(rng: random.Random, original: str = "") -> str:
    roll = rng.random()
    if roll < 0.45:
        return hostile(rng)
    if roll < 0.8 or not original:
        body = random_expr(rng)
        return rng.choice([body, f"{body} == {random_expr(rng)}", f"dyn({body}) == true"])
    return tweak(original, rng)
