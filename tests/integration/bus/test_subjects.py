"""Subject layout: one token per app, reversible, and no name can inject a separator or wildcard."""

import pytest

from app.bus import subjects
from app.bus.subjects import EventType, Purpose, Work
from app.model.identity import AppRef


@pytest.mark.parametrize(
    ("namespace", "name", "token"),
    [
        pytest.param("sluice", "guestbook", "sluice~guestbook", id="plain"),
        pytest.param("team-a", "web.frontend", "team-a~web_frontend", id="dots-become-underscores"),
        pytest.param("a", "b" * 253, "a~" + "b" * 253, id="longest-name"),
    ],
)
def test_app_token_round_trips(namespace: str, name: str, token: str) -> None:
    app = AppRef(namespace, name)
    assert subjects.app_token(app) == token
    assert subjects.app_from_token(token) == app
    assert "." not in token and "*" not in token and ">" not in token


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        pytest.param("sluice", "a.*", id="star-wildcard"),
        pytest.param("sluice", "a.>", id="tail-wildcard"),
        pytest.param("sluice", "a b", id="space"),
        pytest.param("sluice", "Guestbook", id="uppercase"),
        pytest.param("sluice", "a_b", id="underscore-would-be-ambiguous"),
        pytest.param("sluice", "a~b", id="token-separator"),
        pytest.param("sluice", "-a", id="leading-dash"),
        pytest.param("sluice", "a..b", id="empty-part"),
        pytest.param("sluice", "", id="empty-name"),
        pytest.param("sluice", "b" * 254, id="name-too-long"),
        pytest.param("my.ns", "app", id="dot-in-namespace"),
        pytest.param("n" * 64, "app", id="namespace-too-long"),
        pytest.param("", "app", id="empty-namespace"),
    ],
)
def test_invalid_names_are_refused_with_the_rule(namespace: str, name: str) -> None:
    with pytest.raises(ValueError, match="invalid Application"):
        AppRef(namespace, name)


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("noseparator", id="missing-separator"),
        pytest.param("ns~a.b", id="dot-in-token"),
        pytest.param("ns~A", id="invalid-name"),
    ],
)
def test_bad_tokens_are_refused(token: str) -> None:
    with pytest.raises(ValueError):
        subjects.app_from_token(token)


def test_every_subject_family() -> None:
    app = AppRef("team-a", "web.frontend")
    assert subjects.work(Work.REFRESH, app) == "sluice.refresh.team-a~web_frontend"
    assert subjects.schedule(Purpose.RESYNC, app) == "sluice.schedule.resync.team-a~web_frontend"
    assert (
        subjects.event(app, EventType.OUT_OF_SYNC)
        == "sluice.events.team-a~web_frontend.out-of-sync"
    )
    assert subjects.events_filter(app) == "sluice.events.team-a~web_frontend.*"
    assert subjects.parse_work("sluice.sync.team-a~web_frontend") == (Work.SYNC, app)
    assert EventType.OUT_OF_SYNC.cloudevent_type == "dev.sluice.out-of-sync"


@pytest.mark.parametrize(
    "subject",
    [
        pytest.param("sluice.events.ns~a.synced", id="event-subject"),
        pytest.param("sluice.unknown.ns~a", id="unknown-kind"),
        pytest.param("other.refresh.ns~a", id="other-prefix"),
    ],
)
def test_parse_work_refuses_other_subjects(subject: str) -> None:
    with pytest.raises(ValueError):
        subjects.parse_work(subject)


def test_app_parse_from_namespace_slash_name() -> None:
    assert AppRef.parse("sluice/guestbook") == AppRef("sluice", "guestbook")
    assert str(AppRef("sluice", "guestbook")) == "sluice/guestbook"
    with pytest.raises(ValueError, match="namespace/name"):
        AppRef.parse("guestbook")
