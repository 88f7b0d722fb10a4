"""Which revisions a comparison is made at, and which render it asks for when they are not cached.

A comparison is made at the revisions its ManifestsReady carries (a render's outcome), or,
for a `nothing` or `recent` refresh, which carries none, at those of the newest stored
comparison as read when it runs (docs/pipeline.md, "Why recent refreshes carry no
revision"). When the render it needs is not in the manifest cache it does not compare;
it climbs a ladder instead:

1. no comparison is stored yet (no revisions at all): a `latest` render;
2. the last compared revisions are no longer cached (a `recent` comparison): a `latest`
   render, which resolves every source's revision again;
3. a render's outcome whose revisions are not cached (evicted between the render and the
   comparison): a `force` render, once;
4. missing even after a `force` render: no render will help (a render larger than the
   cache entry limit is never cached), and the app is Unknown saying so.

ManifestsReady messages of one app coalesce by `precedence`: a render's outcome
(revisions or an error) beats "use the last known revisions", and among render outcomes
the newest wins whatever its level (renders of an app are serialized, so the newest is
the latest resolution).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from app.model.status import ApplicationStatus
from app.model.sync import RefreshLevel


@dataclass(frozen=True, slots=True)
class RenderAsk:
    """Ask the render stage for the app's manifests at `level`; compare when they come."""

    level: RefreshLevel
    reason: str


@dataclass(frozen=True, slots=True)
class NeverCached:
    """No render will put the manifests in the cache: the app is Unknown with `problem`."""

    problem: str


def _stored_revisions(previous: ApplicationStatus | None) -> tuple[str, ...]:
    """The revisions of the last stored comparison (none if there is none, or it had none)."""
    if previous is None:
        return ()
    sync = previous.sync
    if sync.revisions:
        return tuple(sync.revisions)
    return (sync.revision,) if sync.revision else ()


def compared_revisions(
    asked: Sequence[str], previous: ApplicationStatus | None
) -> tuple[str, ...] | RenderAsk:
    """The revisions to compare at: those a render's outcome carries, else the last
    compared ones; with neither, the render to ask for (step 1)."""
    revisions = tuple(asked) or _stored_revisions(previous)
    if not revisions:
        return RenderAsk(RefreshLevel.LATEST, "no comparison is stored yet")
    return revisions


def not_cached(what: str, *, asked: bool, level: RefreshLevel) -> RenderAsk | NeverCached:
    """What to do when `what` (a render the comparison needs) is not cached (steps 2 to 4).

    `asked`: the message carried the revisions (a render's outcome); `level` its level."""
    if not asked:
        return RenderAsk(RefreshLevel.LATEST, f"{what} is no longer cached")
    if level < RefreshLevel.FORCE:
        return RenderAsk(RefreshLevel.FORCE, f"{what} is not in the manifest cache")
    return NeverCached(
        f"{what} is not in the manifest cache even after a forced render; "
        "a render larger than the cache entry limit is never cached: make it smaller"
    )


def precedence(revisions: Sequence[str], error: str) -> int:
    """How a ManifestsReady with these `revisions` (or this render `error`) ranks when
    messages of one app coalesce: render outcomes over "the last known revisions"."""
    return 1 if revisions or error else 0
