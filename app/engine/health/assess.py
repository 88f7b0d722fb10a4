"""The health of one live object: the order in which Argo CD decides it (SEMANTICS §5).

1. `metadata.deletionTimestamp` set, and no hook finalizer → Progressing
   "Pending deletion" (a hook keeps its finalizer until Sluice has read its result, so a
   deleted hook is still judged on how it ended);
2. a custom Lua check for the kind (configured, then the resource_customizations tree);
3. the built-in check for the kind;
4. else None: the kind has no health (ConfigMap, Secret, most custom resources).

A built-in check that meets a field of the wrong type answers Unknown, naming the field.
"""

from app.engine.health.builtin import builtin_check
from app.engine.health.customizations import HealthCustomizations
from app.model.annotations import HOOK_FINALIZER
from app.model.errors import SpecError
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import GroupKind, KubeObject, metadata, split_api_version

PENDING_DELETION = HealthStatus(HealthStatusCode.PROGRESSING, "Pending deletion")


def pending_deletion(obj: KubeObject) -> bool:
    """Being deleted, and not a hook Sluice still holds with its finalizer."""
    meta = metadata(obj)
    finalizers = meta.get("finalizers")
    held = isinstance(finalizers, list) and HOOK_FINALIZER in finalizers
    return bool(meta.get("deletionTimestamp")) and not held


def group_kind(obj: KubeObject) -> GroupKind:
    group, _ = split_api_version(str(obj.get("apiVersion", "")))
    return GroupKind(group, str(obj.get("kind", "")))


def assess(
    obj: KubeObject, *, customizations: HealthCustomizations | None = None
) -> HealthStatus | None:
    """The health of a live object, or None when its kind has no health check.

    `customizations` defaults to the packaged resource_customizations tree; pass
    `HealthCustomizations.from_config(...)` to add configured checks, or
    `HealthCustomizations()` for built-in checks only.
    """
    if pending_deletion(obj):
        return PENDING_DELETION
    kind = group_kind(obj)
    if customizations is None:
        customizations = HealthCustomizations.packaged()
    custom = customizations.lookup(kind)
    if custom is not None:
        return custom(obj)
    builtin = builtin_check(kind)
    if builtin is None:
        return None
    try:
        return builtin(obj)
    except SpecError as e:
        name = metadata(obj).get("name")
        return HealthStatus(
            HealthStatusCode.UNKNOWN,
            f"cannot assess {kind.kind} {name}: {e.field}: {e.problem}",
        )
