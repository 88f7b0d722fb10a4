"""Comparisons of unchanged inputs are reused, not computed again.

`app.engine.compare` is a pure function of the app (spec, annotations, name), the
targets, the live objects, the project and the settings. A periodic resync of an
unchanged app, the steady state of every app every few minutes, hands it the same
inputs again; so the compare stage keeps, per app, a fingerprint of the inputs of its
last comparison and the `ComparisonSummary` they produced, and reuses the summary when
the fingerprint matches (neither the rendered targets nor the live objects are even
decoded then).

The fingerprint is cheap to take: the live objects by a digest of their stored JSON
text (`StoredLive.digest`: every change the watcher stores changes it, and an object
stored again unchanged keeps it); the targets by the revisions they were rendered at (a
render is a function of the source spec, already in the app's part, and the commit: that
is what the manifest cache relies on too); the app (name, annotations, spec, and the
server its destination resolves to) and the project by their `repr` (a dataclass repr
shows every field, at a fifth of the cost of encoding it); and the settings object
itself (rebuilt when the destination's discovery changes). A hard refresh (`force`) does
not reuse a comparison, as it reads no cache; it leaves its own for the next one.
Entries are kept for the most recently compared `capacity` apps; a replica that has not
compared an app lately computes it.
"""

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.appstatus import ComparisonSummary
from app.engine.compare import CompareSettings
from app.model.application import Application
from app.model.identity import AppRef
from app.model.project import AppProject
from app.model.sync import HookType

DEFAULT_CAPACITY = 10_000
"""Apps whose last comparison is kept (a summary is a few kilobytes)."""


@dataclass(frozen=True, slots=True, eq=False)
class Fingerprint:
    """The inputs of one comparison: the settings object, and a digest of the rest."""

    settings: CompareSettings
    digest: bytes

    def same(self, other: "Fingerprint") -> bool:
        return other.settings is self.settings and other.digest == self.digest


@dataclass(frozen=True, slots=True)
class Remembered:
    """What a comparison left for the next one with the same inputs."""

    summary: ComparisonSummary
    source_types: tuple[str, ...]
    deletion_hooks: frozenset[HookType] = frozenset()
    """The PreDelete/PostDelete hook types the manifests declare (they set finalizers)."""


def fingerprint(
    app: Application,
    revisions: Sequence[str],
    live: bytes,
    project: AppProject,
    settings: CompareSettings,
    *,
    server: str = "",
) -> Fingerprint:
    """What the comparison of these inputs depends on; `live` is the digest of the live
    objects as stored, `server` the destination's resolved server URL (exclusions match it)."""
    digest = hashlib.sha256()
    for part in (
        repr((app.name, app.metadata.annotations, app.spec, server)),
        repr(list(revisions)),
        repr(project),
    ):
        digest.update(part.encode())
        digest.update(b"\0")
    digest.update(live)
    return Fingerprint(settings, digest.digest())


class ComparisonMemo:
    """The last comparison of each recently compared app, by its inputs' fingerprint."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[AppRef, tuple[Fingerprint, Remembered]] = OrderedDict()

    def get(self, ref: AppRef, key: Fingerprint) -> Remembered | None:
        """What the app's last comparison left, if its inputs were `key`."""
        entry = self._entries.get(ref)
        if entry is None or not entry[0].same(key):
            return None
        self._entries.move_to_end(ref)
        return entry[1]

    def put(self, ref: AppRef, key: Fingerprint, remembered: Remembered) -> None:
        self._entries[ref] = (key, remembered)
        self._entries.move_to_end(ref)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)
