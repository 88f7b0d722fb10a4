"""The refreshes the watcher asks for, and which namespaces' Applications it reconciles."""

import pytest

from app.engine.refresh_triggers import (
    APP_CREATED,
    SPEC_CHANGED,
    RefreshAsk,
    annotation_refresh,
    merge_asks,
    object_change,
    project_changed,
    reconciled_namespace,
    registry_refresh,
)
from app.model.annotations import REFRESH
from app.model.sync import RefreshLevel as L

NAMESPACES = [
    ("control-plane", "sluice", (), True),
    ("other-without-globs", "team-a", (), False),
    ("glob-matches", "team-a", ("team-*",), True),
    ("glob-misses", "infra", ("team-*",), False),
    ("second-glob", "infra", ("team-*", "infra"), True),
    ("glob-is-whole-name", "my-team-a", ("team-*",), False),
]


@pytest.mark.parametrize(("namespace", "globs", "expected"), [n[1:] for n in NAMESPACES],
                         ids=[n[0] for n in NAMESPACES])  # fmt: skip
def test_reconciled_namespace(namespace: str, globs: tuple[str, ...], expected: bool) -> None:
    assert (
        reconciled_namespace(namespace, control_namespace="sluice", application_namespaces=globs)
        is expected
    )


REGISTRY = [
    ("created-forces", True, True, APP_CREATED),
    ("spec-change-forces", False, True, SPEC_CHANGED),
    ("metadata-only-asks-nothing", False, False, None),
]


@pytest.mark.parametrize(("created", "spec_changed", "expected"), [r[1:] for r in REGISTRY],
                         ids=[r[0] for r in REGISTRY])  # fmt: skip
def test_registry_refresh(created: bool, spec_changed: bool, expected: RefreshAsk | None) -> None:
    assert registry_refresh(created=created, spec_changed=spec_changed) == expected
    assert expected is None or expected.level is L.FORCE


ANNOTATIONS = [
    ("hard-forces", {REFRESH: "hard"}, L.FORCE),
    ("normal-is-latest", {REFRESH: "normal"}, L.LATEST),
    ("any-other-value-is-latest", {REFRESH: "yes please"}, L.LATEST),
    ("absent-asks-nothing", {"other": "hard"}, None),
]


@pytest.mark.parametrize(("annotations", "level"), [a[1:] for a in ANNOTATIONS],
                         ids=[a[0] for a in ANNOTATIONS])  # fmt: skip
def test_annotation_refresh(annotations: dict[str, str], level: L | None) -> None:
    ask = annotation_refresh(annotations)
    assert (ask.level if ask else None) == level
    if ask is not None:
        assert REFRESH in ask.reason and repr(annotations[REFRESH]) in ask.reason


def test_a_long_annotation_value_is_cut_in_the_reason() -> None:
    ask = annotation_refresh({REFRESH: "x" * 5000})
    assert ask is not None and len(ask.reason) < 200 and ask.reason.endswith("...')")


def test_object_changes() -> None:
    assert object_change("Deployment", "web", managed=True) == RefreshAsk(
        L.RECENT, "Deployment/web changed"
    )
    assert object_change("Pod", "web-1", managed=False) == RefreshAsk(
        L.NOTHING, "Pod/web-1 changed"
    )


def test_merged_asks_take_the_highest_level_and_every_distinct_reason() -> None:
    merged = merge_asks([None, SPEC_CHANGED, annotation_refresh({REFRESH: "normal"}), SPEC_CHANGED])
    assert merged is not None and merged.level is L.FORCE
    assert merged.reason.count("spec changed") == 1 and "refresh was requested" in merged.reason
    assert merge_asks([None, None]) is None


def test_a_project_change_asks_its_apps_for_latest() -> None:
    assert project_changed("team") == RefreshAsk(L.LATEST, "AppProject team changed")
