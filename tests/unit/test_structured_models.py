"""Property tests: a pydantic model returned as a structured variant is sent as the schema declared for it says, on
both frameworks' layers (mcp_variants.sdk projects with `content_blocks`, mcp_variants.fastmcp with FastMCP's own
content conversion; both through the same `ToolSet.project` that validates every structured output).

The models are generated: required and optional fields, nullable or not, with and without an alias that is no Python
name, nested models and lists of them, at any depth. A generated instance holds None wherever its type allows it.
The judge is independent of the layer: the pure-Python jsonschema Draft202012Validator on the model's own schema,
and pydantic reading the output back by alias. tests/sdk/test_api.py and test_fastmcp_wire.py send one such model
(a required `assignee: str | None` holding None) over the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, create_model

from mcp_variants.fastmcp._content import content_value
from mcp_variants.protocol.projection import Outcome
from mcp_variants.protocol.types import Selector
from mcp_variants.protocol.versions import Era
from mcp_variants.sdk import Results, variant
from mcp_variants.sdk._declare import projectors_for
from mcp_variants.sdk.lowlevel import ToolSet, VariantTool, declaration

PROGRAMMATIC = Selector("programmatic", "structured")
ASSISTANT = Selector("assistant", "structured")


@dataclass(frozen=True)
class FieldSpec:
    """One generated field: its type (a scalar's name, or a nested model's fields), and how it may be left out."""

    kind: str | tuple[FieldSpec, ...]
    nullable: bool
    required: bool
    alias: bool
    listed: bool  # a list of that type


def field_specs(depth: int) -> st.SearchStrategy[tuple[FieldSpec, ...]]:
    kinds: st.SearchStrategy[Any] = st.sampled_from(["int", "str", "bool", "float"])
    if depth > 0:
        kinds = st.one_of(kinds, field_specs(depth - 1))
    one = st.builds(FieldSpec, kind=kinds, nullable=st.booleans(), required=st.booleans(), alias=st.booleans(), listed=st.booleans())
    # A nested model that is neither nullable nor a list has no default to give: it is required.
    one = one.map(lambda f: f if f.nullable or f.listed or isinstance(f.kind, str) else FieldSpec(f.kind, False, True, f.alias, False))
    return st.lists(one, min_size=1, max_size=4).map(tuple)


SCALARS: dict[str, type] = {"int": int, "str": str, "bool": bool, "float": float}
_made = 0


def model_of(specs: tuple[FieldSpec, ...]) -> type[BaseModel]:
    """A pydantic model with these fields: `f0`, `f1`, ... aliased `f0-alias` when the spec says so."""
    global _made
    _made += 1
    fields: dict[str, Any] = {}
    for i, spec in enumerate(specs):
        base: Any = SCALARS[spec.kind] if isinstance(spec.kind, str) else model_of(spec.kind)
        annotation: Any = list[base] if spec.listed else base
        if spec.nullable:
            annotation = annotation | None
        default: Any = ... if spec.required else (None if spec.nullable else (list if spec.listed else _default(spec.kind)))
        options: dict[str, Any] = {"alias": f"f{i}-alias"} if spec.alias else {}
        if callable(default) and default is list:
            fields[f"f{i}"] = (annotation, Field(default_factory=list, **options))
        else:
            fields[f"f{i}"] = (annotation, Field(default, **options))
    return create_model(f"Generated{_made}", **fields)


def _default(kind: str | tuple[FieldSpec, ...]) -> Any:
    return {"int": 0, "str": "", "bool": False, "float": 0.5}[kind] if isinstance(kind, str) else None


def data_for(model: type[BaseModel], specs: tuple[FieldSpec, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """Input data for an instance, by alias: every required field, None wherever the type allows, optional ones maybe left out."""
    parts: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for i, spec in enumerate(specs):
        key = f"f{i}-alias" if spec.alias else f"f{i}"
        if isinstance(spec.kind, str):
            base = {"int": st.integers(-5, 5), "str": st.text(max_size=5), "bool": st.booleans(),
                    "float": st.floats(allow_nan=False, allow_infinity=False, width=32)}[spec.kind]
        else:
            nested = model.model_fields[f"f{i}"].annotation
            base = data_for(_model_in(nested), spec.kind)
        value = st.lists(base, max_size=2) if spec.listed else base
        if spec.nullable:
            value = st.one_of(st.none(), value)
        (parts if spec.required else optional)[key] = value
    return st.fixed_dictionaries(parts, optional=optional)


def _model_in(annotation: Any) -> type[BaseModel]:
    """The nested model in `X`, `list[X]`, `X | None` or `list[X] | None`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if arg is not type(None):
            return _model_in(arg)
    raise TypeError(annotation)


@st.composite
def instances(draw: st.DrawFn) -> BaseModel:
    specs = draw(field_specs(2))
    model = model_of(specs)
    return model.model_validate(draw(data_for(model, specs)))


def tools_of(model: type[BaseModel]) -> dict[str, ToolSet]:
    """The model as the programmatic and assistant structured variants of a tool, on each framework's layer."""
    specs = [variant("assistant/content"), variant("programmatic/structured", model), variant("assistant/structured", model)]
    made = {}
    for framework, content in (("sdk", None), ("fastmcp", content_value)):
        tools = ToolSet()
        tools.add(VariantTool(declaration("t", specs, input_schema={"type": "object"}), projectors_for("t", specs, content=content)))
        made[framework] = tools
    return made


@given(instances())
def test_a_model_is_sent_as_its_schema_says_on_both_frameworks(instance: BaseModel) -> None:
    model = type(instance)
    schema = model.model_json_schema(mode="serialization")
    results = Results({"assistant/content": "text", "programmatic/structured": instance, "assistant/structured": instance})
    for framework, tools in tools_of(model).items():
        sent = tools.project("t", (PROGRAMMATIC,), Era.OUTPUTS, Outcome(value=results))
        assert "isError" not in sent, (framework, sent, schema)
        [output] = sent["outputs"]
        jsonschema.Draft202012Validator(schema).validate(output["structuredContent"])
        assert model.model_validate(output["structuredContent"], by_alias=True) == instance  # nothing lost, nothing renamed
        legacy = tools.project("t", (), Era.LEGACY_ANY, Outcome(value=results))
        assert legacy["structuredContent"] == output["structuredContent"], framework


def test_a_required_nullable_field_holding_none_is_sent_as_null() -> None:
    """The model the issue's stranger wrote: pydantic lists `assignee` as required, so it is sent, as null."""

    class Ticket(BaseModel):
        id: int
        assignee: str | None
        closed_by: str | None = Field(alias="closedBy")

    ticket = Ticket(id=7, assignee=None, closedBy=None)
    for framework, tools in tools_of(Ticket).items():
        sent = tools.project("t", (PROGRAMMATIC,), Era.OUTPUTS, Outcome(value=Results(
            {"assistant/content": "closed", "programmatic/structured": ticket, "assistant/structured": ticket})))
        assert sent["outputs"][0]["structuredContent"] == {"id": 7, "assignee": None, "closedBy": None}, framework
