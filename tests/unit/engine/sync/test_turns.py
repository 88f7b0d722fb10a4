"""What a step message calls for, for the sync worker and the hook worker: one table."""

from dataclasses import replace

import pytest

from app.engine.sync import SyncState, Wait, error_out, start
from app.engine.sync.state import InFlight, Verb
from app.engine.sync.turns import (
    Arrival,
    Move,
    Role,
    Situation,
    arrival,
    touches_hooks,
    turn,
)
from app.model.sync import OperationPhase
from tests.unit.engine.sync.builders import obj, plan
from tests.unit.engine.sync.fake_cluster import T0

RUNNING = start(plan([obj("ConfigMap", "c"), obj("Job", "migrate", hook="PreSync")]), T0)
"""Planned and started: a ConfigMap and a PreSync hook Job."""


def in_flight(verb: Verb, *, hook: bool) -> SyncState:
    (task,) = [t.id for t in RUNNING.tasks if t.hook is hook]
    return replace(RUNNING, step=1, in_flight=(InFlight("1.0", verb, task, 0),))


APPLYING = in_flight(Verb.APPLY, hook=False)
HOOK_CREATING = in_flight(Verb.APPLY, hook=True)
HOOK_DELETING = in_flight(Verb.DELETE_HOOK, hook=True)
HOOK_DRY_RUN = in_flight(Verb.DRY_RUN, hook=True)
ENDED = error_out(RUNNING, "refused", T0)
TERMINATING = replace(RUNNING, phase=OperationPhase.TERMINATING)
WAITING = replace(RUNNING, next=Wait(T0, "delay between sync waves", 2.0, wakeable=False))

C, R, S = Arrival.CURRENT, Arrival.RESUMED, Arrival.STALE
SYNC, HOOKS = Role.SYNC, Role.HOOKS


def test_which_steps_touch_hooks() -> None:
    assert [touches_hooks(s) for s in (APPLYING, HOOK_CREATING, HOOK_DELETING, HOOK_DRY_RUN)] == [
        False,
        True,
        True,
        False,
    ]


CASES = [
    # (role, arrival, state, facts, move)
    (SYNC, S, RUNNING, {}, Move.DROP, "sync-stale-drops"),
    (SYNC, S, None, {}, Move.DROP, "sync-stale-of-another-operation-drops"),
    (SYNC, S, WAITING, {}, Move.REARM, "sync-stale-rearms-the-timer-a-stale-one-replaced"),
    (HOOKS, S, WAITING, {}, Move.DROP, "hooks-stale-drops-while-waiting"),
    (HOOKS, S, HOOK_CREATING, {}, Move.DROP, "hooks-stale-drops"),
    (SYNC, C, None, {}, Move.PLAN, "sync-plans-an-unplanned-operation"),
    (SYNC, C, None, {"app_exists": False}, Move.ABANDON, "sync-abandons-unplanned-when-app-gone"),
    (SYNC, R, None, {}, Move.DROP, "sync-plans-only-on-the-current-step"),
    (HOOKS, C, None, {}, Move.DROP, "hooks-never-plan"),
    (SYNC, C, None, {"unreadable": True}, Move.END_UNREADABLE, "sync-ends-an-unreadable-state"),
    (SYNC, R, None, {"unreadable": True}, Move.END_UNREADABLE, "sync-ends-it-when-resumed-too"),
    (HOOKS, C, None, {"unreadable": True}, Move.DROP, "hooks-leave-unreadable-to-sync"),
    (SYNC, C, APPLYING, {}, Move.PERFORM, "sync-performs-a-plain-step-in-flight"),
    (SYNC, R, APPLYING, {}, Move.PERFORM, "sync-performs-it-when-resumed"),
    (SYNC, C, HOOK_DRY_RUN, {}, Move.PERFORM, "sync-performs-a-hook-dry-run"),
    (SYNC, C, HOOK_CREATING, {}, Move.HAND_OFF, "sync-hands-over-a-hook-step"),
    (SYNC, R, HOOK_DELETING, {}, Move.HAND_OFF, "sync-hands-it-over-again-when-resumed"),
    (
        SYNC,
        C,
        HOOK_CREATING,
        {"app_exists": False},
        Move.HAND_OFF,
        "sync-hands-over-a-hook-step-even-when-app-gone",
    ),
    (SYNC, C, APPLYING, {"app_exists": False}, Move.ABANDON, "sync-abandons-in-flight-app-gone"),
    (HOOKS, C, HOOK_CREATING, {}, Move.PERFORM, "hooks-perform-the-step-handed-over"),
    (HOOKS, R, HOOK_CREATING, {}, Move.DROP, "hooks-drop-a-later-step-in-flight"),
    (
        HOOKS,
        C,
        HOOK_CREATING,
        {"app_exists": False},
        Move.ABANDON,
        "hooks-abandon-when-app-gone",
    ),
    (SYNC, C, ENDED, {}, Move.FINISH, "sync-finishes-an-ended-operation"),
    (HOOKS, R, ENDED, {}, Move.FINISH, "hooks-finish-an-ended-operation"),
    (SYNC, C, ENDED, {"finalized": True}, Move.DROP, "sync-drops-once-followed-up"),
    (HOOKS, C, ENDED, {"finalized": True}, Move.DROP, "hooks-drop-once-followed-up"),
    (SYNC, R, RUNNING, {}, Move.FOLLOW, "sync-repeats-the-follow-up-when-resumed"),
    (HOOKS, R, RUNNING, {}, Move.FOLLOW, "hooks-repeat-the-follow-up-when-resumed"),
    (SYNC, R, RUNNING, {"terminate": True}, Move.TERMINATE, "sync-terminates-not-follows"),
    (SYNC, R, TERMINATING, {"terminate": True}, Move.STEP, "sync-ends-a-termination-resumed"),
    (HOOKS, R, RUNNING, {"terminate": True}, Move.FOLLOW, "hooks-follow-and-leave-termination"),
    (SYNC, C, RUNNING, {}, Move.STEP, "sync-takes-the-next-step"),
    (SYNC, C, RUNNING, {"terminate": True}, Move.TERMINATE, "sync-terminates"),
    (SYNC, C, TERMINATING, {"terminate": True}, Move.STEP, "sync-steps-a-termination-to-its-end"),
    (SYNC, C, ENDED, {"terminate": True}, Move.FINISH, "sync-finishes-an-ended-one-asked-to-stop"),
    (SYNC, C, RUNNING, {"app_exists": False}, Move.ABANDON, "sync-abandons-when-app-gone"),
    (HOOKS, C, RUNNING, {}, Move.DROP, "hooks-never-step"),
    (HOOKS, C, RUNNING, {"app_exists": False}, Move.DROP, "hooks-leave-a-gone-app-to-sync"),
]


@pytest.mark.parametrize(
    ("role", "came", "state", "facts", "move"), [c[:5] for c in CASES], ids=[c[5] for c in CASES]
)
def test_what_a_step_message_calls_for(
    role: Role, came: Arrival, state: SyncState | None, facts: dict[str, bool], move: Move
) -> None:
    decided = turn(Situation(role, came, state, **facts))
    assert decided.move is move
    assert decided.reason


@pytest.mark.parametrize(
    ("operation", "step", "expected"),
    [
        pytest.param("op-2", 7, Arrival.CURRENT, id="the-stored-step-is-taken"),
        pytest.param("op-2", 4, Arrival.RESUMED, id="the-storing-message-resumes"),
        pytest.param("op-2", 6, Arrival.RESUMED, id="a-step-the-storing-handling-passed"),
        pytest.param("op-2", 3, Arrival.STALE, id="a-step-before-the-storing-one-is-stale"),
        pytest.param("op-2", 8, Arrival.STALE, id="a-future-step-is-stale"),
        pytest.param("op-1", 7, Arrival.STALE, id="another-operation-is-stale"),
    ],
)
def test_a_step_message_acts_only_on_the_stored_step_or_as_the_one_that_stored_it(
    operation: str, step: int, expected: Arrival
) -> None:
    """Step 6 is a wake-up published while the handling of step 4 took steps 4 to 7: when
    the message of 4 is redelivered (its handler failed after storing 7, a step due at
    once) it coalesces with that wake-up, and only the wake-up arrives."""
    assert arrival(operation, step, stored="op-2", stored_step=7, origin=4) is expected


@pytest.mark.parametrize(
    ("operation", "step", "expected"),
    [
        pytest.param("op-2", 9, Arrival.CURRENT, id="a-later-step-plans-it"),
        pytest.param("op-2", 3, Arrival.CURRENT, id="an-earlier-step-plans-it"),
        pytest.param("op-1", 7, Arrival.STALE, id="another-operation-is-stale"),
    ],
)
def test_any_message_of_an_operation_restored_and_not_planned_yet_is_current(
    operation: str, step: int, expected: Arrival
) -> None:
    """Restored at the step of an old message, while a timer of a later step was armed."""
    found = arrival(operation, step, stored="op-2", stored_step=7, origin=-1, restored=True)
    assert found is expected
