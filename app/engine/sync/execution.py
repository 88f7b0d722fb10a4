"""Running the tasks of one wave (or the SyncFail hooks): which actions, in which batches.

In Argo CD's order: remove the hook finalizer from existing pending hooks; prune (a prune
that only reports PruneSkipped, or an object already gone or being deleted, needs no
action); delete the live objects of BeforeHookCreation hooks and wait for them to go,
leaving the creates for a later step; else apply, one batch per consecutive run of the
same Kind. Prune=confirm holds the wave until the deletion is approved.

One difference from Argo CD: prunes and applies of a wave go out in one step, so a failed
prune does not stop the applies of its wave (the failure still fails the operation).
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.engine.sync.observation import Observation
from app.engine.sync.options import PruneMode
from app.engine.sync.progress import Ledger, running_message
from app.engine.sync.state import Verb
from app.engine.sync.task import SyncTask
from app.model.annotations import HOOK_FINALIZER
from app.model.sync import HookDeletePolicy, OperationPhase, ResultCode

Batch = list[tuple[Verb, int]]


@dataclass
class Run:
    """The batches of a step, and why the rest of the wave must wait (if it must)."""

    batches: list[Batch] = field(default_factory=list)
    waiting: str = ""
    """Non-empty when the wave's applies wait: for prune approval or hook deletion."""

    def add(self, verb: Verb, tasks: Sequence[SyncTask]) -> None:
        if tasks:
            self.batches.append([(verb, t.id) for t in tasks])


@dataclass(frozen=True)
class RunContext:
    """The operation-level facts a run needs."""

    prune: bool
    """The operation's prune flag."""
    dry_run: bool
    approved: bool
    """Prune=confirm deletions have been approved for this operation."""


def _confirmation_message(tasks: Sequence[SyncTask]) -> str:
    first = tasks[0]
    message = (
        f"Waiting for pruning confirmation of {first.api_version}/{first.key.kind}/{first.key.name}"
    )
    if len(tasks) > 1:
        message += f" and {len(tasks) - 1} more resources"
    return (
        f"{message}: set the annotation argocd.argoproj.io/deletion-approved on the "
        "Application to the current time (RFC3339)"
    )


def settle_prune(
    ledger: Ledger, task: SyncTask, context: RunContext, observation: Observation
) -> bool:
    """Settle a prune task without an action if it needs none; True if it needs a delete."""
    observed = observation.of(task.key)
    if not context.prune:
        ledger.set(
            task.id,
            ResultCode.PRUNE_SKIPPED,
            OperationPhase.SUCCEEDED,
            "ignored (requires pruning)",
        )
    elif task.prune_mode is PruneMode.DISABLED:
        ledger.set(
            task.id, ResultCode.PRUNE_SKIPPED, OperationPhase.SUCCEEDED, "ignored (no prune)"
        )
    elif context.dry_run:
        ledger.set(task.id, ResultCode.PRUNED, OperationPhase.SUCCEEDED, "pruned (dry run)")
    elif observed.live is None or observed.deleting:
        ledger.set(task.id, ResultCode.PRUNED, OperationPhase.SUCCEEDED, "pruned")
    else:
        return True
    return False


def run_tasks(
    ledger: Ledger,
    tasks: Sequence[SyncTask],
    observation: Observation,
    context: RunContext,
) -> Run:
    """Decide the actions for `tasks`; prunes that need no action are settled in `ledger`."""
    run = Run()
    pending = [t for t in tasks if t.pending]
    run.add(
        Verb.REMOVE_HOOK_FINALIZER,
        [t for t in pending if t.hook and observation.of(t.key).has_finalizer(HOOK_FINALIZER)],
    )
    prunes = [t for t in pending if t.is_prune]
    deleting = [
        t
        for t in prunes
        if context.prune and not context.dry_run and t.prune_mode is not PruneMode.DISABLED
    ]
    unconfirmed = [t for t in deleting if t.prune_mode is PruneMode.CONFIRM]
    if unconfirmed and not context.approved:
        run.waiting = _confirmation_message(unconfirmed)
        return run
    run.add(Verb.PRUNE, [t for t in prunes if settle_prune(ledger, t, context, observation)])
    recreate = [
        t
        for t in pending
        if t.hook
        and t.has_policy(HookDeletePolicy.BEFORE_HOOK_CREATION)
        and observation.of(t.key).live is not None
    ]
    if recreate:
        run.add(Verb.DELETE_HOOK, [t for t in recreate if not observation.of(t.key).deleting])
        run.waiting = running_message(recreate, pending_deletion=True)
        return run
    group: list[SyncTask] = []
    for task in (t for t in pending if not t.is_prune):
        if group and group[0].key.kind != task.key.kind:
            run.add(Verb.APPLY, group)
            group = []
        group.append(task)
    run.add(Verb.APPLY, group)
    return run
