"""The normalization pipeline (see the package docstring for the order and the reasons)."""

from dataclasses import dataclass

from app.engine.ignore import IgnoreRules
from app.engine.normalize.basics import merge_string_data, strip_server_fields
from app.engine.normalize.known_types import canonicalize
from app.engine.tracking import TrackingMethod, normalize_tracking
from app.model.resource import KubeObject, ResourceKey


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


def normalize_one(
    obj: KubeObject,
    key: ResourceKey,
    rules: IgnoreRules,
    options: NormalizeOptions,
) -> Normalized:
    """Steps 3-5 for one object: basics, ignoreDifferences, known types."""
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
    problems: tuple[str, ...] = ()
    if target is not None:
        normalized = normalize_one(target, key, rules, options)
        target, problems = normalized.obj, normalized.problems
    if live is not None:
        normalized = normalize_one(live, key, rules, options)
        live, problems = normalized.obj, problems + normalized.problems
    return NormalizedPair(target, live, problems)
