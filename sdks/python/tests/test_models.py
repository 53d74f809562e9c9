"""The models match docs/openapi.json: the generated file is current, and every schema and
field of the document has its model and field, and back."""

from __future__ import annotations

import importlib.util
import json
import sys
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentplex import models
from agentplex.generated import models as generated

from .conftest import REPO

DOCUMENT: dict[str, Any] = json.loads((REPO / "docs" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]


def load_generator() -> Any:
    path = Path(__file__).resolve().parents[1] / "scripts" / "generate_models.py"
    spec = importlib.util.spec_from_file_location("generate_models", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_models"] = module
    spec.loader.exec_module(module)
    return module


def test_generated_models_are_current() -> None:
    generator = load_generator()
    expected = generator.generate(DOCUMENT)
    assert Path(generated.__file__).read_text() == expected, "run scripts/generate_models.py"


def tagged(schema: dict[str, Any]) -> bool:
    variants = schema.get("oneOf", [])
    return bool(variants) and all("type" in v.get("properties", {}) for v in variants)


def expected_models() -> dict[str, dict[str, Any]]:
    """Each model the document calls for (object schemas and tagged variants) with its schema."""
    out: dict[str, dict[str, Any]] = {}
    for name, schema in SCHEMAS.items():
        if schema.get("type") == "object":
            out[name] = schema
        elif tagged(schema):
            for variant in schema["oneOf"]:
                tag = variant["properties"]["type"]["enum"][0]
                out[name + "".join(p.capitalize() for p in tag.split("_"))] = variant
    return out


def defined_models() -> dict[str, type[BaseModel]]:
    return {
        name: value
        for name, value in vars(generated).items()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == generated.__name__
    }


def test_every_schema_has_a_python_name() -> None:
    for name in SCHEMAS:
        assert hasattr(models, name), f"schema {name} has no model"


def test_every_model_is_a_schema_and_back() -> None:
    expected = expected_models()
    defined = {n: m for n, m in defined_models().items() if n != "Model"}
    assert sorted(defined) == sorted(expected)


def test_every_field_is_a_property_and_back() -> None:
    for name, schema in expected_models().items():
        model = getattr(models, name)
        fields = {(f.alias or n): f for n, f in model.model_fields.items()}
        properties = schema.get("properties", {})
        assert sorted(fields) == sorted(properties), name
        required = set(schema.get("required", []))
        for wire, field in fields.items():
            tag = wire == "type" and len(properties[wire].get("enum", [])) == 1
            assert field.is_required() == (wire in required and not tag), f"{name}.{wire}"


def test_every_enum_is_a_literal_of_its_values() -> None:
    for name, schema in SCHEMAS.items():
        if "enum" in schema:
            alias = getattr(models, name)
            assert typing.get_origin(alias) is typing.Literal, name
            assert list(typing.get_args(alias)) == schema["enum"], name


def test_every_event_type_has_its_payload_model() -> None:
    event_types = SCHEMAS["UniversalEventType"]["enum"]
    assert sorted(models.EVENT_DATA_TYPES) == sorted(event_types)
    payloads = {ref["$ref"].rsplit("/", 1)[-1] for ref in SCHEMAS["UniversalEventData"]["anyOf"]}
    assert {m.__name__ for m in models.EVENT_DATA_TYPES.values()} == payloads


def test_an_event_reads_its_payload_by_type() -> None:
    event = models.UniversalEvent.model_validate(
        {
            "event_id": "evt_3",
            "sequence": 3,
            "time": "2026-01-01T00:00:00Z",
            "session_id": "s",
            "source": "agent",
            "synthetic": False,
            "type": "permission.requested",
            "data": {"permission_id": "p", "action": "run", "status": "requested", "metadata": {"a": 1}},
            "future_field": True,
        }
    )
    assert isinstance(event.data, models.PermissionEventData)
    assert event.data.metadata == {"a": 1}
    assert event.model_extra == {"future_field": True}


def test_a_model_call_reads_its_usage() -> None:
    event = models.UniversalEvent.model_validate(
        {
            "event_id": "evt_4",
            "sequence": 4,
            "time": "2026-01-01T00:00:00Z",
            "session_id": "s",
            "source": "daemon",
            "synthetic": True,
            "type": "model.usage",
            "data": {
                "model": "claude-sonnet-4-5",
                "input_tokens": 1200,
                "output_tokens": 80,
                "cache_read_tokens": 1000,
                "cache_write_tokens": 100,
                "reasoning_tokens": 20,
                "format": "anthropic-messages",
                "status": 200,
                "duration_ms": 950,
                "complete": True,
            },
        }
    )
    assert isinstance(event.data, models.ModelUsageData)
    assert (event.data.input_tokens, event.data.cost_usd) == (1200, None)


def test_an_event_of_a_type_newer_than_the_sdk_is_read_not_refused() -> None:
    event = models.UniversalEvent.model_validate_json(
        json.dumps(
            {
                "event_id": "evt_5",
                "sequence": 5,
                "time": "2026-01-01T00:00:00Z",
                "session_id": "s",
                "source": "daemon",
                "synthetic": True,
                "type": "session.forked",
                "data": {"into": "s2"},
            }
        )
    )
    assert event.type == "session.forked"
    assert event.sequence == 5
    assert isinstance(event.data, BaseModel)
    assert event.data.model_extra == {"into": "s2"}


def test_requests_serialize_with_wire_names() -> None:
    request = models.CreateSessionRequest(agent="mock", agent_mode="build", permission_mode="default")
    assert request.to_wire() == {"agent": "mock", "agentMode": "build", "permissionMode": "default"}
    move = models.FsMoveRequest(from_="/a", to="/b")
    assert move.to_wire() == {"from": "/a", "to": "/b"}
    message = models.MessageRequest(parts=[models.MessagePartText(text="hi")])
    assert message.to_wire() == {"parts": [{"type": "text", "text": "hi"}]}
    add = models.RegistryAddRequest(env=["ANTHROPIC_API_KEY"], reinstall=True)
    assert add.to_wire() == {"env": ["ANTHROPIC_API_KEY"], "reinstall": True}
