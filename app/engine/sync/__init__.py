"""The sync engine: what a sync operation does, step by step, with no I/O.

It decides, as Argo CD's gitops-engine does (SEMANTICS §1 to §3, §6, §9):

- planning (`plan_sync`): one task per target and phase, one prune task per extra live
  object, hooks from Argo CD and Helm annotations, sync options at app and resource
  level, and the execution order: phase, wave, kind, name, with Namespaces and CRDs
  moved before their users and prune waves mirrored;
- the step machine, with gitops-engine's three verbs: do the next step (`next_step`,
  followed by `record_results` once the worker has run the step's actions), terminate
  (`terminate`), report state (`operation_state`). Each call advances one step and may
  be repeated safely: a step is persisted with its actions in flight before they run, and
  re-reading it gives the same actions, so a crash repeats work and never skips it.

The worker owns all I/O: it observes the task objects (live object and health) before
each step, runs the actions with the cluster client, and schedules the next message as
`state.next` says (now, at a time, or never). Reasons travel as data: every decision
leaves the message a user will see in `SyncState.message` and in the task results.
"""

from app.engine.sync.actions import (
    Action,
    ActionResult,
    Apply,
    Continue,
    CreateNamespace,
    DeleteHook,
    Done,
    DryRun,
    Next,
    Prune,
    RemoveHookFinalizer,
    Replan,
    Wait,
)
from app.engine.sync.machine import abandon, error_out, next_step, restart, start, unplanned
from app.engine.sync.observation import Observation, Observed, approval_time
from app.engine.sync.options import (
    DeleteMode,
    OptionScopes,
    PruneMode,
    SyncOptions,
    parse_app_options,
    parse_resource_options,
)
from app.engine.sync.recording import record_results
from app.engine.sync.results import operation_state
from app.engine.sync.state import StateError, SyncState
from app.engine.sync.steps import Settings, Step
from app.engine.sync.task import ApplyMode, SyncTask, TaskProgress
from app.engine.sync.tasks import PlanInput, ResourceScope, SyncPlan, plan_sync, project_check
from app.engine.sync.termination import terminate

__all__ = [
    "Action",
    "ActionResult",
    "Apply",
    "ApplyMode",
    "Continue",
    "CreateNamespace",
    "DeleteHook",
    "DeleteMode",
    "Done",
    "DryRun",
    "Next",
    "Observation",
    "Observed",
    "OptionScopes",
    "PlanInput",
    "Prune",
    "PruneMode",
    "RemoveHookFinalizer",
    "Replan",
    "ResourceScope",
    "Settings",
    "StateError",
    "Step",
    "SyncOptions",
    "SyncPlan",
    "SyncState",
    "SyncTask",
    "TaskProgress",
    "Wait",
    "abandon",
    "approval_time",
    "error_out",
    "next_step",
    "operation_state",
    "parse_app_options",
    "parse_resource_options",
    "plan_sync",
    "project_check",
    "record_results",
    "restart",
    "start",
    "terminate",
    "unplanned",
]
