"""Resolving each form of targetRevision against a real repository served over file://."""

import asyncio
from pathlib import Path

import pytest

from app.repo.errors import GitError, RepoURLError, RevisionError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.origin import Origin, manifest


@pytest.fixture
def history(origin: Origin) -> dict[str, str]:
    """main: c1 (v1.0.0) → c2 (v1.2.0 annotated) → c3 (v1.10.0) → c4; branch feature at c2."""
    shas: dict[str, str] = {}
    shas["c1"] = origin.commit("one", {"app/a.yaml": manifest("a")})
    origin.tag("v1.0.0")
    shas["c2"] = origin.commit("two", {"app/b.yaml": manifest("b")})
    origin.tag("v1.2.0", annotated=True)
    origin.branch("feature")
    shas["c3"] = origin.commit("three", {"app/c.yaml": manifest("c")})
    origin.tag("v1.10.0", annotated=True)
    shas["c4"] = origin.commit("four", {"app/d.yaml": manifest("d")})
    origin.tag("v2.0.0-rc.1")
    origin.git("update-ref", "refs/pull/12/head", shas["c1"])
    return shas


# (rule, revision, commit name, ref)
FORMS = [
    ("head", "HEAD", "c4", "HEAD"),
    ("empty-is-head", "", "c4", "HEAD"),
    ("branch", "feature", "c2", "refs/heads/feature"),
    ("full-branch-ref", "refs/heads/main", "c4", "refs/heads/main"),
    ("lightweight-tag", "v1.0.0", "c1", "refs/tags/v1.0.0"),
    ("annotated-tag-peeled", "v1.2.0", "c2", "refs/tags/v1.2.0"),
    ("semver-range", ">=1.0.0 <2", "c3", "refs/tags/v1.10.0"),
    ("semver-wildcard", "1.2.*", "c2", "refs/tags/v1.2.0"),
    ("semver-tilde", "~1.0", "c1", "refs/tags/v1.0.0"),
    ("semver-skips-prerelease", ">=1.0.0", "c3", "refs/tags/v1.10.0"),
    ("pull-request-ref", "refs/pull/12/head", "c1", "refs/pull/12/head"),
]


@pytest.mark.parametrize(
    ("revision", "commit", "ref"), [r[1:] for r in FORMS], ids=[r[0] for r in FORMS]
)
async def test_revision_forms(  # noqa: PLR0917
    repos: Repositories,
    origin: Origin,
    history: dict[str, str],
    revision: str,
    commit: str,
    ref: str,
) -> None:
    resolved = await repos.resolve(origin.url, revision)
    assert (resolved.commit, resolved.ref) == (history[commit], ref)
    assert resolved.revision == (revision or "HEAD")


async def test_full_sha_of_an_older_commit_is_fetched(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    resolved = await repos.resolve(origin.url, history["c1"].upper())
    assert resolved.commit == history["c1"]
    assert repos.stats.ls_remote == 0
    assert repos.stats.fetch == 1


async def test_sha_of_an_annotated_tag_object_is_peeled(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    tag_object = origin.git("rev-parse", "v1.2.0")
    assert tag_object != history["c2"]
    assert (await repos.resolve(origin.url, tag_object)).commit == history["c2"]


async def test_short_sha_is_resolved_from_history(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    resolved = await repos.resolve(origin.url, history["c2"][:9])
    assert resolved.commit == history["c2"]
    assert repos.stats.history_fetch == 1
    again = await repos.resolve(origin.url, history["c3"][:9])
    assert again.commit == history["c3"]
    assert repos.stats.history_fetch == 1


async def test_unknown_name_is_a_clear_error(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    with pytest.raises(RevisionError) as info:
        await repos.resolve(origin.url, "no-such-branch", field="spec.source")
    message = str(info.value)
    assert message.startswith("spec.source.targetRevision: 'no-such-branch' is not a branch")
    assert origin.url in message


async def test_short_sha_that_matches_nothing(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    with pytest.raises(RevisionError, match="matches no commit"):
        await repos.resolve(origin.url, "0000000deadbeef")


async def test_missing_full_sha(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    with pytest.raises(RevisionError, match="does not exist in the repository"):
        await repos.resolve(origin.url, "f" * 40)


async def test_empty_repository_has_no_head(repos: Repositories, origin: Origin) -> None:
    with pytest.raises(RevisionError, match="has no HEAD"):
        await repos.resolve(origin.url, "HEAD")


async def test_resolution_follows_new_commits(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    assert (await repos.resolve(origin.url, "main")).commit == history["c4"]
    c5 = origin.commit("five", {"app/e.yaml": manifest("e")})
    assert (await repos.resolve(origin.url, "main")).commit == c5


async def test_concurrent_resolutions_share_one_ls_remote(
    repos: Repositories, origin: Origin, history: dict[str, str]
) -> None:
    revisions = ["HEAD", "main", "feature", "v1.0.0", ">=1.0.0 <2", "1.2.*"] * 10
    results = await asyncio.gather(*(repos.resolve(origin.url, r) for r in revisions))
    assert {r.commit for r in results} == {
        history["c4"],
        history["c2"],
        history["c1"],
        history["c3"],
    }
    assert repos.stats.ls_remote == 1


async def test_local_repositories_can_be_disabled(tmp_path: Path, origin: Origin) -> None:
    locked = Repositories(RepoSettings(cache_dir=tmp_path / "cache2"))
    with pytest.raises(RepoURLError, match="local repositories are disabled"):
        await locked.resolve(origin.url, "HEAD", field="spec.source")


async def test_missing_local_repository(repos: Repositories, tmp_path: Path) -> None:
    with pytest.raises(GitError) as info:
        await repos.resolve(f"file://{tmp_path}/nowhere", "HEAD")
    assert "git ls-remote of file://" in str(info.value)
    assert info.value.transient
