"""What the compare stage remembers about an app between two comparisons.

Five facts outlive a comparison and are not part of the status a user sees:

- when the current run of repository errors began (SEMANTICS §7: the 180 s grace period
  is measured from the first error; cleared by the next comparison that rendered);
- the reason of the last auto-sync decision (an `auto-sync-skipped` event is emitted only
  when the reason changes, not on every resync);
- when the last status written to the Application resource landed (a write that would
  change nothing but the reconcile time is skipped while that is recent; a failed write
  clears it, so the next comparison writes again);
- when the last `force` comparison ran, while hard resyncs are on (the hard period,
  `app.engine.resync`, is measured from it);
- the uid of the Application object they (and the stored status) were made for: an
  Application deleted and created again under the same name is a new object, whose
  comparison starts from nothing.

They live in one small hash per app, read with the comparison's start
(`StatusStore.start_comparison`). `save` writes only the fields that changed, so the
steady state (a resync of an unchanged app) writes nothing here. Losing the hash
costs at most one repeated event and one repeated status write: nothing is decided from it
that the status store or the cluster does not also know.
"""

import datetime as dt
from dataclasses import dataclass, fields, replace

from redis.typing import EncodableT, FieldT

from app.engine.autosync import remembered_reason
from app.model.identity import AppRef
from app.model.timestamps import format_time, parse_time
from app.store import keys
from app.store.connection import Redis
from app.store.values import Fields, field

TTL_SECONDS = 30 * 24 * 3600
"""Marks of an app that has not changed for this long expire (bounds what a deleted app
leaves behind; an expired mark costs one repeated event or status write)."""


@dataclass(frozen=True, slots=True)
class CompareMarks:
    repo_error_since: str = ""
    """RFC 3339 time of the first repository error of the current run; empty: none."""
    autosync_reason: str = ""
    """The reason text of the last auto-sync decision."""
    written_at: float = 0.0
    """Unix time the last stored status landed on the Application resource; 0: it did not
    (never written, the write failed, or the marks were lost)."""
    hard_refresh_at: float = 0.0
    """Unix time the hard resync period is measured from (`app.engine.resync.hard_base`);
    0: hard resyncs are off, or no comparison has set it yet."""
    uid: str = ""
    """The uid of the Application object these marks (and the stored status) belong to;
    empty: not known yet. Another uid is a new object under the same name."""

    @property
    def repo_error_time(self) -> dt.datetime | None:
        """`repo_error_since` as an aware datetime (None if unset or unreadable)."""
        if not self.repo_error_since:
            return None
        try:
            return parse_time(self.repo_error_since)
        except ValueError:
            return None

    def with_repo_error_since(self, when: dt.datetime | None) -> "CompareMarks":
        """These marks with a run of repository errors that began at `when` (None: none)."""
        return replace(
            self, repo_error_since=format_time(when, timespec="auto") if when is not None else ""
        )

    def cleared_repo_error(self) -> "CompareMarks":
        """These marks after a comparison that rendered: no repository error running."""
        return replace(self, repo_error_since="")

    def with_reason(self, reason: str) -> "CompareMarks":
        """These marks with `reason` as the last auto-sync reason (the part remembered,
        `app.engine.autosync.remembered_reason`)."""
        return replace(self, autosync_reason=remembered_reason(reason))


_NAMES = tuple(f.name for f in fields(CompareMarks))


def decode_marks(stored: Fields) -> CompareMarks:
    """Marks from their hash fields (unreadable fields read as unset)."""
    text = {name: (field(stored, name) or b"").decode(errors="replace") for name in _NAMES}
    return CompareMarks(
        repo_error_since=text["repo_error_since"],
        autosync_reason=text["autosync_reason"],
        written_at=_seconds(text["written_at"]),
        hard_refresh_at=_seconds(text["hard_refresh_at"]),
        uid=text["uid"],
    )


def _seconds(text: str) -> float:
    try:
        return float(text or 0.0)
    except ValueError:
        return 0.0


class CompareMarksStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    async def read(self, app: AppRef) -> CompareMarks:
        """The app's marks (all empty if none were kept, or they expired)."""
        return decode_marks(await self._redis.hgetall(keys.compare_marks(app)))

    async def save(self, app: AppRef, before: CompareMarks, after: CompareMarks) -> bool:
        """Store the fields of `after` that differ from `before`; False if none did."""
        after = after.with_reason(after.autosync_reason)
        changed: dict[FieldT, EncodableT] = {}
        cleared: list[str] = []
        for name in _NAMES:
            old, new = getattr(before, name), getattr(after, name)
            if old == new:
                continue
            if new in ("", 0.0):
                cleared.append(name)
            else:
                changed[name] = repr(new) if isinstance(new, float) else str(new)
        if not changed and not cleared:
            return False
        key = keys.compare_marks(app)
        async with self._redis.pipeline(transaction=True) as pipe:
            if changed:
                pipe.hset(key, mapping=changed)
            if cleared:
                pipe.hdel(key, *cleared)
            pipe.expire(key, TTL_SECONDS)
            await pipe.execute()
        return True
