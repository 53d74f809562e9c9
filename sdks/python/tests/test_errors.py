"""Errors: one class per problem type of docs/openapi.json, with the problem's fields."""

from __future__ import annotations

import typing

import pytest

from agentplex import ERROR_CLASSES, AgentplexError, LocalAgentplex, errors, models
from agentplex.errors import error_from_response


def test_every_problem_type_has_its_class() -> None:
    for code in typing.get_args(models.ErrorType):
        cls = ERROR_CLASSES[code]
        assert issubclass(cls, AgentplexError) and cls.code == code
        assert getattr(errors, cls.__name__) is cls


def test_a_problem_document_maps_field_for_field() -> None:
    body = (
        b'{"type":"urn:sandbox-agent:error:session_not_found","title":"Not Found","status":404,'
        b'"detail":"session \\"x\\" not found","sessionId":"x","newField":1}'
    )
    error = error_from_response(404, "Not Found", body)
    assert isinstance(error, errors.SessionNotFoundError)
    assert (error.status, error.title, error.session_id) == (404, "Not Found", "x")
    assert error.detail == 'session "x" not found'
    assert error.extras == {"newField": 1}
    assert str(error) == 'Not Found: session "x" not found'


def test_an_answer_without_a_problem_is_unexpected_response() -> None:
    error = error_from_response(502, "Bad Gateway", b"<html>proxy</html>")
    assert isinstance(error, errors.UnexpectedResponseError)
    assert error.status == 502 and error.detail is not None and "<html>" in error.detail


def test_daemon_problems(client: LocalAgentplex) -> None:
    with pytest.raises(errors.SessionNotFoundError) as missing:
        client.session("nosuch").send("hi")
    assert missing.value.session_id == "nosuch" and missing.value.status == 404
    with pytest.raises(errors.UnsupportedAgentError) as unsupported:
        client.create_session("bad-agent", agent="nosuch")
    assert unsupported.value.status == 400
    with pytest.raises(errors.InvalidRequestError):
        client.create_session("bad id!", agent="mock")
    with pytest.raises(errors.PathNotFoundError):
        client.stat_fs("/nonexistent/agentplex-test")


def test_no_daemon_is_a_network_error() -> None:
    from agentplex import Agentplex

    with Agentplex("http://127.0.0.1:9") as nowhere, pytest.raises(errors.NetworkError) as caught:
        nowhere.health()
    assert caught.value.status == 0
