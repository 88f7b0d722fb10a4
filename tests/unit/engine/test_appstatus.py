"""The status a comparison produces, the project's refusals, and the transitions users see."""

from typing import Any

import pytest

from app.engine.appstatus import (
    StatusInput,
    Transition,
    comparison_status,
    spec_problems,
    summarize,
    transitions,
)
from app.engine.compare import CompareSettings, ComparisonResult, compare, unknown_comparison
from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.project import AppProject
from app.model.status import ApplicationCondition, ApplicationStatus
from app.model.sync import SyncStatusCode

REV = "a" * 40
REV2 = "b" * 40
T0 = "2026-11-29T12:00:00Z"
T1 = "2026-11-29T12:02:00Z"
TRACKING = "argocd.argoproj.io/tracking-id"


def application(**spec: Any) -> Application:
    base: dict[str, Any] = {
        "source": {"repoURL": "https://git.example/shop.git", "path": "deploy"},
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
    }
    base.update(spec)
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop", "namespace": "sluice"},
            "spec": base,
        }
    )


def deployment(image: str = "nginx:1", *, live: bool = False) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "initContainers": [{"name": "init", "image": "busybox:1"}],
                    "containers": [{"name": "app", "image": image}],
                },
            },
        },
    }
    if live:
        obj["metadata"]["annotations"] = {TRACKING: "shop:apps/Deployment:shop/web"}
        obj["status"] = {
            "observedGeneration": 1,
            "replicas": 1,
            "updatedReplicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 1,
        }
        obj["metadata"]["generation"] = 1
    return obj


def compared(app: Application, *, target_image: str = "nginx:1") -> ComparisonResult:
    return compare(
        app,
        [deployment(target_image)],
        [deployment(live=True)],
        AppProject.default(),
        CompareSettings(),
    )


def status_of(
    app: Application,
    result: ComparisonResult,
    previous: ApplicationStatus | None = None,
    *,
    at: str = T0,
    revisions: tuple[str, ...] = (REV,),
    **given: Any,
) -> ApplicationStatus:
    summary = summarize(result)
    return comparison_status(
        app, StatusInput(summary=summary, revisions=revisions, reconciled_at=at, **given), previous
    )


def test_status_carries_sync_health_resources_and_what_was_compared() -> None:
    app = application(
        ignoreDifferences=[{"kind": "Deployment", "jsonPointers": ["/spec/replicas"]}]
    )
    status = status_of(app, compared(app), source_types=("Directory",))
    assert status.sync.status is SyncStatusCode.SYNCED
    assert status.sync.revision == REV and status.sync.revisions == []
    assert status.sync.compared_to is not None
    assert status.sync.compared_to.source == app.spec.source
    assert status.sync.compared_to.destination == app.spec.destination
    assert status.sync.compared_to.ignore_differences == app.spec.ignore_differences
    assert status.health.status is HealthStatusCode.HEALTHY
    assert [(r.kind, r.name, r.status) for r in status.resources] == [
        ("Deployment", "web", SyncStatusCode.SYNCED)
    ]
    assert status.reconciled_at == T0 and status.observed_at == T0
    assert status.source_type == "Directory"
    assert status.summary == {"images": ["busybox:1", "nginx:1"]}


def test_multi_source_apps_report_revisions_and_source_types_per_source() -> None:
    sources = [
        {"repoURL": "https://git.example/a.git", "path": "a"},
        {"repoURL": "https://git.example/b.git", "path": "b"},
    ]
    app = application(source=None, sources=sources)
    status = status_of(
        app, compared(app), revisions=(REV, REV2), source_types=("Directory", "Directory")
    )
    assert status.sync.revision == "" and status.sync.revisions == [REV, REV2]
    assert status.sync.compared_to is not None
    assert status.sync.compared_to.source is None
    assert status.sync.compared_to.sources == app.spec.sources
    assert status.source_type == "" and status.source_types == ["Directory", "Directory"]


@pytest.mark.parametrize(
    ("before", "keeps_time"),
    [
        pytest.param(HealthStatusCode.HEALTHY, True, id="same-health-keeps-time"),
        pytest.param(HealthStatusCode.PROGRESSING, False, id="new-health-new-time"),
    ],
)
def test_health_transition_time_moves_only_with_the_status(
    before: HealthStatusCode, keeps_time: bool
) -> None:
    app = application()
    previous = status_of(app, compared(app), at=T0)
    previous.health.status = before
    status = status_of(app, compared(app), previous, at=T1)
    assert status.health.status is HealthStatusCode.HEALTHY
    assert status.health.last_transition_time == (T0 if keeps_time else T1)


def test_conditions_keep_their_time_until_their_message_changes() -> None:
    app = application()
    result = compared(app)
    first = status_of(app, result, at=T0, sync_error="Failed last sync attempt to [a]: boom")
    same = status_of(app, result, first, at=T1, sync_error="Failed last sync attempt to [a]: boom")
    other = status_of(app, result, first, at=T1, sync_error="Failed last sync attempt to [b]: x")
    cleared = status_of(app, result, first, at=T1)
    assert [(c.type, c.last_transition_time) for c in same.conditions] == [("SyncError", T0)]
    assert [(c.type, c.last_transition_time) for c in other.conditions] == [("SyncError", T1)]
    assert cleared.conditions == []


def test_comparison_conditions_are_carried_and_redacted() -> None:
    app = application()
    result = unknown_comparison(
        app, [], "git fetch https://bob:hunter2@git.example/shop.git failed", CompareSettings()
    )
    status = status_of(app, result, revisions=())
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert status.health.status is HealthStatusCode.UNKNOWN
    assert [c.type for c in status.conditions] == ["ComparisonError"]
    assert "hunter2" not in status.conditions[0].message
    assert status.sync.revision == ""


def test_spec_problems_replace_the_comparison_error_with_invalid_spec_errors() -> None:
    app = application()
    problems = ["application repo https://git.example/shop.git is not permitted in project 'p'"]
    result = unknown_comparison(app, [], "; ".join(problems), CompareSettings())
    status = status_of(app, result, invalid_spec=tuple(problems))
    assert [(c.type, c.message) for c in status.conditions] == [("InvalidSpecError", problems[0])]
    assert status.sync.status is SyncStatusCode.UNKNOWN


def _project(**spec: Any) -> AppProject:
    return AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team", "namespace": "sluice"},
            "spec": spec,
        }
    )


@pytest.mark.parametrize(
    ("project", "expected"),
    [
        pytest.param(AppProject.default(), [], id="default-project-allows-all"),
        pytest.param(
            None,
            ["Application referencing project default which does not exist"],
            id="missing-project",
        ),
        pytest.param(
            _project(
                sourceRepos=["https://git.example/other.git"],
                destinations=[{"server": "*", "namespace": "*"}],
            ),
            ["application repo https://git.example/shop.git is not permitted in project 'team'"],
            id="source-not-permitted",
        ),
        pytest.param(
            _project(sourceRepos=["*"], destinations=[{"server": "*", "namespace": "other"}]),
            [
                "application destination server 'https://kubernetes.default.svc' and namespace "
                "'shop' do not match any of the allowed destinations in project 'team'"
            ],
            id="destination-not-permitted",
        ),
    ],
)
def test_spec_problems_name_what_the_project_refuses(
    project: AppProject | None, expected: list[str]
) -> None:
    assert spec_problems(application(), project, control_namespace="sluice") == expected


def _in_namespace(namespace: str) -> Application:
    app = application()
    app.metadata.namespace = namespace
    return app


@pytest.mark.parametrize(
    ("namespace", "source_namespaces", "refused"),
    [
        pytest.param("sluice", [], False, id="control-plane-namespace"),
        pytest.param("apps-other", [], True, id="no-source-namespaces"),
        pytest.param("apps-other", ["apps-team"], True, id="not-matched"),
        pytest.param("apps-team", ["apps-*"], False, id="matched-by-glob"),
        pytest.param("apps-other", ["!apps-team"], True, id="a-negation-grants-nothing"),
    ],
)
def test_an_app_outside_the_control_plane_needs_the_projects_source_namespaces(
    namespace: str, source_namespaces: list[str], refused: bool
) -> None:
    project = _project(
        sourceRepos=["https://git.example/other.git"],
        destinations=[{"server": "*", "namespace": "*"}],
        sourceNamespaces=source_namespaces,
    )
    problems = spec_problems(_in_namespace(namespace), project, control_namespace="sluice")
    if refused:
        assert problems == [
            f"application 'shop' in namespace '{namespace}' is not allowed to use project "
            "team; add the namespace to the project's sourceNamespaces"
        ]
    else:
        assert problems == [
            "application repo https://git.example/shop.git is not permitted in project 'team'"
        ]


def test_the_default_project_allows_no_namespace_but_the_control_planes() -> None:
    problems = spec_problems(
        _in_namespace("apps-other"), AppProject.default(), control_namespace="sluice"
    )
    assert problems == [
        "application 'shop' in namespace 'apps-other' is not allowed to use project "
        "default; add the namespace to the project's sourceNamespaces"
    ]


def _sync(status: SyncStatusCode, health: HealthStatusCode) -> ApplicationStatus:
    out = ApplicationStatus()
    out.sync.status = status
    out.sync.revision = REV
    out.health.status = health
    return out


SYNCED, OUT, UNKNOWN = SyncStatusCode.SYNCED, SyncStatusCode.OUT_OF_SYNC, SyncStatusCode.UNKNOWN
HEALTHY, PROGRESSING = HealthStatusCode.HEALTHY, HealthStatusCode.PROGRESSING


@pytest.mark.parametrize(
    ("previous", "current", "expected"),
    [
        pytest.param(
            None, _sync(OUT, PROGRESSING), ["out-of-sync", "health-changed"], id="first-status"
        ),
        pytest.param(_sync(SYNCED, HEALTHY), _sync(SYNCED, HEALTHY), [], id="nothing-changed"),
        pytest.param(_sync(SYNCED, HEALTHY), _sync(OUT, HEALTHY), ["out-of-sync"], id="drift"),
        pytest.param(_sync(OUT, HEALTHY), _sync(SYNCED, HEALTHY), ["synced"], id="synced-again"),
        pytest.param(
            _sync(SYNCED, HEALTHY), _sync(UNKNOWN, HEALTHY), ["sync-unknown"], id="unknown"
        ),
        pytest.param(
            _sync(UNKNOWN, HEALTHY), _sync(SYNCED, HEALTHY), ["synced"], id="unknown-to-synced"
        ),
        pytest.param(
            _sync(SYNCED, HEALTHY),
            _sync(SYNCED, PROGRESSING),
            ["health-changed"],
            id="health-changed",
        ),
    ],
)
def test_transitions_are_reported_once_per_change(
    previous: ApplicationStatus | None, current: ApplicationStatus, expected: list[str]
) -> None:
    assert [c.transition.value for c in transitions(previous, current)] == expected


def test_transition_data_says_what_changed() -> None:
    before, after = _sync(SYNCED, HEALTHY), _sync(OUT, PROGRESSING)
    after.health.message = "Caused by apps/Deployment:shop/web"
    changes = {c.transition: c.data for c in transitions(before, after)}
    assert changes[Transition.OUT_OF_SYNC]["revision"] == REV
    assert changes[Transition.OUT_OF_SYNC]["from"] == "Synced"
    assert changes[Transition.OUT_OF_SYNC]["message"].startswith(
        f"Application is OutOfSync at revision {REV}"
    )
    assert changes[Transition.HEALTH_CHANGED] == {
        "from": "Healthy",
        "to": "Progressing",
        "message": "Caused by apps/Deployment:shop/web",
        "revision": REV,
    }


def test_an_unknown_sync_status_says_why() -> None:
    after = _sync(UNKNOWN, HEALTHY)
    after.conditions = [ApplicationCondition("ComparisonError", "repository not found", T0)]
    (change,) = transitions(_sync(SYNCED, HEALTHY), after)
    assert change.data == {
        "revision": REV,
        "from": "Synced",
        "message": "Application sync status is Unknown: repository not found",
    }
    assert transitions(None, _sync(OUT, HEALTHY))[0].data["from"] == ""


def test_previous_conditions_from_other_types_do_not_leak_in() -> None:
    app = application()
    previous = status_of(app, compared(app))
    previous.conditions = [ApplicationCondition("SharedResourceWarning", "x", T0)]
    assert status_of(app, compared(app), previous, at=T1).conditions == []
