"""Wire form of work messages: versioned JSON, size-limited, and every malformation named."""

import json

import pytest

from app.bus import messages
from app.bus.errors import MessageError
from app.bus.messages import (
    COMPARE,
    HOOK,
    REFRESH,
    RENDER,
    SYNC,
    Channel,
    HookRequest,
    ManifestsReady,
    RefreshRequest,
    RenderRequest,
    SyncStep,
)
from app.model.identity import AppRef
from app.model.sync import RefreshLevel

APP = AppRef("sluice", "guestbook")

ROUND_TRIPS = [
    pytest.param(REFRESH, RefreshRequest(APP, RefreshLevel.FORCE, "hard refresh"), id="refresh"),
    pytest.param(RENDER, RenderRequest(APP, RefreshLevel.LATEST, "resync"), id="render"),
    pytest.param(COMPARE, ManifestsReady(APP, RefreshLevel.LATEST, ("a" * 40,)), id="compare"),
    pytest.param(SYNC, SyncStep(APP, "op-1", 3, "wave 1 healthy"), id="sync"),
    pytest.param(HOOK, HookRequest(APP, "op-1", 2, "PreSync"), id="hook"),
]


@pytest.mark.parametrize(("channel", "message"), ROUND_TRIPS)
def test_round_trip(channel: Channel[messages.Payload], message: messages.Payload) -> None:
    assert messages.decode(channel, messages.encode(message)) == message


def test_wire_form_is_readable() -> None:
    doc = json.loads(messages.encode(RefreshRequest(APP, RefreshLevel.LATEST, "webhook")))
    assert doc == {"v": 1, "app": "sluice/guestbook", "level": "latest", "reason": "webhook"}


def test_unknown_fields_are_ignored_for_forward_compatibility() -> None:
    data = b'{"v":1,"app":"sluice/guestbook","level":"recent","reason":"x","newField":1}'
    assert messages.decode(REFRESH, data) == RefreshRequest(APP, RefreshLevel.RECENT, "x")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        pytest.param(b"not json", "not JSON", id="not-json"),
        pytest.param(b"[1]", "expected a JSON object", id="not-object"),
        pytest.param(b'{"app":"sluice/g","level":"latest","reason":""}', "version None", id="no-v"),
        pytest.param(
            b'{"v":2,"app":"sluice/g","level":"latest","reason":""}', "version 2", id="v2"
        ),
        pytest.param(b'{"v":1,"level":"latest","reason":""}', "app: is required", id="no-app"),
        pytest.param(b'{"v":1,"app":"g","level":"latest","reason":""}', "namespace/name", id="app"),
        pytest.param(b'{"v":1,"app":"s/A.*","level":"latest","reason":""}', "invalid", id="inj"),
        pytest.param(b'{"v":1,"app":"s/g","level":"hard","reason":""}', "unknown refresh", id="lv"),
        pytest.param(b'{"v":1,"app":"s/g","level":2,"reason":""}', "level name", id="lv-int"),
        pytest.param(b'{"v":1,"app":"s/g","level":"latest","reason":7}', "a string", id="reason"),
    ],
)
def test_malformed_messages_name_the_problem(data: bytes, problem: str) -> None:
    with pytest.raises(MessageError, match=problem):
        messages.decode(REFRESH, data)


def test_step_must_be_an_integer() -> None:
    data = b'{"v":1,"app":"s/g","operation":"op","step":true,"reason":""}'
    with pytest.raises(MessageError, match=r"SyncStep.step: expected an integer"):
        messages.decode(SYNC, data)


def test_size_limit_on_both_sides() -> None:
    huge = RefreshRequest(APP, RefreshLevel.LATEST, "x" * messages.MAX_BYTES)
    with pytest.raises(MessageError, match="over the"):
        messages.encode(huge)
    with pytest.raises(MessageError, match="over the"):
        messages.decode(REFRESH, b" " * (messages.MAX_BYTES + 1))


def test_dedup_ids_name_the_operation_step() -> None:
    assert SyncStep(APP, "op-1", 3, "").dedup_id() == "sync:sluice~guestbook:op-1:3"
    assert HookRequest(APP, "op-1", 3, "").dedup_id() == "hook:sluice~guestbook:op-1:3"
    assert RefreshRequest(APP, RefreshLevel.LATEST, "").dedup_id() == ""
