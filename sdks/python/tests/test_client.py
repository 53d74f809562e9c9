"""The sync client against the real daemon and the mock agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentplex import (
    Agentplex,
    InvalidRequestError,
    LocalAgentplex,
    ModeNotSupportedError,
    NotConfiguredError,
    RequestNotFoundError,
    SessionAlreadyExistsError,
    SessionEndedError,
    SessionNotFoundError,
    TokenInvalidError,
    UnsupportedAgentError,
    models,
    start,
)

from .conftest import daemon_env


def test_health_agents_modes_models(client: LocalAgentplex) -> None:
    assert client.health().status == "ok"
    agents = {agent.id: agent for agent in client.list_agents()}
    assert agents["mock"].installed
    assert agents["mock"].capabilities.permissions
    assert [mode.id for mode in client.list_agent_modes("mock")] == ["build", "plan"]
    assert client.list_agent_models("mock").default_model == "mock"
    assert client.openapi()["openapi"].startswith("3.1")
    metrics = client.metrics()
    assert "\nagentplex_process_threads " in metrics
    assert metrics.endswith("# EOF\n")
    client.install_agent("mock")
    with pytest.raises(UnsupportedAgentError) as caught:
        client.list_agent_modes("nosuch")
    assert caught.value.status == 404


def test_install_progress_ends_with_a_result(client: LocalAgentplex) -> None:
    steps = list(client.install_agent_progress("mock"))
    assert steps[-1][0] == "result"
    assert steps[-1][1]["agent"] == "mock"
    progress: list[str] = []
    result = client.install_agent("mock", on_progress=lambda step: progress.append(step["stage"]))
    assert result == steps[-1][1] and result["alreadyInstalled"]


def test_reload_adapters(client: LocalAgentplex, binary: str, tmp_path: Path) -> None:
    with pytest.raises(NotConfiguredError) as caught:
        client.reload_adapters()
    assert caught.value.status == 409
    folder = tmp_path / "adapters"
    folder.mkdir()
    args = ["--ephemeral", "--adapters-dir", str(folder)]
    with start(binary, args=args, data_dir=tmp_path / "d", env=daemon_env(tmp_path)) as other:
        reloaded = other.reload_adapters()
        assert (reloaded.adapters, reloaded.skipped) == ([], [])


def test_prompt_echo_and_sessions(client: LocalAgentplex) -> None:
    session = client.create_session("echo", agent="mock", title="Echo")
    assert session.created is not None and session.created.healthy
    seen: list[str] = []
    result = session.prompt("echo hello sandbox", on_event=lambda e: seen.append(e.type))
    assert result.text == "hello sandbox"
    assert result.stop_reason == "turn_ended"
    assert result.turn_id == "turn_1"
    assert result.usage is not None and result.usage.input_tokens == 3
    assert seen[0] == "turn.started" and seen[-1] == "turn.ended"
    assert [item.role for item in result.items] == ["user", "assistant"]
    info = client.get_session("echo").info
    assert info is not None and info.title == "Echo" and info.status == "idle"
    assert info.event_count == result.last_sequence
    with pytest.raises(SessionAlreadyExistsError):
        client.create_session("echo", agent="mock")


def test_list_sessions_by_scope(client: LocalAgentplex) -> None:
    client.create_session("scoped", agent="mock")
    # Without a database shared with other daemons, the fleet is this daemon.
    for listed in (
        client.list_sessions(),
        client.list_sessions(scope="daemon"),
        client.list_sessions(scope="fleet"),
    ):
        assert "scoped" in [info.session_id for info in listed]


def test_permission_and_question_callbacks(client: LocalAgentplex) -> None:
    session = client.create_session("asks", agent="mock")
    permission = session.prompt("permission ls", on_permission=lambda request, event: "once")
    assert "Permission granted once" in permission.text
    resolved = [e for e in permission.events if e.type == "permission.resolved"]
    assert isinstance(resolved[0].data, models.PermissionEventData)
    assert resolved[0].data.status == "accept"

    session.on_question(lambda request, event: [request.options[1]])
    question = session.prompt("question")
    assert question.text == "You answered: Blue."
    declined = session.prompt("question", on_question=lambda request, event: "reject")
    assert declined.text == "You declined to answer."


def test_several_listeners_the_first_reply_answers(client: LocalAgentplex) -> None:
    session = client.create_session("listeners", agent="mock")
    asked: list[str] = []

    def watch(request: models.PermissionEventData, event: models.UniversalEvent) -> None:
        asked.append("watch")

    def reject(request: models.PermissionEventData, event: models.UniversalEvent) -> models.PermissionReply:
        asked.append("reject")
        return "reject"

    def never(request: models.PermissionEventData, event: models.UniversalEvent) -> models.PermissionReply:
        asked.append("never")
        return "always"

    # Adding the same listener twice adds it once.
    session.on_permission(watch).on("permission", reject).on_permission(never).on_permission(watch)
    assert "rejected" in session.prompt("permission ls").text
    assert asked == ["watch", "reject"], "listeners in order, none after the first reply"

    asked.clear()
    once = session.prompt("permission ls", on_permission=lambda request, event: "once")
    assert "granted once" in once.text
    assert asked == [], "the call's own handler answers before the listeners"

    session.off("permission", reject).off_permission(reject)
    asked.clear()
    assert "for this session" in session.prompt("permission ls").text
    assert asked == ["watch", "never"]


def test_replies_by_hand_and_stream(client: LocalAgentplex) -> None:
    session = client.create_session("by-hand", agent="mock")
    types: list[str] = []
    for event in session.stream("permission"):
        types.append(event.type)
        if isinstance(event.data, models.PermissionEventData) and event.type == "permission.requested":
            session.reply_permission(event.data.permission_id, "reject")
    assert types[-1] == "turn.ended"
    assert "permission.resolved" in types
    with pytest.raises(RequestNotFoundError) as caught:
        session.reply_permission("mock_1_permission", "once")
    assert caught.value.session_id == "by-hand"


def test_events_page_and_iterator(client: LocalAgentplex) -> None:
    session = client.create_session("pages", agent="mock")
    session.prompt("echo one")
    page = session.get_events(0, limit=2)
    assert [e.sequence for e in page.events] == [1, 2] and page.has_more
    assert page.events[0].type == "session.started"
    session.terminate()
    sequences = [e.sequence for e in session.events()]
    assert sequences == list(range(1, len(sequences) + 1))
    assert list(session.events(offset=sequences[-1])) == []
    with pytest.raises(SessionEndedError):
        session.send("echo again")


def test_cancel_a_slow_turn(client: LocalAgentplex) -> None:
    session = client.create_session("slow", agent="mock")
    session.send("slow 100")
    for event in session.events():
        if event.type == "item.delta":
            session.cancel()
        if event.type == "turn.ended":
            break
    assert session.refresh().status == "idle"
    session.delete()
    with pytest.raises(SessionNotFoundError):
        session.refresh()


def test_wrong_token_is_token_invalid(client: LocalAgentplex) -> None:
    with Agentplex(client.base_url, token="wrong") as other:
        assert other.health().status == "ok"
        with pytest.raises(TokenInvalidError) as caught:
            other.list_sessions()
    error = caught.value
    assert (error.status, error.title, error.code) == (401, "Unauthorized", "token_invalid")
    assert error.type == "urn:sandbox-agent:error:token_invalid"
    assert error.problem is not None and error.detail


def test_approval_policies_decide_and_are_replaced(client: LocalAgentplex) -> None:
    policy = {"rules": [{"tool": "shell", "command": "echo *", "decision": "allow"}]}
    session = client.create_session("policy", agent="mock", policy=policy)
    decided = [
        (event.data.decision, event.data.by)
        for event in session.stream("permission echo hi")
        if isinstance(event.data, models.PermissionDecidedData)
    ]
    assert decided == [("allow", "rule")]
    kept = session.set_policy({"rules": [], "default": "deny"})
    assert kept.default == "deny"
    with pytest.raises(InvalidRequestError) as caught:
        session.set_policy({"rules": [{"tool": "shel", "decision": "deny"}]})
    assert caught.value.detail is not None and "policy.rules[0].tool" in caught.value.detail


def test_modes_change_from_the_next_message(client: LocalAgentplex) -> None:
    session = client.create_session("modes", agent="mock")
    modes = session.set_modes(agent_mode="plan")
    assert (modes.agent_mode, modes.permission_mode) == ("plan", "default")
    assert session.refresh().agent_mode == "plan"
    choices = session.get_modes()
    assert (choices.agent_mode, choices.permission_mode, choices.offered) == ("plan", "default", None)
    assert session.prompt("shell echo hi").text == "Plan mode: I would run `echo hi`."
    with pytest.raises(ModeNotSupportedError):
        session.set_modes(agent_mode="architect")
    assert session.set_modes(model="mock-large").model == "mock-large"
    assert session.refresh().model == "mock-large"
    assert session.prompt("settings").text == ("Agent mode plan, permission mode default, model mock-large.")
    assert session.set_modes(variant="high").variant == "high"
    assert session.get_modes().variant == "high"
    assert session.prompt("settings").text == (
        "Agent mode plan, permission mode default, model mock-large, variant high."
    )


def test_budgets_need_the_gateway(client: LocalAgentplex, binary: str, tmp_path: Path) -> None:
    plain = client.create_session("budget-plain", agent="mock")
    with pytest.raises(NotConfiguredError):
        plain.set_budget(max_tokens=5)
    env = {**daemon_env(tmp_path), "AGENTPLEX_GATEWAY": "1"}
    with start(binary, args=["--ephemeral"], data_dir=tmp_path / "data", env=env) as gated:
        session = gated.create_session("budget", agent="mock", budget=models.BudgetLimits(maxTokens=1000))
        assert session.refresh().budget == models.BudgetLimits(maxTokens=1000)
        limits = session.set_budget(max_cost_usd=2.5)
        assert limits.max_cost_usd == 2.5 and limits.max_tokens is None
        assert session.refresh().budget == limits
        with pytest.raises(InvalidRequestError):
            session.set_budget(max_cost_usd=-1)
