"""YAML as Kubernetes reads it: go-yaml v2's YAML 1.1 resolution and
sigs.k8s.io/yaml's key conversion (the exact path), and the fast parser
giving the same values whenever the router lets it read a document."""

from __future__ import annotations

import math
from typing import Any

import fast_yaml
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dralloc.io.dupkeys import may_hide_duplicates
from dralloc.io.goyaml import YAMLMeaningError, load_exact
from dralloc.io.parse import parse_text
from dralloc.io.route import needs_exact

# (plain scalar, value Kubernetes sees), read from go-yaml v2's resolve.go and decode.go, then
# as sigs.k8s.io/yaml's JSON holds it: Go's json.Marshal writes a whole float below 1e21 in plain
# digits (its shortest), which read back as an integer ("08" is the float 8, written 8)
PLAIN = [
    ("yes", True), ("Yes", True), ("YES", True), ("y", True), ("Y", True), ("on", True), ("ON", True),
    ("no", False), ("n", False), ("N", False), ("off", False), ("Off", False),
    ("true", True), ("False", False), ("tRue", "tRue"),
    ("~", None), ("null", None), ("NULL", None), ("", None),
    ("017", 15), ("0o17", 15), ("0x1F", 31), ("0X1F", 31), ("-0x1F", -31), ("0b101", 5), ("00", 0),
    ("1_000", 1000), ("0x_1F", 31), ("-_0", 0), ("+12", 12), ("-0", 0),
    ("08", 8), ("1_0.5", 10.5), ("1e3", 1000), ("1.5e3", 1500), ("1.", 1), (".5", 0.5),
    ("+.5", 0.5), ("12e03", 12000), ("1.0", 1), ("-0.0", 0), ("1e20", 10**20), ("1e21", 1e21),
    ("1.2345678901234567e20", 123456789012345670000), ("0.1e1", 1),
    ("9223372036854775807", 2**63 - 1), ("9223372036854775808", 2**63),
    ("18446744073709551615", 2**64 - 1), ("18446744073709551616", 18446744073709552000),
    ("+18446744073709551615", 18446744073709552000), ("-9223372036854775808", -2**63),
    ("-9223372036854775809", -9223372036854776000),
    ("2001-12-14", "2001-12-14"), ("2001-12-14T21:59:43.10-05:00", "2001-12-14T21:59:43.10-05:00"),
    ("1:20", "1:20"), ("nan", "nan"), ("inf", "inf"), ("0x", "0x"), ("1e", "1e"), ("=", "="),
]


@pytest.mark.parametrize(("text", "want"), PLAIN, ids=[repr(t) for t, _ in PLAIN])
def test_plain_scalars_resolve_as_go_yaml_v2(text: str, want: Any) -> None:
    got = load_exact(f"v: {text}\n")[0]["v"]
    assert got == want and type(got) is type(want)
    assert load_exact(f"v: '{text}'\n")[0]["v"] == text  # quoted: always the text


KEYS = [("1", "1"), ("017", "15"), ("true", "true"), ("y", "true"), ("no", "false"), ("1.5", "1.5"),
        ("1e6", "1e+06"), ("123456.0", "123456"), ("0.0001", "0.0001"), ("1e-5", "1e-05"), ("'y'", "y")]


@pytest.mark.parametrize(("key", "want"), KEYS, ids=[k for k, _ in KEYS])
def test_keys_become_strings_as_sigs_k8s_yaml_does(key: str, want: str) -> None:
    assert load_exact(f"{key}: v\n") == [{want: "v"}]


@pytest.mark.parametrize(("text", "problem"), [
    ("v: .inf\n", "cannot be written as JSON"),
    ("v: .NaN\n", "cannot be written as JSON"),
    ("v: !!int abc\n", "cannot decode !!str `abc` as a !!int"),
    ("v: !!binary '%%%'\n", "invalid base64"),
    ("~: v\n", "unsupported map key of type null"),
    ("? [a]\n: v\n", "unsupported map key of type list"),
    ("v: *nowhere\n", "unknown anchor 'nowhere'"),
    ("v: &a [*a]\n", "contains itself"),
    ("a: 1\nb: [\n", "not valid YAML"),
])
def test_what_kubernetes_refuses_is_an_error(text: str, problem: str) -> None:
    with pytest.raises(YAMLMeaningError, match=problem.replace("[", r"\[").replace("*", r"\*")):
        load_exact(text)


def test_tags_and_merges_follow_go_yaml() -> None:
    doc = load_exact("a: !!str 12\nb: !!int '12'\nc: !!float 1\nd: ! yes\ne: !custom 5\n"
                     "f: !!binary aGVsbG8=\nbase: &b {x: 1, y: 2}\n"
                     "m:\n  <<: [*b, {z: 4}]\n  w: 5\n")[0]
    assert doc["a"] == "12" and doc["b"] == 12 and doc["c"] == 1 and type(doc["c"]) is int  # JSON's 1
    assert doc["d"] == "yes" and doc["e"] == "5" and doc["f"] == "hello"
    assert doc["m"] == {"x": 1, "true": 2, "z": 4, "w": 5}
    assert "true" in doc["base"]  # y is a boolean key, written "true"


def test_a_key_set_twice_is_refused_as_go_yamls_strict_mode_does() -> None:
    """Kubernetes' strict decoding (go-yaml v2's UnmarshalStrict): a key
    set again in one mapping -- written twice, or merged where it is already
    set (an earlier key, an earlier merged map) -- is an error at the line of
    its second value, in go-yaml's order."""
    text = ("base: &b {x: 1, y: 2}\n"          # line 1
            "m:\n  x: 0\n"                      # 2, 3
            "  <<: [*b, {x: 3, z: 4}]\n"        # 4: the list is merged last map first
            "  z: 5\nk: 1\nk:\n  a: 2\n")       # 5, 6, 7 (k's second value starts on line 8)
    with pytest.raises(YAMLMeaningError) as e:
        load_exact(text)
    assert str(e.value).startswith('line 4: key "x" already set in map; line 1: key "x" already set in map; '
                                   'line 5: key "z" already set in map (and 1 more)')
    with pytest.raises(YAMLMeaningError, match='^line 3: key "k" already set in map'):
        load_exact("k: 1\nk:\n  a: 2\n")
    with pytest.raises(YAMLMeaningError, match="^line 2: key true already set in map"):
        load_exact("yes: 1\ntrue: 2\n")   # both the boolean true in YAML 1.1
    assert load_exact("1: a\n'1': b\n") == [{"1": "b"}]   # an int and a string: two keys to go-yaml


def test_aliases_are_expanded_within_go_yamls_budget() -> None:
    ok = "a: &a [" + ", ".join(["x"] * 50) + "]\n" + "".join(f"b{i}: *a\n" for i in range(100))
    assert len(load_exact(ok)[0]) == 101
    laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    prev = "a"
    for c in "bcdefghi":
        laughs += f"{c}: &{c} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
        prev = c
    with pytest.raises(YAMLMeaningError, match="excessive aliasing"):
        load_exact(laughs)


def test_depth_is_counted_with_aliases_expanded() -> None:
    assert load_exact("- " * 100 + "x\n")
    with pytest.raises(YAMLMeaningError, match="nested too deeply"):
        load_exact("- " * 101 + "x\n")
    chain = "a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 120))
    with pytest.raises(YAMLMeaningError, match="nested too deeply once its aliases are expanded"):
        load_exact(chain)


def test_parse_text_takes_the_exact_path_when_needed() -> None:
    assert parse_text("labels: {enabled: yes}\n") == [{"labels": {"enabled": True}}]
    assert parse_text("mode: 0644\n") == [{"mode": 420}]
    assert parse_text("mode: '0644'\n") == [{"mode": "0644"}]


# ---------------------------------------------------------------- the router

RISKY = [t for t, _ in PLAIN if t]
SAFE = [
    "a", "abc", "x1", "gpu", "node-0000", "1", "42", "-7", "0", "0.5", "3.25", "1e-3", "12:30:00",
    "'quoted'", '"dq"', "'yes'", '"017"', "a b", "on the fly", "no-op", "yes-man", "0a", "o", "Y2",
    "true", "false", "null", "x: y", "[]", "{}", "[1, 2]", "{a: 1}", "&anc v", "*anc", "!!str 5",
    "- item", "<<", "1_a", "0_0", ".", "-", "+", "+.", "1..2", "0.0.1", "1.0.0", "v1.2.3", "10Gi",
]
KEYWORDS = ["a", "name", "x-y", "'k'", "k1", "on", "y", "1", "017", "true", "null", "1.5"]

# mostly tokens the router lets through, so the promise is tested often; random
# short texts find forms nobody listed
token = st.one_of(st.sampled_from(SAFE), st.sampled_from(SAFE), st.sampled_from(RISKY),
                  st.text(alphabet="abnoyYN01289._+-:eExX~", min_size=1, max_size=6))
key = st.one_of(st.sampled_from(KEYWORDS[:5]), st.sampled_from(KEYWORDS))


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Small YAML documents putting tokens in every position a scalar can take."""
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        k = draw(key)
        shape = draw(st.integers(0, 4))
        if shape == 0:
            lines.append(f"{k}: {draw(token)}")
        elif shape == 1:
            lines.append(f"{k}:\n" + "".join(f"- {draw(token)}\n" for _ in range(draw(st.integers(1, 3)))))
        elif shape == 2:
            lines.append(f"{k}: [{', '.join(draw(st.lists(token, min_size=1, max_size=3)))}]")
        elif shape == 3:
            lines.append(f"{k}: {{{draw(key)}: {draw(token)}}}")
        else:
            lines.append(f"{k}:\n  {draw(key)}: {draw(token)}")
    return "\n".join(lines) + "\n"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b) if not isinstance(a, dict | list) else a == b


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_fast_parser_reads_what_kubernetes_reads_whenever_it_is_used(text: str) -> None:
    """The router's promise: what the fast parser reads from a document the
    router gives it means the same as under go-yaml v2, and it refuses
    nothing go-yaml accepts without the exact path getting a say (a document
    the fast parser refuses is read again by the exact path). A key the fast
    parser may have dropped as a duplicate sends the document to the exact
    path too, and the count that decides it never misses one: go-yaml refuses
    nothing the fast path keeps (it refuses a key set twice)."""
    if needs_exact(text):
        return
    try:
        fast = list(fast_yaml.safe_load_all(text))
    except ValueError:
        return  # read again by the exact path
    if may_hide_duplicates(text, fast):
        return  # read again by the exact path
    exact = load_exact(text)  # go-yaml accepts whatever the fast parser keeps
    assert exact == fast and _types(exact) == _types(fast), text


def _types(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _types(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_types(x) for x in v]
    return type(v).__name__
