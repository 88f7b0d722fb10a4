"""Resource URLs: `/api/v1[/namespaces/ns]/res[/name[/sub]]` and the `/apis/g/v` equivalent.

Parsed the way the real API server's RequestInfoFactory does: `namespaces/x/status` and
`namespaces/x/finalize` address the Namespace itself, anything else after
`namespaces/x/` is a resource inside namespace x; the legacy `/watch/` prefix is
accepted.
"""

from dataclasses import dataclass

_NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})


@dataclass(frozen=True, slots=True)
class Target:
    """What a resource URL addresses."""

    group: str
    version: str
    resource: str
    namespace: str | None
    """The namespace in the URL; None for cluster-scoped paths and cross-namespace lists."""
    name: str = ""
    subresource: str = ""
    watch: bool = False
    """The URL used the legacy `/watch/` prefix."""


def group_version(path: str) -> tuple[str, str, list[str]] | None:
    """(group, version, remaining segments) of an /api or /apis path, or None."""
    parts = [p for p in path.split("/") if p]
    if len(parts) >= 2 and parts[0] == "api":
        return "", parts[1], parts[2:]
    if len(parts) >= 3 and parts[0] == "apis":
        return parts[1], parts[2], parts[3:]
    return None


def parse(path: str) -> Target | None:
    """The target of a resource path, or None if `path` is not one (discovery, unknown)."""
    split = group_version(path)
    if split is None:
        return None
    group, version, parts = split
    watch = bool(parts) and parts[0] == "watch"
    if watch:
        parts = parts[1:]
    if not parts:
        return None
    namespace: str | None = None
    if parts[0] == "namespaces" and len(parts) > 2 and parts[2] not in _NAMESPACE_SUBRESOURCES:
        namespace = parts[1]
        parts = parts[2:]
    if len(parts) > 3:
        return None
    return Target(
        group=group,
        version=version,
        resource=parts[0],
        namespace=namespace,
        name=parts[1] if len(parts) > 1 else "",
        subresource=parts[2] if len(parts) > 2 else "",
        watch=watch,
    )
