"""Polling Git: which sources a poll watches, and which apps a moved ref refreshes.

Without webhooks, Sluice notices a push by listing each repository at an interval. A
source is watched when its targetRevision is a name that can move: a branch, a tag, a
semver range over tags, HEAD (empty). A full commit SHA cannot move, and a Helm chart
repository (`chart`) is not Git, so neither is watched.

An app is refreshed (`latest`) when some watched source's targetRevision now names a
commit other than the one its last comparison used for that source (`status.sync
.revision`, or `revisions[i]` in a multi-source app; a comparison that recorded none
counts as a different commit). An app never compared is left alone: its first
comparison resolves the revision anyway. The reason names the first source that moved:
"poller: <repo> <revision> moved to <sha7>".
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.model.app_spec import ApplicationSource
from app.model.status import SyncStatus

_FULL_SHA = re.compile(r"[0-9a-fA-F]{40}([0-9a-fA-F]{24})?")


def is_watched(source: ApplicationSource) -> bool:
    """Whether a poll looks at this source: Git, and tracking a name that can move."""
    return not source.chart and not _FULL_SHA.fullmatch(source.revision_or_head.strip())


@dataclass(frozen=True, slots=True)
class Resolved:
    """What one watched source's targetRevision names now."""

    index: int
    """The source's position in the app's sources."""
    repo: str
    """Repository URL as shown to people (credentials already masked)."""
    revision: str
    """The targetRevision, HEAD for empty."""
    commit: str


@dataclass(frozen=True, slots=True)
class Moved:
    """A source whose target moved since the app's last comparison."""

    source: Resolved
    previous: str
    """The commit the last comparison used for it ("" if none was recorded)."""
    reason: str
    """The refresh reason users see."""


def first_moved(resolved: Iterable[Resolved], compared: SyncStatus, *, multi: bool) -> Moved | None:
    """The first source (in source order) that moved since `compared`, or None."""
    last = compared.revisions if multi else [compared.revision]
    for now in sorted(resolved, key=lambda r: r.index):
        previous = last[now.index] if now.index < len(last) else ""
        if now.commit != previous:
            reason = f"poller: {now.repo} {now.revision} moved to {now.commit[:7]}"
            return Moved(now, previous, reason)
    return None
