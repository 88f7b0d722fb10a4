"""Sluice's built-in resource actions, for the kinds every cluster runs.

- Deployment, StatefulSet, DaemonSet `restart`: sets the pod template's
  `kubectl.kubernetes.io/restartedAt` annotation to now, as `kubectl rollout restart`
  does, so the controller replaces every pod.
- Deployment, StatefulSet `scale`: sets `spec.replicas` to the `replicas` parameter
  (a whole number from 0 to `MAX_REPLICAS`).
- Deployment `pause` / `resume`: `spec.paused`; the one that does not apply is disabled.
- Argo Rollouts Rollout `restart` (`spec.restartAt` = now), `resume` (clears
  `status.pauseConditions` and `spec.paused`; disabled unless paused) and `abort`
  (`status.abort`; disabled once aborted).
"""

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.engine.actions.types import ActionError, ActionParam, ResourceAction
from app.model.resource import GroupKind, KubeObject

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
MAX_REPLICAS = 10_000

Run = Callable[[KubeObject, Mapping[str, str], str], KubeObject]
"""An action: the live object, its parameters and now (RFC 3339) in; the new object out."""
Enabled = Callable[[KubeObject], bool]


@dataclass(frozen=True, slots=True)
class BuiltinAction:
    action: ResourceAction
    run: Run
    enabled: Enabled = lambda _obj: True


def _dict(obj: dict[str, Any], *path: str) -> dict[str, Any]:
    """The object at `path`, created (or replaced, if not an object) on the way."""
    node = obj
    for key in path:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    return node


def _restart(obj: KubeObject, _params: Mapping[str, str], now: str) -> KubeObject:
    new = copy.deepcopy(obj)
    _dict(new, "spec", "template", "metadata", "annotations")[RESTARTED_AT] = now
    return new


def _scale(obj: KubeObject, params: Mapping[str, str], _now: str) -> KubeObject:
    raw = params.get("replicas", "").strip()
    if not raw.isdigit() or int(raw) > MAX_REPLICAS:
        raise ActionError(
            f"scale: parameter replicas must be a whole number from 0 to {MAX_REPLICAS}, "
            f"got {raw[:40]!r}"
        )
    new = copy.deepcopy(obj)
    _dict(new, "spec")["replicas"] = int(raw)
    return new


def _set_paused(paused: bool) -> Run:
    def run(obj: KubeObject, _params: Mapping[str, str], _now: str) -> KubeObject:
        new = copy.deepcopy(obj)
        _dict(new, "spec")["paused"] = paused
        return new

    return run


def _paused(obj: KubeObject) -> bool:
    spec = obj.get("spec")
    return isinstance(spec, dict) and spec.get("paused") is True


def _rollout_paused(obj: KubeObject) -> bool:
    status = obj.get("status")
    return _paused(obj) or (isinstance(status, dict) and bool(status.get("pauseConditions")))


def _rollout_aborted(obj: KubeObject) -> bool:
    status = obj.get("status")
    return isinstance(status, dict) and status.get("abort") is True


def _rollout_restart(obj: KubeObject, _params: Mapping[str, str], now: str) -> KubeObject:
    new = copy.deepcopy(obj)
    _dict(new, "spec")["restartAt"] = now
    return new


def _rollout_resume(obj: KubeObject, _params: Mapping[str, str], _now: str) -> KubeObject:
    new = copy.deepcopy(obj)
    _dict(new, "spec")["paused"] = False
    _dict(new, "status").pop("pauseConditions", None)
    return new


def _rollout_abort(obj: KubeObject, _params: Mapping[str, str], _now: str) -> KubeObject:
    new = copy.deepcopy(obj)
    _dict(new, "status")["abort"] = True
    return new


RESTART = BuiltinAction(ResourceAction("restart", icon_class="fa fa-fw fa-redo"), _restart)
SCALE = BuiltinAction(
    ResourceAction(
        "scale",
        icon_class="fa fa-fw fa-plus-circle",
        params=(ActionParam("replicas", type="number"),),
    ),
    _scale,
)

BUILTIN_ACTIONS: dict[GroupKind, tuple[BuiltinAction, ...]] = {
    GroupKind("apps", "Deployment"): (
        RESTART,
        SCALE,
        BuiltinAction(
            ResourceAction("pause", icon_class="fa fa-fw fa-pause-circle"),
            _set_paused(True),
            lambda obj: not _paused(obj),
        ),
        BuiltinAction(
            ResourceAction("resume", icon_class="fa fa-fw fa-play-circle"),
            _set_paused(False),
            _paused,
        ),
    ),
    GroupKind("apps", "StatefulSet"): (RESTART, SCALE),
    GroupKind("apps", "DaemonSet"): (RESTART,),
    GroupKind("argoproj.io", "Rollout"): (
        BuiltinAction(ResourceAction("restart", icon_class="fa fa-fw fa-redo"), _rollout_restart),
        BuiltinAction(
            ResourceAction("resume", icon_class="fa fa-fw fa-play-circle"),
            _rollout_resume,
            _rollout_paused,
        ),
        BuiltinAction(
            ResourceAction("abort", icon_class="fa fa-fw fa-times-circle"),
            _rollout_abort,
            lambda obj: not _rollout_aborted(obj),
        ),
    ),
}
"""Kinds with built-in actions, in the order they are listed."""
