"""A repository's refs as `git ls-remote` lists them, with annotated tags peeled.

`git ls-remote` prints `<object>\\t<ref>` lines; an annotated tag appears twice, as the tag
object and as `<ref>^{}` with the commit it points to. Sluice always wants the commit, so
the peeled line wins. `HEAD` is the remote's default branch tip (absent in an empty
repository).
"""

from dataclasses import dataclass, field

from app.repo.errors import GitError

HEADS = "refs/heads/"
TAGS = "refs/tags/"
PEELED_SUFFIX = "^{}"
_SHA_LENGTH = 40


@dataclass(frozen=True, slots=True)
class RefListing:
    """Ref name → commit SHA, and the commit HEAD points to (None when there is no HEAD)."""

    refs: dict[str, str] = field(default_factory=dict)
    head: str | None = None

    @property
    def branches(self) -> dict[str, str]:
        return {n[len(HEADS) :]: sha for n, sha in self.refs.items() if n.startswith(HEADS)}

    @property
    def tags(self) -> dict[str, str]:
        return {n[len(TAGS) :]: sha for n, sha in self.refs.items() if n.startswith(TAGS)}

    def merged(self, other: "RefListing") -> "RefListing":
        return RefListing({**self.refs, **other.refs}, self.head or other.head)


def _is_sha(text: str) -> bool:
    return len(text) == _SHA_LENGTH and all(c in "0123456789abcdef" for c in text)


def parse_ls_remote(output: str, *, repo: str) -> RefListing:
    """Parse ls-remote output; a malformed line is a GitError naming the repository."""
    refs: dict[str, str] = {}
    peeled: dict[str, str] = {}
    head: str | None = None
    for number, line in enumerate(output.splitlines(), start=1):
        if not line:
            continue
        sha, sep, name = line.partition("\t")
        sha = sha.lower()
        if not sep or not name or not _is_sha(sha):
            raise GitError(
                f"{repo}: git ls-remote printed an unexpected line {number}: {line[:120]!r}"
            )
        if name == "HEAD":
            head = sha
        elif name.endswith(PEELED_SUFFIX):
            peeled[name[: -len(PEELED_SUFFIX)]] = sha
        else:
            refs[name] = sha
    refs.update({name: sha for name, sha in peeled.items() if name in refs})
    return RefListing(dict(sorted(refs.items())), head)
