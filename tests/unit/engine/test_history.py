"""Deployment history and rollback (SEMANTICS §9)."""

from datetime import UTC, datetime

import pytest

from app.engine.history import (
    RollbackError,
    append_history,
    next_history_id,
    records_history,
    rollback_operation,
    trim_history,
)
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.model.operation import (
    Operation,
    OperationInitiator,
    OperationState,
    RevisionHistory,
    SyncOperation,
    SyncOperationResource,
    SyncOperationResult,
)
from app.model.sync import OperationPhase, SyncStrategy

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
SOURCE = ApplicationSource(repo_url="https://git.example/shop.git", path="deploy")


def finished(
    phase: OperationPhase = OperationPhase.SUCCEEDED,
    *,
    dry_run: bool = False,
    selective: bool = False,
) -> OperationState:
    resources = [SyncOperationResource(kind="Deployment", name="web")] if selective else []
    return OperationState(
        operation=Operation(
            sync=SyncOperation(revision="r9", dry_run=dry_run, resources=resources),
            initiated_by=OperationInitiator(username="alice"),
        ),
        phase=phase,
        sync_result=SyncOperationResult(revision="r9", source=SOURCE),
        started_at="2026-11-29T11:59:00Z",
    )


RECORDS = [
    ("succeeded-full-sync", finished(), True),
    ("failed", finished(OperationPhase.FAILED), False),
    ("error", finished(OperationPhase.ERROR), False),
    ("dry-run", finished(dry_run=True), False),
    ("selective", finished(selective=True), False),
]


@pytest.mark.parametrize(
    ("state", "recorded"), [c[1:] for c in RECORDS], ids=[c[0] for c in RECORDS]
)
def test_which_operations_are_recorded(state: OperationState, recorded: bool) -> None:
    assert records_history(state) is recorded
    assert len(append_history([], state, NOW, 10)) == int(recorded)


def entries(*ids: int) -> list[RevisionHistory]:
    return [RevisionHistory(id=i, revision=f"r{i}", source=SOURCE) for i in ids]


def test_appended_entry_carries_revision_source_times_and_initiator() -> None:
    (entry,) = append_history([], finished(), NOW, 10)
    assert (entry.id, entry.revision, entry.source) == (0, "r9", SOURCE)
    assert (entry.deployed_at, entry.deploy_started_at) == (
        "2026-11-29T12:00:00Z",
        "2026-11-29T11:59:00Z",
    )
    assert entry.initiated_by == OperationInitiator(username="alice")


def test_ids_grow_from_the_last_entry() -> None:
    assert next_history_id([]) == 0
    assert next_history_id(entries(3, 7)) == 8
    assert append_history(entries(3, 7), finished(), NOW, 10)[-1].id == 8


def test_only_the_newest_limit_entries_are_kept() -> None:
    history = append_history(entries(*range(10)), finished(), NOW, 10)
    assert [h.id for h in history] == list(range(1, 11))
    assert [h.id for h in trim_history(entries(1, 2, 3), 2)] == [2, 3]
    assert trim_history(entries(1, 2), 0) == []


def app(automated: bool = False) -> Application:
    policy = {"automated": {"prune": True}} if automated else {}
    application = Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop"},
            "spec": {
                "source": {"repoURL": SOURCE.repo_url, "path": "deploy"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
                "syncPolicy": {**policy, "syncOptions": ["CreateNamespace=true"]},
            },
        }
    )
    application.status.history = entries(4, 5)
    return application


def test_rollback_syncs_the_entry_with_the_apply_strategy() -> None:
    op = rollback_operation(app(), 4, username="bob", prune=True)
    assert op.sync is not None
    assert (op.sync.revision, op.sync.source, op.sync.prune) == ("r4", SOURCE, True)
    assert op.sync.strategy is SyncStrategy.APPLY
    assert op.sync.sync_options == ["CreateNamespace=true"]
    assert op.initiated_by == OperationInitiator(username="bob")


REFUSALS = [
    (
        "auto-sync-on",
        app(automated=True),
        4,
        "rollback cannot be initiated when auto-sync is enabled",
    ),
    (
        "unknown-id",
        app(),
        9,
        "application shop does not have deployment with id 9 (known ids: 4, 5)",
    ),
]


@pytest.mark.parametrize(
    ("application", "history_id", "message"),
    [c[1:] for c in REFUSALS],
    ids=[c[0] for c in REFUSALS],
)
def test_rollback_refusals(application: Application, history_id: int, message: str) -> None:
    with pytest.raises(RollbackError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rollback_operation(application, history_id)


def test_rollback_of_a_deleting_app_is_refused() -> None:
    deleting = app()
    deleting.metadata.deletion_timestamp = "2026-11-29T11:00:00Z"
    with pytest.raises(RollbackError, match="being deleted"):
        rollback_operation(deleting, 4)


def test_rollback_to_an_entry_without_source_is_refused() -> None:
    application = app()
    application.status.history = [RevisionHistory(id=1, revision="r1")]
    with pytest.raises(RollbackError, match="records no source; sync to revision r1 instead"):
        rollback_operation(application, 1)
