"""Which sources a poll watches, and which apps a moved ref refreshes (and the reason)."""

import pytest

from app.engine.polling import Resolved, first_moved, is_watched
from app.model.app_spec import ApplicationSource
from app.model.status import SyncStatus

REPO = "https://git.example.com/team/app.git"
OLD = "1" * 40
NEW = "2" * 40


@pytest.mark.parametrize(
    ("source", "watched"),
    [
        pytest.param(ApplicationSource(REPO, "app", "main"), True, id="branch"),
        pytest.param(ApplicationSource(REPO, "app", "v1.2.0"), True, id="tag"),
        pytest.param(ApplicationSource(REPO, "app", ">=1.0.0 <2"), True, id="semver-range"),
        pytest.param(ApplicationSource(REPO, "app", ""), True, id="empty-is-head"),
        pytest.param(ApplicationSource(REPO, "app", "HEAD"), True, id="head"),
        pytest.param(ApplicationSource(REPO, "app", "1234567"), True, id="short-sha-is-a-name"),
        pytest.param(ApplicationSource(REPO, "app", OLD), False, id="full-sha-never-moves"),
        pytest.param(ApplicationSource(REPO, "app", "A" * 40), False, id="upper-case-sha"),
        pytest.param(
            ApplicationSource("https://charts.example.com", chart="web", target_revision="1.*"),
            False,
            id="helm-chart-repository-is-not-git",
        ),
    ],
)
def test_is_watched(source: ApplicationSource, watched: bool) -> None:
    assert is_watched(source) is watched


def now(index: int, commit: str, revision: str = "main") -> Resolved:
    return Resolved(index, REPO, revision, commit)


@pytest.mark.parametrize(
    ("resolved", "compared", "multi", "moved"),
    [
        pytest.param([now(0, OLD)], SyncStatus(revision=OLD), False, None, id="unchanged"),
        pytest.param([now(0, NEW)], SyncStatus(revision=OLD), False, (0, OLD), id="moved"),
        pytest.param([now(0, NEW)], SyncStatus(), False, (0, ""), id="none-recorded-is-moved"),
        pytest.param(
            [now(0, OLD), now(1, NEW)],
            SyncStatus(revisions=[OLD, OLD]),
            True,
            (1, OLD),
            id="multi-second-source-moved",
        ),
        pytest.param(
            [now(1, OLD)],
            SyncStatus(revisions=[NEW, OLD]),
            True,
            None,
            id="multi-unwatched-first-source-ignored",
        ),
        pytest.param(
            [now(0, NEW), now(1, NEW)],
            SyncStatus(revisions=[OLD]),
            True,
            (0, OLD),
            id="multi-first-moved-source-is-named",
        ),
        pytest.param(
            [now(2, NEW)],
            SyncStatus(revisions=[OLD, OLD]),
            True,
            (2, ""),
            id="multi-source-added-since-comparison",
        ),
        pytest.param(
            [now(0, OLD)],
            SyncStatus(revision=NEW, revisions=[OLD]),
            False,
            (0, NEW),
            id="single-source-reads-revision-not-revisions",
        ),
    ],
)
def test_first_moved(
    resolved: list[Resolved],
    compared: SyncStatus,
    multi: bool,
    moved: tuple[int, str] | None,
) -> None:
    found = first_moved(resolved, compared, multi=multi)

    assert (None if found is None else (found.source.index, found.previous)) == moved


def test_the_reason_names_repository_revision_and_short_commit() -> None:
    found = first_moved([now(0, NEW, "release")], SyncStatus(revision=OLD), multi=False)

    assert found is not None
    assert found.reason == f"poller: {REPO} release moved to 2222222"
