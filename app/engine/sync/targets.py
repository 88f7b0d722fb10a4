"""The objects a sync applies: the rendered manifests as the compare engine prepares them.

A sync must apply exactly what the comparison judged, so each manifest is placed (the
destination namespace for a namespaced kind without one, no namespace for a
cluster-scoped kind) and marked with the app's tracking metadata, and a key that appears
more than once keeps its last occurrence, as `app.engine.compare` does. A manifest of a
kind the system settings exclude (`app.engine.exclusions`) is not the sync's: compare
dropped it with an ExcludedResourceWarning, and a sync never applies it.
"""

from collections.abc import Callable, Iterable, Mapping

from app.engine.tracking import TrackingMethod, place_target, set_tracking
from app.model.resource import KubeObject, ResourceKey


def prepare_targets(
    manifests: Iterable[KubeObject],
    *,
    app: str,
    namespace: str,
    tracking: TrackingMethod,
    scopes: Mapping[tuple[str, str], bool],
    excluded: Callable[[str, str], bool] = lambda _group, _kind: False,
) -> list[KubeObject]:
    """The manifests placed in `namespace` (the destination's) and tracked as `app`'s.

    `scopes` maps (group, kind) to namespaced-or-not from the cluster's discovery;
    `excluded(group, kind)` says whether the settings exclude a kind on this cluster.
    """
    prepared: dict[ResourceKey, KubeObject] = {}
    for manifest in manifests:
        placed = place_target(manifest, namespace, scopes)
        key = ResourceKey.of(placed)
        if excluded(key.group, key.kind):
            continue
        prepared.pop(key, None)
        prepared[key] = set_tracking(placed, app=app, method=tracking, default_namespace=namespace)
    return list(prepared.values())
