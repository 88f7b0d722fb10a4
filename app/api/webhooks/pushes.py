"""What a provider's payload says happened: which repository, which refs moved, which files.

Every provider parser produces the same shapes: a `PushEvent` (one repository, one or more
ref changes) or `Ignored` (a ping or an event Sluice answers but does not act on). A ref
change keeps the ref's kind (branch, tag, other) so a tag named like a branch is never
mistaken for it, the `after` commit only for matching pinned SHAs (the render stage
resolves every revision itself: a payload is never trusted for what a ref points at), and
the changed files when the provider lists them (`()` means unknown, which refreshes).
"""

import enum
from dataclasses import dataclass

from app.api.webhooks.errors import PayloadError
from app.repo.errors import RepoURLError
from app.repo.urls import match_key, parse_repo_url

MAX_REF_CHANGES = 1000
"""Ref changes one event may carry; more is refused (400) rather than matched slowly."""
MAX_CHANGED_FILES = 10_000
"""Changed files kept per ref change; past this the list counts as unknown (refresh)."""
MAX_REF_LENGTH = 1024
"""Longest ref name accepted (Git hosts refuse far shorter ones)."""
NULL_SHA = "0" * 40
"""What Git hosts send as `before` of a created ref and `after` of a deleted one."""


class RefKind(enum.Enum):
    BRANCH = "branch"
    TAG = "tag"
    OTHER = "ref"


_PREFIXES = {"refs/heads/": RefKind.BRANCH, "refs/tags/": RefKind.TAG}


@dataclass(frozen=True, slots=True)
class Ref:
    """A pushed ref: its kind and its short name (`refs/heads/feat/x` is branch `feat/x`)."""

    kind: RefKind
    name: str

    @classmethod
    def parse(cls, ref: str) -> "Ref":
        """Classify a full ref; anything else keeps Argo CD's reading (last of 3 `/` parts)."""
        for prefix, kind in _PREFIXES.items():
            if ref.startswith(prefix):
                return cls(kind, ref[len(prefix) :])
        return cls(RefKind.OTHER, ref.split("/", 2)[-1])

    def __str__(self) -> str:
        return f"{self.kind.value} {self.name}"


def read_ref(field: str, text: str) -> str:
    """`text` as a ref name, or PayloadError when no Git host would send it."""
    if len(text) > MAX_REF_LENGTH:
        raise PayloadError(field, f"is longer than {MAX_REF_LENGTH} characters: not a ref name")
    if any(not c.isprintable() or c.isspace() for c in text):
        raise PayloadError(field, "contains whitespace or control characters: not a ref name")
    return text


@dataclass(frozen=True, slots=True)
class RefChange:
    """One ref moved by the push."""

    ref: Ref
    before: str
    """The commit the ref pointed at before ("" or zeros when it was created)."""
    after: str
    """The commit it points at now ("" or zeros when it was deleted)."""
    touched_head: bool
    """The push moved the repository's default branch (what HEAD follows)."""
    changed_files: tuple[str, ...] = ()
    """Paths the push added, modified or removed; empty when the provider does not say."""


@dataclass(frozen=True, slots=True)
class RepoIdentity:
    """The URLs a payload names its repository by, and their match keys."""

    urls: tuple[str, ...]
    keys: frozenset[str]
    unusable: tuple[str, ...] = ()
    """Why some URL fields were left out (reported in the log, not fatal)."""


@dataclass(frozen=True, slots=True)
class PushEvent:
    """A push to one repository, named by every URL the payload carries for it."""

    event: str
    """The provider's event name (`push`, `Tag Push Hook`, `repo:refs_changed`, ...)."""
    repo: RepoIdentity
    changes: tuple[RefChange, ...]


@dataclass(frozen=True, slots=True)
class Ignored:
    """An event answered with 200 and not acted on (ping, a system hook for something else)."""

    event: str
    reason: str


Event = PushEvent | Ignored


def repo_identity(urls: list[tuple[str, str]]) -> RepoIdentity:
    """The (field, URL) pairs a payload gave, parsed: the usable URLs and their match keys.

    One usable URL is enough (hosts send odd secondary forms, such as an ssh URL without
    its `:`); when none parses, PayloadError names the first field and its problem.
    """
    if not urls:
        raise PayloadError("repository", "carries no repository URL to match applications by")
    good: list[str] = []
    keys: set[str] = set()
    unusable: list[PayloadError] = []
    for field, url in urls:
        try:
            keys.add(match_key(parse_repo_url(url, field=field)))
        except RepoURLError as e:
            problem = e.message.removeprefix(f"{field}: ")
        else:
            good.append(url)
            continue
        unusable.append(PayloadError(field, f"is not a repository URL Sluice can match: {problem}"))
    if not good:
        raise unusable[0]
    return RepoIdentity(tuple(good), frozenset(keys), tuple(e.message for e in unusable))


def bounded_files(groups: list[list[str]]) -> tuple[str, ...]:
    """The changed files of a push, de-duplicated; empty (unknown) past MAX_CHANGED_FILES."""
    files: dict[str, None] = {}
    for group in groups:
        for path in group:
            files[path] = None
            if len(files) > MAX_CHANGED_FILES:
                return ()
    return tuple(files)


def check_change_count(field: str, count: int) -> None:
    if count > MAX_REF_CHANGES:
        raise PayloadError(
            field, f"holds {count} ref changes; Sluice accepts at most {MAX_REF_CHANGES} per event"
        )
