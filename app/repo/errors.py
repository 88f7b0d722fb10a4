"""Errors a repository operation raises: what went wrong, where, and what to do about it.

Every message is already redacted (no `user:token@`, no configured secret) and names the
repository by its display URL, the field of the Application that led there
(`source.path`), and the file when one is involved. `transient` tells the render worker
whether retrying later may help (a network failure) or only a change to Git or to the
Application will (a path that leaves the repository).
"""

from typing import ClassVar


class RepoError(Exception):
    """A repository problem a user can act on; `str(error)` is the text to show."""

    transient: ClassVar[bool] = False

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class RepoURLError(RepoError):
    """The repository URL cannot be used (malformed, unsupported scheme, local disabled)."""


class RevisionError(RepoError):
    """targetRevision names no branch, tag, semver match or commit of the repository."""


class GitError(RepoError):
    """A git command failed (network, authentication, server refusal)."""

    transient = True


class GitTimeout(GitError):
    """A git command did not finish within its deadline and was killed."""


class LimitExceeded(RepoError):
    """A size or count limit was reached (fetch size, tree entries, manifest bytes)."""


class PathError(RepoError):
    """A path taken from the Application (source.path, a value file…) is unusable.

    It leaves the repository, goes through an absolute symlink, follows too many links,
    or does not exist. `field` is the Application field the path came from.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class SymlinkError(RepoError):
    """The commit contains a symlink that is absolute or leaves the repository."""

    def __init__(self, link: str, message: str) -> None:
        self.link = link
        super().__init__(message)


class RenderError(RepoError):
    """The source cannot be rendered (type, encoding, file kind, a kustomization or its build)."""
