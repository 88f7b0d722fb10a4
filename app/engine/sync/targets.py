"""The objects a sync applies: the rendered manifests as the compare engine prepares them.

A sync must apply exactly what the comparison judged, so each manifest is placed (the
destination namespace for a namespaced kind without one, no namespace for a
cluster-scoped kind) and marked with the app's tracking metadata, and a key that appears
more than once keeps its last occurrence, as `app.engine.compare` does. A manifest of a
kind the system settings exclude (`app.engine.exclusions`) is not the sync's: compare
dropped it with an ExcludedResourceWarning, and a sync never applies it; nor does an
app's deletion create an excluded PreDelete/PostDelete hook (`split_targets` tells the
caller which manifests were left out, so it can say so).
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from app.engine.tracking import TrackingMethod, place_target, set_tracking
from app.model.resource import KubeObject, ResourceKey


@dataclass(frozen=True, slots=True)
class SplitTargets:
    """The manifests a sync (or a deletion) acts on, and those the settings exclude."""

    targets: list[KubeObject]
    """Placed and tracked; a repeated key keeps its last occurrence."""
    excluded: list[KubeObject]
    """Placed, not tracked: manifests of a kind the settings exclude on this cluster."""


def split_targets(
    manifests: Iterable[KubeObject],
    *,
    app: str,
    namespace: str,
    tracking: TrackingMethod,
    scopes: Mapping[tuple[str, str], bool],
    excluded: Callable[[str, str], bool],
) -> SplitTargets:
    """The manifests placed in `namespace` (the destination's) and tracked as `app`'s,
    apart from those of a kind `excluded(group, kind)` says the settings exclude.

    `scopes` maps (group, kind) to namespaced-or-not from the cluster's discovery.
    """
    prepared: dict[ResourceKey, KubeObject] = {}
    left_out: list[KubeObject] = []
    for manifest in manifests:
        placed = place_target(manifest, namespace, scopes)
        key = ResourceKey.of(placed)
        if excluded(key.group, key.kind):
            left_out.append(placed)
            continue
        prepared.pop(key, None)
        prepared[key] = set_tracking(placed, app=app, method=tracking, default_namespace=namespace)
    return SplitTargets(list(prepared.values()), left_out)


def prepare_targets(
    manifests: Iterable[KubeObject],
    *,
    app: str,
    namespace: str,
    tracking: TrackingMethod,
    scopes: Mapping[tuple[str, str], bool],
    excluded: Callable[[str, str], bool] = lambda _group, _kind: False,
) -> list[KubeObject]:
    """The targets of `split_targets` (excluded kinds dropped)."""
    return split_targets(
        manifests,
        app=app,
        namespace=namespace,
        tracking=tracking,
        scopes=scopes,
        excluded=excluded,
    ).targets
