"""Kubernetes' named-format library (format.named, format.<name>(), validate)."""

from __future__ import annotations

import pytest
from cel_helpers import gpu, run

from dralloc.cel import CELCompileError, CELRuntimeError, compile_selector
from dralloc.cel.interp import Env, compile_node
from dralloc.cel.libnamed import FORMATS
from dralloc.cel.parse import parse

VALID = {
    "dns1123Label": ["my-name", "123-abc", "a", "a" * 63],
    "dns1123Subdomain": ["example.com", "a.b-c.d", "a" * 253],
    "dns1035Label": ["my-name", "abc-123", "a"],
    "qualifiedName": ["MyName", "my.name", "example.com/My_Name", "a" * 63],
    "dns1123LabelPrefix": ["my-prefix-", "abc"],
    "dns1123SubdomainPrefix": ["my.prefix-", "example.com"],
    "dns1035LabelPrefix": ["my-prefix-", "abc"],
    "labelValue": ["", "MyValue", "my_value", "12345"],
    "uri": ["http://example.com", "/just/a/path", "mailto:x@y.z", "http://[::1]:80/x"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"],
    "byte": ["aGVsbG8=", "aGk=", "YWJj"],
    "date": ["2021-01-01", "2024-02-29", "2000-02-29", "0000-02-29"],
    "datetime": ["2021-01-01T00:00:00Z", "2021-01-01t23:59:59.123+05:30", "2021-01-01T00:00:00ZTjunk"],
}
INVALID = {
    "dns1123Label": ["My-name", "-a", "a-", "", "a.b", "a" * 64, "é"],
    "dns1123Subdomain": ["Example.com", "a..b", "", "-a.b", "a" * 254, "a.b\n"],
    "dns1035Label": ["1abc", "My", "", "a-"],
    "qualifiedName": ["", "/a", "a/", "a/b/c", "-a", "EXAMPLE.com/a", "a" * 64],
    "dns1123LabelPrefix": ["-", "AB-", "a.b-"],
    "dns1123SubdomainPrefix": ["-", "A.b-"],
    "dns1035LabelPrefix": ["1a-", "-"],
    "labelValue": ["-a", "a-", "a b", "a" * 64],
    "uri": ["", "foo", "http://a b.com", "http://x:port/", "http://%zz/"],
    "uuid": ["123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-426614174000", ""],
    "byte": ["", "aGVsbG8", "a===", "aGVs bG8=", "aGk=\n"],
    "date": ["2021-1-01", "2021-13-01", "2021-02-29", "2021-04-31", "21-01-01", "2021-01-01T00:00:00Z", ""],
    "datetime": ["2021-01-01", "2021-01-01T24:00:00Z", "2021-01-01T00:60:00Z", "2021-01-01T00:00:00",
                 "2021-01-01T00:00:00+0530", "2021-02-30T00:00:00Z", "2021-01-01 00:00:00Z"],
}


def _lit(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@pytest.mark.parametrize(("name", "value"), [(n, v) for n, vs in VALID.items() for v in vs])
def test_valid_strings_give_an_empty_optional(name: str, value: str) -> None:
    assert run(f"!format.{name}().validate({_lit(value)}).hasValue()")
    assert run(f'format.named("{name}").value().validate({_lit(value)}) == optional.none()')


@pytest.mark.parametrize(("name", "value"), [(n, v) for n, vs in INVALID.items() for v in vs])
def test_invalid_strings_give_a_non_empty_error_list(name: str, value: str) -> None:
    assert run(f"format.{name}().validate({_lit(value)}).value().size() > 0")


def test_every_documented_format_exists() -> None:
    assert set(FORMATS) == set(VALID) == set(INVALID)
    for name in FORMATS:
        assert run(f'format.named("{name}").hasValue() && format.named("{name}").value() == format.{name}()')


def _errors(expr: str) -> list[str]:
    out = compile_node(parse(expr))(Env({}))
    assert out.present
    return list(out.value)


@pytest.mark.parametrize(("expr", "messages"), [
    ('format.dns1123Label().validate("a.b")', ["must not contain dots"]),
    ('format.dns1123Label().validate("My")', [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
        "start and end with an alphanumeric character (e.g. 'my-name' or '123-abc', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
    (f'format.dns1123Label().validate("{"a" * 64}")', ["must be no more than 63 characters"]),
    ('format.dns1123Subdomain().validate("A")', [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
        "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ('format.dns1035Label().validate("1a")', [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
        "alphabetic character, and end with an alphanumeric character (e.g. 'my-name' or 'abc-123', "
        "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]),
    ('format.qualifiedName().validate("/")', ["prefix part must be non-empty", "name part must be non-empty",
                                              "name part must consist of alphanumeric characters, '-', '_' "
                                              "or '.', and must start and end with an alphanumeric character "
                                              "(e.g. 'MyName' or 'my.name' or '123-abc', regex used for "
                                              "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
    (f'format.qualifiedName().validate("{"a" * 64}")', ["name part must be no more than 63 bytes"]),
    ('format.qualifiedName().validate("a/b/c")', [
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName' or 'my.name' or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
        "and '/' (e.g. 'example.com/MyName')"]),
    (f'format.labelValue().validate("{"a" * 64}")', ["must be no more than 63 bytes"]),
    ('format.uri().validate("foo")', ['parse "foo": invalid URI for request']),
    ('format.uri().validate("")', ['parse "": empty url']),
    ('format.uri().validate("http://x:p/")', ['parse "http://x:p/": invalid port ":p" after host']),
    ('format.uri().validate("http://%zz/")', ['parse "http://%zz/": invalid URL escape "%zz"']),
    ('format.uri().validate("/a\\tb")', ['parse "/a\\tb": net/url: invalid control character in URL']),
    ('format.uuid().validate("x")', ["does not match the UUID format"]),
    ('format.byte().validate("x")', ["invalid base64"]),
    ('format.date().validate("x")', ["invalid date"]),
    ('format.datetime().validate("x")', ["invalid datetime"]),
])
def test_error_messages_are_kubernetes_words(expr: str, messages: list[str]) -> None:
    assert _errors(expr) == messages


def test_prefix_formats_judge_a_trailing_dash_as_kubernetes_does() -> None:
    assert run('format.dns1123Label().validate("abc-").hasValue()')
    assert run('!format.dns1123LabelPrefix().validate("abc-").hasValue()')
    assert run('!format.dns1123SubdomainPrefix().validate("abc.def-").hasValue()')
    assert run('format.dns1123LabelPrefix().validate("-").hasValue()')
    # Kubernetes replaces the last two characters by 'a', so these pass too
    assert run('!format.dns1123LabelPrefix().validate("A-").hasValue()')
    assert run('!format.dns1035LabelPrefix().validate("ab--").hasValue()')


def test_optional_handling() -> None:
    assert run('!format.named("dns1123label").hasValue()')  # names are case-sensitive
    assert run('format.named("nope").orValue(format.uuid()) == format.uuid()')
    assert run('format.named("uuid").value() != format.named("byte").value()')
    assert run('format.labelValue().validate("-").orValue([]).size() == 1')
    assert run('format.labelValue().validate("ok").orValue(["none"]) == ["none"]')
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run('format.named("uuid").validate("x").hasValue()')
    with pytest.raises(CELRuntimeError, match="optional.none"):
        run('format.named("nope").value().validate("x").hasValue()')


def test_formats_validate_device_attributes() -> None:
    dev = gpu()
    assert run('!format.dns1123Label().validate(device.attributes["gpu.nvidia.com"].tags[0]).hasValue()', dev)
    assert run('format.dns1123Label().validate(device.attributes["gpu.nvidia.com"].productName).hasValue()',
               dev)


def test_namespace_does_not_hide_variables_or_the_string_format_method() -> None:
    assert run('["a", "b"].all(format, format.size() == 1)')
    assert run('"%s-%d".format(["x", 1]) == "x-1"')


@pytest.mark.parametrize(("expr", "message"), [
    ('format.ipv4().validate("x").hasValue()', "undeclared reference to 'format.ipv4'"),
    ('format.dns1123Label().validate("x")', "must evaluate to bool"),
    ('format.uuid().name == "x"', "does not support field selection"),
])
def test_checker(expr: str, message: str) -> None:
    with pytest.raises(CELCompileError, match=message):
        compile_selector(expr)


def test_wrong_argument_types_are_runtime_no_overload_errors() -> None:
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run("format.named(1).hasValue()")
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run("format.uuid().validate(1).hasValue()")
    with pytest.raises(CELRuntimeError, match="no such overload"):
        run('"x".validate("y").hasValue()')


def test_validate_cost_follows_kubernetes() -> None:
    # ceil((1 + 9) * 0.1) * ceil(1103 * 0.25) = 1 * 276, plus the calls' flat costs
    env = Env({})
    compile_node(parse('format.uri().validate("http://x")'))(env)
    assert 276 <= env.cost <= 280
    env = Env({})
    compile_node(parse(f'format.uri().validate("{"a" * 99}")'))(env)
    assert 10 * 276 <= env.cost <= 10 * 276 + 4
    # ceil(40001 * 0.1) * 276 = 1 104 276, over the limit before validating
    with pytest.raises(CELRuntimeError, match="cost limit"):
        compile_node(parse("format.uri().validate(s)"), frozenset({"s"}))(Env({"s": "a" * 40_000}))
    compile_node(parse("format.uri().validate(s)"), frozenset({"s"}))(Env({"s": "a" * 30_000}))
