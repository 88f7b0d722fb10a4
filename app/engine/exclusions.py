"""Which kinds Sluice manages at all: `resource.exclusions` and `resource.inclusions`.

Argo CD's settings can take whole groups and kinds (on some clusters) out of its hands:
an excluded kind is never watched, compared, applied or pruned, as if the cluster did not
serve it. A kind is excluded when an exclusion entry covers it, or when inclusions are
set and none covers it. Each entry lists group, kind and cluster (server URL) globs;
an empty list means "any". Compare drops excluded targets with a warning and leaves
excluded live objects out of the app; a sync plans nothing for either.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.engine import project as proj
from app.model.resource import KubeObject, split_api_version


@dataclass(frozen=True, slots=True)
class ResourceExclusion:
    """One `resource.exclusions` (or `resource.inclusions`) entry."""

    api_groups: tuple[str, ...] = ("*",)
    """Group globs (`""` is the core group); default every group."""
    kinds: tuple[str, ...] = ("*",)
    """Kind globs; default every kind."""
    clusters: tuple[str, ...] = ("*",)
    """Cluster server URL globs; default every cluster."""

    def covers(self, group: str, kind: str, cluster: str) -> bool:
        return (
            any(proj.glob_match(g, group, negation=False) for g in self.api_groups)
            and any(proj.glob_match(k, kind, negation=False) for k in self.kinds)
            and any(proj.glob_match(c, cluster, negation=False) for c in self.clusters)
        )


def is_excluded(
    exclusions: Sequence[ResourceExclusion],
    inclusions: Sequence[ResourceExclusion],
    group: str,
    kind: str,
    cluster: str,
) -> bool:
    """Objects of this kind on this cluster are not managed (Argo CD's IsExcludedResource)."""
    if any(e.covers(group, kind, cluster) for e in exclusions):
        return True
    return bool(inclusions) and not any(i.covers(group, kind, cluster) for i in inclusions)


def managed_kinds(
    live: Iterable[KubeObject],
    exclusions: Sequence[ResourceExclusion],
    inclusions: Sequence[ResourceExclusion],
    cluster: str,
) -> list[KubeObject]:
    """The objects whose kind is not excluded (all of them, at no cost, when none is)."""
    if not exclusions and not inclusions:
        return list(live)
    verdicts: dict[tuple[str, str], bool] = {}
    kept = []
    for obj in live:
        group, _ = split_api_version(str(obj.get("apiVersion", "")))
        kind = (group, str(obj.get("kind", "")))
        excluded = verdicts.get(kind)
        if excluded is None:
            excluded = verdicts[kind] = is_excluded(exclusions, inclusions, *kind, cluster)
        if not excluded:
            kept.append(obj)
    return kept
