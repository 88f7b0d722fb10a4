"""The auto-sync decision (SEMANTICS §6): after a comparison, start a sync or say why not.

One pure function over the Application and the comparison result, in Argo CD's order:

1. no `syncPolicy.automated`, or `enabled: false` → nothing to do;
2. an operation in progress, or the app being deleted → skip;
3. not OutOfSync → skip;
   the project's sync windows (`app.engine.sync_windows`, evaluated by the caller) block
   automated syncs now → re-check (a `recent` comparison: the decision is what changes,
   not the revision) when a window selecting the app next opens or closes;
   a window that cannot be read → SyncError naming it;
4. prune off and every resource Synced or only requiring pruning → skip;
5. build the operation (resolved revision, prune per policy, the spec's sync options,
   initiated by automation, the spec's retry or `{limit: 5}`);
6. already attempted (same revision, same source spec): a failed attempt is a SyncError
   until the revision or spec changes; with selfHeal off, skip; with selfHeal on, wait out
   the self-heal backoff (re-check later) or sync only the resources not Synced;
7. prune on, allowEmpty off and every resource requiring pruning → SyncError;
8. start the operation.

Every outcome carries the text a user sees. A decision without `sync_error` clears any
SyncError condition the app has, as Argo CD does.

Once the status carrying a decision is stored, `follow_up` says what the compare stage
does about it: start the operation; for a re-check, the refresh to schedule, on the
timer of its cause (self-heal backoff or sync window; one pending per cause and app);
and, for a notable skip or re-check whose reason differs from the last decision's
(`remembered_reason`, kept between comparisons), one `auto-sync-skipped` event, so a
reason is announced once, not on every resync.
"""

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from app.engine.backoff import (
    DEFAULT_AUTOSYNC_RETRY_LIMIT,
    DEFAULT_SELF_HEAL_BACKOFF,
    SelfHealBackoff,
    self_heal_delay,
    self_heal_remaining,
)
from app.engine.sync_windows import SyncWindowVerdict
from app.model import codec
from app.model.app_spec import ApplicationSource, RetryStrategy
from app.model.application import Application
from app.model.operation import (
    Operation,
    OperationInitiator,
    OperationState,
    SyncOperation,
    SyncOperationResource,
)
from app.model.status import ResourceStatus
from app.model.sync import OperationPhase, RefreshLevel, SyncStatusCode
from app.model.timestamps import parse_time


class AutoSyncOutcome(enum.Enum):
    DISABLED = "disabled"
    """Auto-sync is off for this app."""
    SKIPPED = "skipped"
    """Nothing to start now; `reason` says why."""
    SYNC_ERROR = "sync-error"
    """Nothing started; set the SyncError condition to `sync_error`."""
    RECHECK = "recheck"
    """Self-heal is backing off, or a sync window blocks: request a refresh at
    `recheck_level` in `recheck_after` s (`recheck_cause` says which)."""
    START = "start"
    """Start `operation`; record `event`."""


class RecheckCause(enum.Enum):
    """Why a re-check was asked for (each has its own timer)."""

    SELF_HEAL = "self-heal backoff elapsed"
    SYNC_WINDOW = "sync window opened or closed"


@dataclass(frozen=True)
class AutoSyncDecision:
    outcome: AutoSyncOutcome
    reason: str
    """The sentence for logs and events ("Skipping auto-sync: ...")."""
    sync_error: str = ""
    """The SyncError condition message; empty means clear the condition."""
    operation: Operation | None = None
    event: str = ""
    recheck_after: float = 0.0
    recheck_level: RefreshLevel = RefreshLevel.LATEST
    recheck_cause: RecheckCause = RecheckCause.SELF_HEAL
    notable: bool = True
    """Worth telling subscribers: False for the routine skips (nothing to sync, or an
    operation already running), which would otherwise follow every sync as noise, and for
    the self-heal re-checks (their reason counts down)."""


@dataclass(frozen=True)
class ComparedState:
    """What the comparison just found."""

    status: SyncStatusCode
    revision: str
    """The resolved revision compared against (first source's for multi-source apps)."""
    resources: Sequence[ResourceStatus]
    revisions: Sequence[str] = ()
    """Resolved revisions per source, for multi-source apps."""


def _revisions_text(app: Application, compared: ComparedState) -> str:
    revisions = list(compared.revisions) if app.spec.is_multi_source else [compared.revision]
    return "[" + " ".join(revisions) + "]"


def _same_sources(app: Application, state: OperationState) -> bool:
    result = state.sync_result
    if result is None:
        return False

    def encoded(sources: Sequence[ApplicationSource | None]) -> list[object]:
        return [codec.encode(s) if s is not None else None for s in sources]

    if app.spec.is_multi_source:
        return encoded(app.spec.sources) == encoded(result.sources)
    return encoded([app.spec.source]) == encoded([result.source])


def _already_attempted(app: Application, compared: ComparedState) -> OperationState | None:
    """The last operation if it targeted this revision with this source spec."""
    state = app.status.operation_state
    if state is None or state.operation.sync is None or state.sync_result is None:
        return None
    if app.spec.is_multi_source:
        same = list(state.sync_result.revisions) == list(compared.revisions)
    else:
        same = state.sync_result.revision == compared.revision
    return state if same and _same_sources(app, state) else None


def _finished_at(state: OperationState) -> datetime | None:
    if not state.finished_at:
        return None
    try:
        return parse_time(state.finished_at)
    except ValueError:
        return None


def _skip(reason: str, *, notable: bool = True) -> AutoSyncDecision:
    return AutoSyncDecision(
        AutoSyncOutcome.SKIPPED, f"Skipping auto-sync: {reason}", notable=notable
    )


def _windows_block(windows: SyncWindowVerdict, now: datetime) -> AutoSyncDecision:
    """The decision when the project's sync windows do not allow an automated sync now."""
    if windows.problems:
        message = f"Skipping auto-sync: {windows.reason}"
        return AutoSyncDecision(AutoSyncOutcome.SYNC_ERROR, message, sync_error=message)
    if windows.changes_at is None:
        return _skip(windows.reason)
    return AutoSyncDecision(
        AutoSyncOutcome.RECHECK,
        f"Skipping auto-sync: {windows.reason}",
        recheck_after=max((windows.changes_at - now).total_seconds(), 0.0),
        recheck_level=RefreshLevel.RECENT,
        recheck_cause=RecheckCause.SYNC_WINDOW,
    )


def decide_auto_sync(
    app: Application,
    compared: ComparedState,
    now: datetime,
    backoff: SelfHealBackoff = DEFAULT_SELF_HEAL_BACKOFF,
    *,
    windows: SyncWindowVerdict | None = None,
) -> AutoSyncDecision:
    """Whether to start an automated sync now, and the operation to start.

    `windows`: the project's sync windows for an automated sync at `now` (None: the
    project has none selecting the app)."""
    policy = app.spec.sync_policy
    automated = app.spec.automated
    if policy is None or automated is None:
        return AutoSyncDecision(AutoSyncOutcome.DISABLED, "auto-sync is not enabled", notable=False)
    state = app.status.operation_state
    if app.operation is not None or (state is not None and not state.phase.completed):
        return _skip("another operation is in progress", notable=False)
    if app.metadata.deletion_timestamp:
        return _skip("deletion in progress")
    if compared.status is not SyncStatusCode.OUT_OF_SYNC:
        return _skip(f"application status is {compared.status.value}", notable=False)
    if windows is not None and not windows.allowed:
        return _windows_block(windows, now)
    resources = compared.resources
    if not automated.prune and all(
        r.status is SyncStatusCode.SYNCED or r.requires_pruning for r in resources
    ):
        return _skip("need to prune extra resources only but automated prune is disabled")
    revisions = _revisions_text(app, compared)
    sync = SyncOperation(
        revision=compared.revision,
        revisions=list(compared.revisions),
        prune=automated.prune,
        sync_options=list(policy.sync_options),
    )
    attempted = _already_attempted(app, compared)
    if attempted is not None:
        if attempted.phase is not OperationPhase.SUCCEEDED:
            message = f"Failed last sync attempt to {revisions}: {attempted.message}"
            return AutoSyncDecision(
                AutoSyncOutcome.SYNC_ERROR,
                f"Skipping auto-sync: failed previous sync attempt to {revisions}",
                sync_error=message,
            )
        if not automated.self_heal:
            return _skip(f"most recent sync already to {revisions}")
        previous = attempted.operation.sync
        attempts = previous.auto_heal_attempts_count if previous else 0
        remaining = self_heal_remaining(attempts, _finished_at(attempted), now, backoff)
        if remaining > 0:
            delay = self_heal_delay(attempts, backoff)
            return AutoSyncDecision(
                AutoSyncOutcome.RECHECK,
                f"Skipping auto-sync: already attempted sync to {revisions} with timeout "
                f"{delay:g}s (retrying in {remaining:.3g}s)",
                recheck_after=remaining,
                notable=False,
            )
        sync.auto_heal_attempts_count = attempts + 1
        sync.resources = [
            SyncOperationResource(kind=r.kind, name=r.name, group=r.group, namespace=r.namespace)
            for r in resources
            if r.status is not SyncStatusCode.SYNCED
        ]
    if automated.prune and not automated.allow_empty and all(r.requires_pruning for r in resources):
        message = f"Skipping sync attempt to {revisions}: auto-sync will wipe out all resources"
        return AutoSyncDecision(AutoSyncOutcome.SYNC_ERROR, message, sync_error=message)
    target = ", ".join(compared.revisions) if app.spec.is_multi_source else compared.revision
    event = f"Initiated automated sync to '{target}'"
    operation = Operation(
        sync=sync,
        initiated_by=OperationInitiator(automated=True),
        retry=policy.retry or RetryStrategy(limit=DEFAULT_AUTOSYNC_RETRY_LIMIT),
    )
    return AutoSyncDecision(AutoSyncOutcome.START, event, operation=operation, event=event)


REASON_KEPT = 2000
"""How much of a decision's reason is remembered until the next comparison (and compared
with the next decision's: longer reasons differing only past it count as the same)."""


def remembered_reason(reason: str) -> str:
    """The part of `reason` kept until the next comparison."""
    return reason[:REASON_KEPT]


@dataclass(frozen=True, slots=True)
class Recheck:
    """A refresh of the app at `level`, due at `at`, on the timer of `cause`."""

    cause: RecheckCause
    at: datetime
    level: RefreshLevel


@dataclass(frozen=True, slots=True)
class FollowUp:
    """What the compare stage does once the status carrying a decision landed."""

    start: Operation | None = None
    """The operation to start (with the decision's reason)."""
    recheck: Recheck | None = None
    skipped: dict[str, str] | None = None
    """The data of the `auto-sync-skipped` event to emit; None: none is due."""


def follow_up(
    decision: AutoSyncDecision, now: datetime, *, last_reason: str, revisions: Sequence[str]
) -> FollowUp:
    """The follow-up of `decision`, made at `now` after a comparison at `revisions`;
    `last_reason` is the previous decision's reason as remembered (`remembered_reason`)."""
    outcome = decision.outcome
    if outcome is AutoSyncOutcome.START:
        return FollowUp(start=decision.operation)
    recheck = None
    if outcome is AutoSyncOutcome.RECHECK:
        at = now + timedelta(seconds=decision.recheck_after)
        recheck = Recheck(decision.recheck_cause, at, decision.recheck_level)
    skipped = None
    if (
        outcome in (AutoSyncOutcome.SKIPPED, AutoSyncOutcome.RECHECK)
        and decision.notable
        and remembered_reason(decision.reason) != last_reason
    ):
        skipped = {"reason": decision.reason, "revision": ", ".join(revisions)}
    return FollowUp(recheck=recheck, skipped=skipped)
