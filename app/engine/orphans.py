"""Orphaned resources: what lives in an app's namespace that no app manages.

An AppProject with `spec.orphanedResources` set (even `{}`) asks for them, as Argo CD
does: the top-level objects (no ownerReferences) in the app's destination namespace that
no Application tracks. They are listed beside the app's resource tree (Argo CD's
`orphanedNodes`), and with `warn: true` the app carries the condition
OrphanedResourceWarning "Application has N orphaned resources". Left out, as in Argo CD:
the namespace's `default` ServiceAccount, the `kube-root-ca.crt` ConfigMap, the
`kubernetes` Service of `default`, and whatever matches an `ignore` entry (`group`,
`kind`, `name`; globs, an empty kind or name matching any).
"""

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.model.errors import SpecError
from app.model.resource import ResourceKey

FIELD = "spec.orphanedResources"
MAX_IGNORE = 1000
"""Ignore entries read at most (a project is a user's input)."""


@dataclass(frozen=True, slots=True)
class OrphanIgnore:
    group: str = ""
    kind: str = ""
    name: str = ""

    def matches(self, key: ResourceKey) -> bool:
        return (
            (not self.kind or fnmatch.fnmatchcase(key.kind, self.kind))
            and fnmatch.fnmatchcase(key.group, self.group)
            and (not self.name or fnmatch.fnmatchcase(key.name, self.name))
        )


@dataclass(frozen=True, slots=True)
class OrphanPolicy:
    """A project's `orphanedResources`: monitor at all, warn, and what to ignore."""

    warn: bool = False
    ignore: tuple[OrphanIgnore, ...] = ()


def orphan_policy(value: Mapping[str, Any] | None) -> OrphanPolicy | None:
    """The policy a project's `orphanedResources` sets; None when it is unset (off).
    SpecError names the field that cannot be read."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise SpecError(FIELD, "must be an object with warn and ignore")
    warn = value.get("warn", False)
    if not isinstance(warn, bool):
        raise SpecError(f"{FIELD}.warn", "must be true or false")
    entries = value.get("ignore") or []
    if not isinstance(entries, list) or len(entries) > MAX_IGNORE:
        raise SpecError(f"{FIELD}.ignore", f"must be a list of at most {MAX_IGNORE} entries")
    ignore = []
    for i, entry in enumerate(entries):
        where = f"{FIELD}.ignore[{i}]"
        if not isinstance(entry, Mapping) or not all(
            isinstance(entry.get(k, ""), str) for k in ("group", "kind", "name")
        ):
            raise SpecError(where, "must be an object of strings group, kind and name")
        ignore.append(
            OrphanIgnore(entry.get("group", ""), entry.get("kind", ""), entry.get("name", ""))
        )
    return OrphanPolicy(warn, tuple(ignore))


def _known_exclusion(key: ResourceKey) -> bool:
    return (
        (key.group, key.kind, key.name) == ("", "ServiceAccount", "default")
        or (key.group, key.kind, key.name) == ("", "ConfigMap", "kube-root-ca.crt")
        or (key.group, key.kind, key.namespace, key.name)
        == ("", "Service", "default", "kubernetes")
    )


def orphans(candidates: Iterable[ResourceKey], policy: OrphanPolicy) -> list[ResourceKey]:
    """The orphans among `candidates` (the untracked top-level objects of the namespace),
    sorted."""
    return sorted(
        key
        for key in candidates
        if not _known_exclusion(key) and not any(i.matches(key) for i in policy.ignore)
    )


def orphan_warning(count: int, policy: OrphanPolicy | None) -> str:
    """The OrphanedResourceWarning message, or "" when there is none to show."""
    if policy is None or not policy.warn or count == 0:
        return ""
    return f"Application has {count} orphaned resources"
