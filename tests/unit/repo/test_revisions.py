"""Which ref a targetRevision picks from an ls-remote listing (Argo CD's order of rules)."""

import pytest

from app.repo.errors import GitError
from app.repo.refs import parse_ls_remote
from app.repo.revisions import is_full_sha, is_short_sha, match_revision

A, B, C, D, E, T = (ch * 40 for ch in "abcdef")
LS_REMOTE = f"""{A}\tHEAD
{B}\trefs/heads/3.x
{A}\trefs/heads/main
{C}\trefs/heads/v1.0.0
{D}\trefs/pull/7/head
{T}\trefs/tags/v1.0.0
{E}\trefs/tags/v1.0.0^{{}}
{B}\trefs/tags/v1.2.0
{C}\trefs/tags/v1.10.0
{D}\trefs/tags/v2.0.0
{E}\trefs/tags/1.2
{A}\trefs/tags/release
"""
LISTING = parse_ls_remote(LS_REMOTE, repo="r")

# (rule, revision, commit, ref)
RULES = [
    ("empty-means-head", "", A, "HEAD"),
    ("head", "HEAD", A, "HEAD"),
    ("branch", "main", A, "refs/heads/main"),
    ("full-ref", "refs/heads/main", A, "refs/heads/main"),
    ("other-full-ref", "refs/pull/7/head", D, "refs/pull/7/head"),
    ("tag", "release", A, "refs/tags/release"),
    ("branch-beats-tag-of-same-name", "v1.0.0", C, "refs/heads/v1.0.0"),
    ("annotated-tag-peeled", "refs/tags/v1.0.0", E, "refs/tags/v1.0.0"),
    ("semver-range", ">=1.0.0 <2", C, "refs/tags/v1.10.0"),
    ("semver-tilde", "~1.10", C, "refs/tags/v1.10.0"),
    ("semver-tie-first-tag-name-wins", "~1.2", E, "refs/tags/1.2"),
    ("semver-wildcard", "2.*", D, "refs/tags/v2.0.0"),
    ("plain-version-is-a-tag-name", "1.2", E, "refs/tags/1.2"),
    ("constraint-without-match-falls-back-to-branch", "3.x", B, "refs/heads/3.x"),
]


@pytest.mark.parametrize(
    ("revision", "commit", "ref"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_rule(revision: str, commit: str, ref: str) -> None:
    match = match_revision(LISTING, revision)
    assert match is not None
    assert (match.commit, match.ref) == (commit, ref)


def test_semver_reason_names_the_tag() -> None:
    match = match_revision(LISTING, ">=1.0.0 <2")
    assert match is not None
    assert "v1.10.0" in match.reason


@pytest.mark.parametrize("revision", ["nope", "~9.0", "abc1234", "refs/heads/nope"])
def test_no_match(revision: str) -> None:
    assert match_revision(LISTING, revision) is None


def test_no_head_in_empty_repository() -> None:
    assert match_revision(parse_ls_remote("", repo="r"), "HEAD") is None


def test_peeled_commit_replaces_tag_object() -> None:
    assert LISTING.tags["v1.0.0"] == E
    assert LISTING.branches == {"3.x": B, "main": A, "v1.0.0": C}


def test_malformed_line_names_the_repository() -> None:
    with pytest.raises(GitError, match="https://h/r: git ls-remote printed an unexpected line 1"):
        parse_ls_remote("not-a-sha\trefs/heads/x\n", repo="https://h/r")


@pytest.mark.parametrize(
    ("text", "full", "short"),
    [
        (A, True, False),
        (A.upper(), True, False),
        ("abc1234", False, True),
        ("abc123", False, False),
    ],
)
def test_sha_forms(text: str, full: bool, short: bool) -> None:
    assert (is_full_sha(text), is_short_sha(text)) == (full, short)
