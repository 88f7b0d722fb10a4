"""What a step asks the worker to do, what it reports back, and what follows.

A `Step` holds ordered batches of actions: the actions of one batch run concurrently, the
batches one after another (a batch per consecutive run of the same Kind, as Argo CD
finishes a Kind before it starts the next). Every action is idempotent when the worker
follows these rules: apply is declarative; a delete, prune or finalizer removal of an
object that is already gone counts as success (NotFound is `ok`); hook names are
deterministic. So a step re-run after a crash repeats actions, and never skips one.

After running a step's actions, the worker reports one `ActionResult` per action to
`record_results` and then follows `state.next` of the state it returns:
- `Continue`: publish the next step now;
- `Wait`: publish it at `until`; when `wakeable`, changes to the app's objects may wake
  the worker earlier (the schedule is the fallback);
- `Done`: the operation has finished (read the final OperationState with
  `operation_state`);
- `Replan`: a retry is due; build a new plan (re-resolving the revision first if
  `refresh_revision`) and call `restart`.
"""

from dataclasses import dataclass
from datetime import datetime

from app.engine.sync.task import ApplyMode
from app.model.annotations import HOOK_FINALIZER
from app.model.resource import KubeObject, ResourceKey
from app.model.sync import OperationPhase, Propagation

FIELD_MANAGER = "sluice"
"""The field manager of server-side applies (Argo CD's is `argocd-controller`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionBase:
    """What every action names: its id (for the result), its task, and the object."""

    id: str
    task_id: int
    key: ResourceKey
    api_version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DryRun(ActionBase):
    """Validate an object without storing it: a client-side dry run, never server-side apply."""

    object: KubeObject
    replace: bool
    validate: bool
    as_new: bool = False
    """The object is deleted before it is created (a BeforeHookCreation hook): validate it
    as a creation, not as an update of the live one (whose immutable fields it may change)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Apply(ActionBase):
    """Create or update the object: apply, replace (create when absent) or server-side apply
    with `field_manager`, forcing conflicts; `force` deletes and recreates on failure."""

    object: KubeObject
    mode: ApplyMode
    force: bool
    validate: bool
    migrate: bool = True
    """ClientSideApplyMigration (`app.engine.sync.csa_migration`)."""
    field_manager: str = FIELD_MANAGER


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateNamespace(ActionBase):
    """Create (or, with managedNamespaceMetadata, server-side apply) the destination namespace."""

    object: KubeObject
    mode: ApplyMode
    field_manager: str = FIELD_MANAGER


@dataclass(frozen=True, slots=True, kw_only=True)
class Prune(ActionBase):
    """Delete an object that is no longer in Git. `uid`, when set, is a delete precondition."""

    propagation: Propagation
    uid: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteHook(ActionBase):
    """Delete a hook's live object (before re-creating it, or by its delete policy)."""

    propagation: Propagation


@dataclass(frozen=True, slots=True, kw_only=True)
class RemoveHookFinalizer(ActionBase):
    """Remove `finalizer` from the live object (re-read and retry on a conflict)."""

    finalizer: str = HOOK_FINALIZER


Action = DryRun | Apply | CreateNamespace | Prune | DeleteHook | RemoveHookFinalizer


@dataclass(frozen=True, slots=True)
class ActionResult:
    """The outcome of one action: `ok`, and the server's message (or the error's)."""

    action_id: str
    ok: bool
    message: str = ""


@dataclass(frozen=True, slots=True)
class Continue:
    """Take the next step now."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class Wait:
    """Take the next step at `until`; earlier only if `wakeable` and the app's objects change."""

    until: datetime
    reason: str
    seconds: float
    """`until` relative to the time of the call that decided it."""
    wakeable: bool = True
    """False for the wave delay and retry backoff: a step asked for before `until` does
    nothing, so that waking the worker early cannot shorten them."""
    after_actions: bool = False
    """True for the wave delay: the `seconds` count from when this step's actions are done
    (Argo CD sleeps after a wave's applies), so the worker times it from there."""


@dataclass(frozen=True, slots=True)
class Done:
    """The operation has finished with this phase and message."""

    phase: OperationPhase
    message: str


@dataclass(frozen=True, slots=True)
class Replan:
    """A retry is due: plan again (re-resolving the revision if asked) and `restart`."""

    refresh_revision: bool
    reason: str = ""


Next = Continue | Wait | Done | Replan
