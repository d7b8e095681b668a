"""Base classes shared by every model: frozen pydantic v2, snake_case fields with
camelCase aliases, exact quantities."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer, WithJsonSchema
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


class K8sModel(BaseModel):
    """A frozen Kubernetes API struct. Unknown fields are rejected so that a
    misspelt field is an error rather than a silently ignored setting."""

    model_config = ConfigDict(
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        validate_default=False,
    )

    def dump(self) -> dict[str, Any]:
        """The object as Kubernetes prints it (camelCase, unset fields left out)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class OpenModel(K8sModel):
    """A struct whose unknown fields are kept (metadata, pods, nodes: dumps from
    real clusters carry many fields dralloc does not use)."""

    model_config = ConfigDict(extra="allow")
