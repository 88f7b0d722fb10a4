"""Which commit a targetRevision means, given the repository's refs (Argo CD's ls-remote rules).

In order, as Argo CD's `LsRemote` decides (util/git/client.go):

1. A full 40-hex SHA is a commit; no ref lookup (the caller fetches it to be sure).
2. Empty means `HEAD`.
3. A semver constraint that is not itself a plain version (`>=1.2.0 <2`, `1.2.*`, `~1.2`)
   picks the highest matching tag; when no tag matches, the name rules below still apply
   (a branch may be called `1.x`).
4. A name: a full ref name (`refs/heads/main`, `refs/pull/12/head`), else a branch, else a
   tag (Argo CD meets branches first in ls-remote order, so a branch wins over a tag of the
   same name). `HEAD` is the remote's default branch.
5. Seven or more hex digits that name nothing else are a short commit SHA; the caller
   resolves it against fetched history.

Annotated tags resolve to the commit they point to, not to the tag object.
"""

import re
from dataclasses import dataclass

from app.repo.constraints import highest_tag, parse_constraint, parse_version
from app.repo.refs import HEADS, TAGS, RefListing

MAX_REVISION_LENGTH = 255
_FULL_SHA = re.compile(r"^[0-9a-fA-F]{40}$")
_SHORT_SHA = re.compile(r"^[0-9a-fA-F]{7,39}$")


def is_full_sha(revision: str) -> bool:
    return bool(_FULL_SHA.match(revision))


def is_short_sha(revision: str) -> bool:
    return bool(_SHORT_SHA.match(revision))


def normalize_revision(revision: str) -> str:
    """targetRevision stripped, with Argo CD's default `HEAD` for empty."""
    return revision.strip() or "HEAD"


@dataclass(frozen=True, slots=True)
class RevisionMatch:
    """The commit a revision names, the ref it came from, and why (text for users)."""

    commit: str
    ref: str
    reason: str


def match_revision(listing: RefListing, revision: str) -> RevisionMatch | None:
    """Rules 2 to 4 of the module docstring; None when no ref matches."""
    revision = normalize_revision(revision)
    if revision == "HEAD":
        if listing.head is None:
            return None
        return RevisionMatch(listing.head, "HEAD", "HEAD (the default branch)")
    if parse_version(revision) is None:
        constraint = parse_constraint(revision)
        if constraint is not None:
            tags = listing.tags
            best = highest_tag(constraint, tags)
            if best is not None:
                return RevisionMatch(
                    tags[best.tag],
                    TAGS + best.tag,
                    f"tag {best.tag}, the highest tag satisfying {revision!r}",
                )
    for name, kind in ((revision, "ref"), (HEADS + revision, "branch"), (TAGS + revision, "tag")):
        commit = listing.refs.get(name)
        if commit is not None:
            label = revision if kind == "ref" else f"{kind} {revision}"
            return RevisionMatch(commit, name, label)
    return None
