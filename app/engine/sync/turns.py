"""What a step message calls for: one decision for the sync worker and the hook worker.

gitops-engine's `Sync()` first looks at where the operation stands (not started, tasks
running, terminating, done) and only then acts. Sluice's two step workers take the same
look here, from the operation as stored, before anything acts; they differ only in their
role: the sync worker plans and steps, the hook worker performs the steps that create,
delete or release hooks (a dry run of a hook touches nothing and stays with the sync
worker).

First, how the message arrived. Step messages name an operation and a step; the store's
counter says which step is next (`OperationStore.advance` moves it by one per persisted
state), and each stored state records the step of the message whose handling stored it
(`origin`):

- CURRENT: the message names the stored step: take it.
- RESUMED: the message is the one whose handling stored the current state, delivered
  again: its handler died (or a publish failed) after persisting, perhaps before acting or
  following on. What the state still owes is done again: actions in flight (idempotent),
  the follow-up (the next step, a timer, the finish: idempotent too). A message naming a
  step that handling passed through (between `origin` and the stored step: a wake-up the
  watcher published while it ran) is RESUMED too: step messages of one app coalesce, the
  highest step winning, so when the storing message is redelivered (its handler failed
  reading the cluster after storing a step due at once) beside such a wake-up, the
  wake-up is what arrives, and were it STALE nothing would take the operation further.
- STALE: another operation, or a step whose state has been taken further since.

An operation restored from the Application after Redis lost it (`restored`) and not
planned again yet stands at the step of the message that restored it, which may be
behind the operation as it was lost (a redelivered message, while a timer of a later
step was already armed): every message of that operation is CURRENT for it, so the
first to come plans it, whichever step it names. Were the later ones STALE, they would
be dropped, and the restoring message may never reach the sync worker (step messages
of one app coalesce, the highest step winning), leaving the operation Running for good.

A timer replaces the app's pending timer of its purpose (`app.bus.schedules`), so a worker
that follows a state late (its step taken further meanwhile by the other worker, woken by
a change) can replace the newer state's timer with its own stale one, which then fires
and is dropped: nothing would take the operation further. So a STALE message of the same
operation, reaching the sync worker (where timers fire) while the stored state waits on a
timer, re-arms that timer: the stored state's follow-up is done again.

Then `turn` decides, in this order:

    where the operation stands          sync worker              hook worker
    STALE, the stored state waits       re-arm its timer         drop
    the message is STALE                drop                     drop
    not planned yet                     plan (CURRENT only;      drop: the sync worker's
                                        app gone: abandon)
    its stored state cannot be read     end it in Error          drop: the sync worker's
    actions in flight                   hooks among them: hand   perform (CURRENT only;
                                        over; else perform (app  app gone: abandon)
                                        gone: abandon)
    ended, follow-up not done           finish                   finish
    ended and followed up               drop                     drop
    the message RESUMED                 follow again (unless     follow again
                                        termination was asked)
    its Application is gone             abandon                  drop
    termination asked, still Running    terminate                drop: not in flight
    otherwise                           take the next step       drop: not in flight

Every turn carries its reason, for the log.
"""

import enum
from dataclasses import dataclass

from app.engine.sync.actions import Wait
from app.engine.sync.state import SyncState, Verb
from app.model.sync import OperationPhase


class Arrival(enum.Enum):
    CURRENT = "current"
    RESUMED = "resumed"
    STALE = "stale"


def arrival(
    operation: str,
    step: int,
    *,
    stored: str,
    stored_step: int,
    origin: int,
    restored: bool = False,
) -> Arrival:
    """How a message for (`operation`, `step`) relates to the stored operation `stored`,
    which stands at `stored_step` and was stored handling the message of step `origin`
    (taking the steps from `origin` to `stored_step` in that one handling);
    `restored`: it was restored from the Application and is not planned again yet."""
    if stored != operation:
        return Arrival.STALE
    if step == stored_step or restored:
        return Arrival.CURRENT
    if origin <= step < stored_step:
        return Arrival.RESUMED
    return Arrival.STALE


class Role(enum.Enum):
    SYNC = "sync"
    """Plans, takes each next step, performs the steps without hook actions."""
    HOOKS = "hooks"
    """Performs the steps the sync worker hands over (those with hook actions)."""


class Move(enum.Enum):
    DROP = "drop"
    """Nothing to do for this message."""
    PLAN = "plan"
    """Plan the operation and start it (or end it in Error saying why it cannot run)."""
    END_UNREADABLE = "end-unreadable"
    """End the operation in Error: its stored state cannot be read."""
    HAND_OFF = "hand-off"
    """Give the step, whose actions touch hooks, to the hook worker."""
    PERFORM = "perform"
    """Run the actions in flight, record their results."""
    ABANDON = "abandon"
    """End the operation in Error without retries: its Application is gone."""
    FINISH = "finish"
    """Do the follow-up of the ended operation (history, status, event, refresh)."""
    FOLLOW = "follow"
    """Repeat the follow-up of the stored state (the next step, a timer)."""
    REARM = "rearm"
    """Schedule the stored state's timer again: a stale timer may have replaced it."""
    STEP = "step"
    """Take the next step (held while the project's sync windows block it)."""
    TERMINATE = "terminate"
    """Take the step that stops the running operation."""


@dataclass(frozen=True, slots=True)
class Turn:
    move: Move
    reason: str


@dataclass(frozen=True, slots=True)
class Situation:
    """The operation as the worker found it for one message."""

    role: Role
    arrival: Arrival
    state: SyncState | None
    """The stored engine state; None before the operation is planned, or if unreadable
    (and, for a STALE message, unless the stored operation is the message's)."""
    unreadable: bool = False
    """A stored engine state exists but cannot be read."""
    finalized: bool = False
    """The ended operation's follow-up has been done."""
    app_exists: bool = True
    terminate: bool = False
    """Someone asked to terminate the operation."""


GONE = "the Application no longer exists"


def touches_hooks(state: SyncState) -> bool:
    """The in-flight step creates, deletes or releases a hook: the hook worker's."""
    return any(
        state.task(action.task_id).hook and action.verb is not Verb.DRY_RUN
        for action in state.in_flight
    )


def waits_on_timer(state: SyncState) -> bool:
    """The state is between steps, its next one due at a time (a WAIT or RETRY timer)."""
    return not state.in_flight and not state.completed and isinstance(state.next, Wait)


def turn(found: Situation) -> Turn:
    """What the message calls for (the table in the module docstring)."""
    if found.arrival is Arrival.STALE:
        if found.role is Role.SYNC and found.state is not None and waits_on_timer(found.state):
            return Turn(
                Move.REARM,
                "a stale step of this operation came while it waits on a timer, which the "
                "stale one may have replaced",
            )
        return Turn(Move.DROP, "the message names another operation or a step taken further since")
    sync = found.role is Role.SYNC
    state = found.state
    if state is None:
        return _unplanned(found, sync)
    if state.in_flight:
        return _in_flight(found, state, sync)
    if state.completed:
        return _ended(found)
    return _between_steps(found, state, sync)


def _unplanned(found: Situation, sync: bool) -> Turn:
    if not sync:
        why = "cannot be read" if found.unreadable else "is not planned yet"
        return Turn(Move.DROP, f"the stored sync state {why}: the sync worker's to handle")
    if found.unreadable:
        return Turn(Move.END_UNREADABLE, "the stored sync state cannot be read")
    if found.arrival is not Arrival.CURRENT:
        return Turn(Move.DROP, "the operation is not planned yet and this is not its step")
    if not found.app_exists:
        return Turn(Move.ABANDON, GONE)
    return Turn(Move.PLAN, "the operation is not planned yet")


def _in_flight(found: Situation, state: SyncState, sync: bool) -> Turn:
    if sync and touches_hooks(state):
        return Turn(Move.HAND_OFF, "the step creates, deletes or releases hooks")
    if not sync and found.arrival is not Arrival.CURRENT:
        return Turn(Move.DROP, "a later step is in flight")
    if not found.app_exists:
        return Turn(Move.ABANDON, GONE)
    return Turn(Move.PERFORM, "the step's actions are in flight")


def _ended(found: Situation) -> Turn:
    if found.finalized:
        return Turn(Move.DROP, "the operation ended and its follow-up is done")
    return Turn(Move.FINISH, "the operation ended; its follow-up is not done yet")


def _between_steps(found: Situation, state: SyncState, sync: bool) -> Turn:
    if found.arrival is Arrival.RESUMED and not (sync and found.terminate):
        return Turn(Move.FOLLOW, "the message that stored this state came again")
    if not sync:
        return Turn(Move.DROP, "the step is not in flight")
    if not found.app_exists:
        return Turn(Move.ABANDON, GONE)
    if found.terminate and state.phase is OperationPhase.RUNNING:
        return Turn(Move.TERMINATE, "termination was requested")
    return Turn(Move.STEP, "the next step is due")
