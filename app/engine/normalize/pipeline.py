"""The normalization pipeline (see the package docstring for the order and the reasons)."""

from dataclasses import dataclass

from app.engine.merge import FieldSet, PatchError, fields_owned_by
from app.engine.normalize.basics import merge_string_data, strip_server_fields
from app.engine.normalize.ignore import IgnoreRules
from app.engine.normalize.known_types import canonicalize
from app.engine.tracking import TrackingMethod, normalize_tracking
from app.model.resource import KubeObject, ResourceKey, metadata


@dataclass(frozen=True, slots=True)
class NormalizeOptions:
    """How objects are normalized before they are compared."""

    tracking: TrackingMethod = TrackingMethod.ANNOTATION
    """The system's tracking method (default annotation)."""
    ignore_status: bool = True
    """Leave `/status` out of every comparison (Argo CD v3 default: all kinds)."""
    jq_deadline: float = 1.0
    """Seconds one jqPathExpressions evaluation may take (default 1)."""


@dataclass(frozen=True, slots=True)
class Normalized:
    """One object normalized, with the problems met (a failing jq expression...)."""

    obj: KubeObject
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NormalizedPair:
    """A target and its live object normalized for comparison."""

    target: KubeObject | None
    live: KubeObject | None
    problems: tuple[str, ...] = ()
    owned: FieldSet | None = None
    """Fields owned by the rules' managedFieldsManagers (apply to orig/predicted too)."""


def owned_fields(
    live: KubeObject | None, key: ResourceKey, rules: IgnoreRules
) -> tuple[FieldSet | None, tuple[str, ...]]:
    """Step 2: the live fields owned by the matching rules' managedFieldsManagers."""
    managers = rules.managers(key)
    if not managers or live is None:
        return None, ()
    try:
        owned = fields_owned_by(metadata(live).get("managedFields"), managers)
    except PatchError as e:
        return None, (f"managedFieldsManagers {', '.join(managers)}: {e}",)
    return (owned or None), ()


def normalize_one(
    obj: KubeObject,
    key: ResourceKey,
    rules: IgnoreRules,
    options: NormalizeOptions,
    owned: FieldSet | None = None,
) -> Normalized:
    """Steps 2-5 for one object: owned fields, basics, ignoreDifferences, known types."""
    if owned is not None:
        obj = owned.remove_from(obj)
    out = merge_string_data(strip_server_fields(obj, ignore_status=options.ignore_status))
    ignored = rules.apply(out, key, options.jq_deadline)
    return Normalized(canonicalize(ignored.obj), ignored.problems)


def normalize_pair(
    target: KubeObject | None,
    live: KubeObject | None,
    key: ResourceKey,
    rules: IgnoreRules,
    options: NormalizeOptions,
) -> NormalizedPair:
    """Both sides of one resource through every step, in order."""
    if target is not None:
        target = normalize_tracking(target, live, options.tracking)
    owned, problems = owned_fields(live, key, rules)
    if target is not None:
        normalized = normalize_one(target, key, rules, options, owned)
        target, problems = normalized.obj, problems + normalized.problems
    if live is not None:
        normalized = normalize_one(live, key, rules, options, owned)
        live, problems = normalized.obj, problems + normalized.problems
    return NormalizedPair(target, live, problems, owned)
