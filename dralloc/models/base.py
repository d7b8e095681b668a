"""Base classes shared by every model: frozen pydantic v2, snake_case fields with
camelCase aliases, exact quantities."""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
    model_validator,
)
from pydantic.alias_generators import to_camel

from dralloc.quantity import Quantity, QuantityError


def _to_quantity(v: Any) -> Quantity:
    try:
        return Quantity.parse(v)
    except QuantityError as e:
        raise ValueError(str(e)) from None


QuantityField = Annotated[
    Quantity,
    BeforeValidator(_to_quantity),
    PlainSerializer(lambda q: q.canonical(), return_type=str),
    WithJsonSchema({"type": "string"}),
]


def _int_or_string(v: Any) -> int | str:
    """intstr.IntOrString as its UnmarshalJSON reads it: a JSON string, or a
    JSON integer (never a boolean, never 1.5 or 1.0; its int32 range is
    admission's to check, as for every integer field)."""
    if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
        return v
    raise ValueError(f"expected an integer or a string (such as \"50%\"), not {json_kind(v)}")


def json_kind(v: Any) -> str:
    """What a value read from JSON or YAML was in the document, for messages
    (``a boolean (true)``, ``the string "5"``, ``the number 1.0``)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"a boolean ({'true' if v else 'false'})"
    if isinstance(v, int) and v.bit_length() > 128:
        return "a number of more than 38 digits"
    if isinstance(v, int | float):
        return f"the number {v!r}"
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        return f"the string {text if len(text) <= 40 else text[:36] + '...' + chr(34)}"
    if isinstance(v, dict):
        return "a mapping"
    return "a list" if isinstance(v, list) else f"a {type(v).__name__}"


IntOrString = Annotated[int | str, PlainValidator(_int_or_string), WithJsonSchema({"type": ["integer", "string"]})]


MAX_FREE_DEPTH = 100          # levels a free-form value may nest
MAX_FREE_NODES = 1_000_000    # values it may hold, shared ones counted each time


def bounded(value: Any) -> Any:
    """A free-form value (opaque parameters, status, fields kept but not
    modelled) checked without recursion: at most MAX_FREE_DEPTH levels and
    MAX_FREE_NODES values, counting a value shared between places (or a
    cycle, in objects built in Python) each time it is reached — so nothing
    that walks or prints it later can recurse too deep or expand too far."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        v, depth = stack.pop()
        seen += 1
        if seen > MAX_FREE_NODES:
            raise ValueError(f"holds more than {MAX_FREE_NODES:,} values (shared values counted each time)")
        if isinstance(v, dict):
            items: Any = v.values()
        elif isinstance(v, list | tuple):
            items = v
        else:
            continue
        if depth > MAX_FREE_DEPTH:
            raise ValueError(f"nested more than {MAX_FREE_DEPTH} levels deep")
        stack.extend((x, depth + 1) for x in items)
    return value


FreeForm = Annotated[Any, AfterValidator(bounded)]


class K8sModel(BaseModel):
    """A frozen Kubernetes API struct. Unknown fields are rejected so that a
    misspelt field is an error rather than a silently ignored setting.

    Validation is strict, as the API server's JSON decoder (encoding/json
    into typed Go structs) is: an integer field takes a JSON integer only (not
    a boolean, a string, or a number with a fraction or an exponent -- ``1.0``
    included), a boolean field ``true``/``false`` only, a string field a string
    only; a list is a list (not a tuple), a mapping a dict. Quantities
    (:data:`QuantityField`) take a string or a number, as Kubernetes'
    ``resource.Quantity`` does. An integer's range (Go's int32 or int64,
    which the decoder also enforces) is admission's to check
    (``format.int32``/``format.int64``, :mod:`dralloc.validation.formats`)."""

    model_config = ConfigDict(
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        validate_default=False,
        strict=True,
    )

    def dump(self) -> dict[str, Any]:
        """The object as Kubernetes prints it (camelCase, unset fields left out)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class OpenModel(K8sModel):
    """A struct whose unknown fields are kept (metadata, pods, nodes: dumps from
    real clusters carry many fields dralloc does not use)."""

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def _bounded_extras(self) -> OpenModel:
        """Unknown fields are free-form values: bounded as such."""
        extra = self.__pydantic_extra__
        if extra:
            for key, value in extra.items():
                if isinstance(value, dict | list):
                    try:
                        bounded(value)
                    except ValueError as e:
                        raise ValueError(f"{key}: {e}") from None
        return self
