"""The auto-sync decision table (SEMANTICS §6), one rule per case, with the user's text."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.engine.autosync import AutoSyncOutcome, ComparedState, RecheckCause, decide_auto_sync
from app.engine.sync_windows import evaluate
from app.model.app_spec import ApplicationSource, RetryStrategy
from app.model.application import Application
from app.model.operation import (
    Operation,
    OperationInitiator,
    OperationState,
    SyncOperation,
    SyncOperationResult,
)
from app.model.project import AppProject
from app.model.status import ResourceStatus
from app.model.sync import OperationPhase, RefreshLevel, SyncStatusCode
from app.model.timestamps import format_time

REV = "a" * 40
OLD = "b" * 40
NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
SOURCE = {"repoURL": "https://git.example/shop.git", "path": "deploy", "targetRevision": "main"}
OUT = SyncStatusCode.OUT_OF_SYNC
SYNCED = SyncStatusCode.SYNCED


def application(automated: dict[str, Any] | None = None, **policy: Any) -> Application:
    sync_policy: dict[str, Any] = dict(policy)
    if automated is not None:
        sync_policy["automated"] = automated
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop"},
            "spec": {
                "source": dict(SOURCE),
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
                "syncPolicy": sync_policy,
            },
        }
    )


def last_operation(
    app: Application,
    *,
    revision: str = REV,
    phase: OperationPhase = OperationPhase.SUCCEEDED,
    message: str = "successfully synced (all tasks run)",
    heals: int = 0,
    finished: datetime | None = NOW,
    source: ApplicationSource | None = None,
) -> Application:
    app.status.operation_state = OperationState(
        operation=Operation(
            sync=SyncOperation(revision=revision, auto_heal_attempts_count=heals),
            initiated_by=OperationInitiator(automated=True),
        ),
        phase=phase,
        message=message,
        sync_result=SyncOperationResult(
            revision=revision,
            source=source or replace(app.spec.source),  # type: ignore[type-var]
        ),
        finished_at=format_time(finished, timespec="auto") if finished else "",
    )
    return app


def res(name: str, status: SyncStatusCode = OUT, prune: bool = False) -> ResourceStatus:
    return ResourceStatus(
        kind="Deployment",
        name=name,
        group="apps",
        namespace="shop",
        status=status,
        requires_pruning=prune,
    )


def compared(*resources: ResourceStatus, status: SyncStatusCode = OUT) -> ComparedState:
    return ComparedState(status=status, revision=REV, resources=list(resources) or [res("web")])


AUTO = {"prune": True, "selfHeal": False}
SKIPS = [
    (
        "no-automated-policy",
        application(),
        compared(),
        AutoSyncOutcome.DISABLED,
        "auto-sync is not enabled",
    ),
    (
        "automated-enabled-false",
        application({"enabled": False}),
        compared(),
        AutoSyncOutcome.DISABLED,
        "auto-sync is not enabled",
    ),
    (
        "operation-in-progress",
        "in-progress",
        compared(),
        AutoSyncOutcome.SKIPPED,
        "Skipping auto-sync: another operation is in progress",
    ),
    (
        "retrying-operation-in-progress",
        "retrying",
        compared(),
        AutoSyncOutcome.SKIPPED,
        "Skipping auto-sync: another operation is in progress",
    ),
    (
        "app-being-deleted",
        "deleting",
        compared(),
        AutoSyncOutcome.SKIPPED,
        "Skipping auto-sync: deletion in progress",
    ),
    (
        "already-synced",
        application(AUTO),
        compared(status=SYNCED),
        AutoSyncOutcome.SKIPPED,
        "Skipping auto-sync: application status is Synced",
    ),
    (
        "status-unknown",
        application(AUTO),
        compared(status=SyncStatusCode.UNKNOWN),
        AutoSyncOutcome.SKIPPED,
        "Skipping auto-sync: application status is Unknown",
    ),
    (
        "prune-only-with-prune-off",
        application({"prune": False}),
        compared(res("a", SYNCED), res("old", prune=True)),
        AutoSyncOutcome.SKIPPED,
        "Skipping auto-sync: need to prune extra resources only but automated prune is disabled",
    ),
    (
        "already-synced-this-revision-without-self-heal",
        "attempted-ok",
        compared(),
        AutoSyncOutcome.SKIPPED,
        f"Skipping auto-sync: most recent sync already to [{REV}]",
    ),
]


def resolve(app: Application | str) -> Application:
    if not isinstance(app, str):
        return app
    base = application(AUTO)
    if app == "in-progress":
        base.operation = Operation(sync=SyncOperation(revision=REV))
    elif app == "retrying":
        last_operation(base, phase=OperationPhase.RUNNING)
    elif app == "deleting":
        base.metadata.deletion_timestamp = "2026-11-29T11:00:00Z"
    elif app == "attempted-ok":
        last_operation(base)
    return base


@pytest.mark.parametrize(
    ("app", "state", "outcome", "reason"), [c[1:] for c in SKIPS], ids=[c[0] for c in SKIPS]
)
def test_skip_reasons(
    app: Application | str, state: ComparedState, outcome: AutoSyncOutcome, reason: str
) -> None:
    decision = decide_auto_sync(resolve(app), state, NOW)
    assert (decision.outcome, decision.reason, decision.sync_error) == (outcome, reason, "")
    assert decision.operation is None


def test_failed_last_attempt_is_a_sync_error_until_revision_or_spec_changes() -> None:
    app = last_operation(
        application(AUTO),
        phase=OperationPhase.FAILED,
        message="one or more objects failed to apply, reason: denied (retried 5 times).",
    )
    decision = decide_auto_sync(app, compared(), NOW)
    assert decision.outcome is AutoSyncOutcome.SYNC_ERROR
    assert decision.sync_error == (
        f"Failed last sync attempt to [{REV}]: one or more objects failed to apply, "
        "reason: denied (retried 5 times)."
    )
    new_revision = replace(compared(), revision="c" * 40)
    assert decide_auto_sync(app, new_revision, NOW).outcome is AutoSyncOutcome.START
    changed = ApplicationSource(repo_url=SOURCE["repoURL"], path="other")
    assert app.spec.source is not None
    app.spec.source = changed
    assert decide_auto_sync(app, compared(), NOW).outcome is AutoSyncOutcome.START


def test_wipe_out_is_refused_without_allow_empty() -> None:
    state = compared(res("a", prune=True), res("b", prune=True))
    decision = decide_auto_sync(application(AUTO), state, NOW)
    assert decision.outcome is AutoSyncOutcome.SYNC_ERROR
    assert decision.sync_error == (
        f"Skipping sync attempt to [{REV}]: auto-sync will wipe out all resources"
    )
    allowed = application({"prune": True, "allowEmpty": True})
    assert decide_auto_sync(allowed, state, NOW).outcome is AutoSyncOutcome.START


def test_new_revision_starts_an_automated_operation() -> None:
    app = last_operation(application(AUTO, syncOptions=["CreateNamespace=true"]), revision=OLD)
    decision = decide_auto_sync(app, compared(), NOW)
    assert decision.outcome is AutoSyncOutcome.START
    assert decision.event == f"Initiated automated sync to '{REV}'"
    assert decision.sync_error == ""
    op = decision.operation
    assert op is not None and op.sync is not None
    assert (op.sync.revision, op.sync.prune, op.sync.sync_options) == (
        REV,
        True,
        ["CreateNamespace=true"],
    )
    assert op.initiated_by.automated and op.sync.resources == []
    assert op.sync.auto_heal_attempts_count == 0
    assert op.retry == RetryStrategy(limit=5)


def test_spec_retry_is_used_for_the_operation() -> None:
    app = application(AUTO, retry={"limit": -1, "refresh": True})
    op = decide_auto_sync(app, compared(), NOW).operation
    assert op is not None and op.retry is not None
    assert (op.retry.limit, op.retry.refresh) == (-1, True)


HEAL = {"prune": True, "selfHeal": True}
SELF_HEAL = [
    ("first-attempt-is-immediate", 0, 0.0, AutoSyncOutcome.START, 0.0),
    ("second-attempt-waits-2s", 1, 1.0, AutoSyncOutcome.RECHECK, 1.0),
    ("second-attempt-after-2s", 1, 2.0, AutoSyncOutcome.START, 0.0),
    ("third-attempt-waits-6s", 2, 4.0, AutoSyncOutcome.RECHECK, 2.0),
    ("seventh-attempt-waits-the-cap", 6, 100.0, AutoSyncOutcome.RECHECK, 200.0),
]


@pytest.mark.parametrize(
    ("heals", "elapsed", "outcome", "remaining"),
    [c[1:] for c in SELF_HEAL],
    ids=[c[0] for c in SELF_HEAL],
)
def test_self_heal_backoff(
    heals: int, elapsed: float, outcome: AutoSyncOutcome, remaining: float
) -> None:
    app = last_operation(application(HEAL), heals=heals, finished=NOW)
    state = compared(res("web"), res("api", SYNCED))
    decision = decide_auto_sync(app, state, NOW + timedelta(seconds=elapsed))
    assert decision.outcome is outcome
    if outcome is AutoSyncOutcome.RECHECK:
        assert decision.recheck_after == pytest.approx(remaining)
        assert decision.recheck_cause is RecheckCause.SELF_HEAL
        assert not decision.notable
        assert decision.reason.startswith(f"Skipping auto-sync: already attempted sync to [{REV}]")
        return
    op = decision.operation
    assert op is not None and op.sync is not None
    assert op.sync.auto_heal_attempts_count == heals + 1
    assert [(r.kind, r.name, r.namespace) for r in op.sync.resources] == [
        ("Deployment", "web", "shop")
    ]


def test_multi_source_revisions_are_listed() -> None:
    app = application(AUTO)
    app.spec.sources = [
        ApplicationSource(repo_url="https://a"),
        ApplicationSource(repo_url="https://b"),
    ]
    state = ComparedState(OUT, "r1", [res("web")], revisions=["r1", "r2"])
    decision = decide_auto_sync(app, state, NOW)
    assert decision.event == "Initiated automated sync to 'r1, r2'"
    wipe = ComparedState(OUT, "r1", [res("old", prune=True)], revisions=["r1", "r2"])
    assert decide_auto_sync(app, wipe, NOW).sync_error.startswith(
        "Skipping sync attempt to [r1 r2]"
    )


ROUTINE = {
    "no-automated-policy",
    "automated-enabled-false",
    "operation-in-progress",
    "retrying-operation-in-progress",
    "already-synced",
    "status-unknown",
}


@pytest.mark.parametrize(("app", "state"), [c[1:3] for c in SKIPS], ids=[c[0] for c in SKIPS])
def test_only_skips_that_explain_an_unsynced_app_are_notable(
    request: pytest.FixtureRequest, app: Application | str, state: ComparedState
) -> None:
    case = request.node.callspec.id
    decision = decide_auto_sync(resolve(app), state, NOW)
    assert decision.notable is (case not in ROUTINE)


def windows(*entries: dict[str, Any]) -> AppProject:
    return AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "payments"},
            "spec": {"syncWindows": [{"applications": ["*"], **e} for e in entries]},
        }
    )


DENY_NOW = {"kind": "deny", "schedule": "0 12 * * *", "duration": "1h"}
"""Active at NOW (12:00) until 13:00 UTC."""


def test_a_blocking_sync_window_skips_and_re_checks_when_it_closes() -> None:
    app = application(AUTO)
    verdict = evaluate(windows(DENY_NOW), app, NOW, manual=False)
    decision = decide_auto_sync(app, compared(), NOW, windows=verdict)
    assert decision.outcome is AutoSyncOutcome.RECHECK
    assert decision.recheck_cause is RecheckCause.SYNC_WINDOW
    assert (decision.recheck_after, decision.recheck_level) == (3600, RefreshLevel.RECENT)
    assert decision.notable and decision.operation is None
    assert decision.reason == (
        "Skipping auto-sync: blocked by sync window: project payments window 0 "
        "(deny '0 12 * * *' for 1h, UTC) active until 2026-11-29T13:00:00Z"
    )
    later = NOW + timedelta(hours=1)
    opened = evaluate(windows(DENY_NOW), app, later, manual=False)
    assert decide_auto_sync(app, compared(), later, windows=opened).outcome is AutoSyncOutcome.START


def test_a_blocking_sync_window_leaves_a_synced_app_a_routine_skip() -> None:
    app = application(AUTO)
    verdict = evaluate(windows(DENY_NOW), app, NOW, manual=False)
    decision = decide_auto_sync(app, compared(status=SYNCED), NOW, windows=verdict)
    assert (decision.outcome, decision.notable) == (AutoSyncOutcome.SKIPPED, False)


def test_an_unreadable_sync_window_is_a_sync_error_naming_it() -> None:
    app = application(AUTO)
    verdict = evaluate(windows({**DENY_NOW, "duration": "soon"}), app, NOW, manual=False)
    decision = decide_auto_sync(app, compared(), NOW, windows=verdict)
    assert decision.outcome is AutoSyncOutcome.SYNC_ERROR
    assert decision.sync_error.startswith(
        "Skipping auto-sync: invalid sync window: project payments: "
        "spec.syncWindows[0].duration: duration 'soon' is not a duration"
    )
