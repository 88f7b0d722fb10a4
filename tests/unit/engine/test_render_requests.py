"""Which revisions a comparison is made at, and the render ladder when they are not cached."""

import pytest

from app.engine.render_requests import (
    NeverCached,
    RenderAsk,
    compared_revisions,
    not_cached,
    precedence,
)
from app.model.status import ApplicationStatus, SyncStatus
from app.model.sync import RefreshLevel as L

A, B, C = "a" * 40, "b" * 40, "c" * 40


def stored(revision: str = "", revisions: tuple[str, ...] = ()) -> ApplicationStatus:
    return ApplicationStatus(sync=SyncStatus(revision=revision, revisions=list(revisions)))


@pytest.mark.parametrize(
    ("asked", "previous", "expected"),
    [
        pytest.param((A,), stored(B), (A,), id="a-render-outcome-wins-over-the-stored-one"),
        pytest.param((), stored(B), (B,), id="none-carried-the-last-compared-revision"),
        pytest.param((), stored(B, (B, C)), (B, C), id="none-carried-every-source-of-the-last"),
        pytest.param(
            (),
            None,
            RenderAsk(L.LATEST, "no comparison is stored yet"),
            id="nothing-stored-asks-for-a-latest-render",
        ),
        pytest.param(
            (),
            stored(),
            RenderAsk(L.LATEST, "no comparison is stored yet"),
            id="a-stored-status-without-revisions-asks-too",
        ),
    ],
)
def test_compared_revisions(
    asked: tuple[str, ...],
    previous: ApplicationStatus | None,
    expected: tuple[str, ...] | RenderAsk,
) -> None:
    assert compared_revisions(asked, previous) == expected


WHAT = "the render of spec.source at aaaa"


@pytest.mark.parametrize(
    ("asked", "level", "expected"),
    [
        pytest.param(
            False,
            L.RECENT,
            RenderAsk(L.LATEST, f"{WHAT} is no longer cached"),
            id="last-revisions-evicted-resolve-again",
        ),
        pytest.param(
            False,
            L.FORCE,
            RenderAsk(L.LATEST, f"{WHAT} is no longer cached"),
            id="last-revisions-evicted-whatever-the-level",
        ),
        pytest.param(
            True,
            L.LATEST,
            RenderAsk(L.FORCE, f"{WHAT} is not in the manifest cache"),
            id="a-render-outcome-not-cached-forces-a-render-once",
        ),
        pytest.param(
            True,
            L.FORCE,
            NeverCached(
                f"{WHAT} is not in the manifest cache even after a forced render; a render "
                "larger than the cache entry limit is never cached: make it smaller"
            ),
            id="missing-after-a-forced-render-is-reported",
        ),
    ],
)
def test_the_render_ladder(asked: bool, level: L, expected: RenderAsk | NeverCached) -> None:
    assert not_cached(WHAT, asked=asked, level=level) == expected


@pytest.mark.parametrize(
    ("revisions", "error", "rank"),
    [((), "", 0), ((A,), "", 1), ((), "clone failed", 1)],
    ids=["last-known-revisions", "a-render", "a-render-error"],
)
def test_render_outcomes_win_when_messages_coalesce(
    revisions: tuple[str, ...], error: str, rank: int
) -> None:
    assert precedence(revisions, error) == rank
