"""Which credentials a repository URL gets, for which project, from Argo CD's Secrets.

The store holds the repository Secrets and credential templates (repo-creds) a process
follows (`app.model.repository_secret`), each checked here against the URL rules, and
answers "credentials for URL X, for an app of project P" as Argo CD does:

1. A repository Secret whose URL is the same repository (transport, host, port and path
   equal; host case and a trailing `.git` ignored) and that is scoped to P, else one
   scoped to no project. A Secret scoped to another project never applies.
2. When that Secret carries no credential of its own (or there is none), the template
   with the longest URL prefix covering the repository fills in the credential fields;
   a repository Secret's own fields always win.

Templates match by whole path segments (`https://github.com/org` covers
`https://github.com/org/app` but never `https://github.com/organisation/app` or
`https://github.com.evil.example/org/app`): stricter than Argo CD's plain string prefix,
so a credential can never reach a lookalike repository (docs/decisions.md).

`scope` says which cache an access may share: "" when the credentials are open to every
project, else the project whose scoped Secret gave them, so a project-scoped repository's
commits, listings and renders are never served to an app of another project.

A Secret that could not be used is kept as `Refused`: a repository it would have matched
gets a `CredentialError` naming the Secret and the field instead of a silent anonymous
fetch. Secrets never appear in `repr`; `secrets()` feeds the redactor.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.model.repository_secret import RepoCreds, RepoKind, RepositorySecret, RepoType
from app.repo.errors import RepoError, RepoURLError
from app.repo.urls import RepoURL, parse_repo_url

DEFAULT_HTTPS_USERNAME = "x-access-token"
"""The HTTPS user for tokens (what GitHub and Argo CD use when no username is set)."""


class CredentialError(RepoError):
    """The credentials configured for a repository cannot be used; the text says which
    Secret and field to fix."""


@dataclass(frozen=True, slots=True)
class RepoCredential:
    """One repository Secret or template, checked: the URL it is for and what it gives."""

    url: str
    """Repository URL (kind REPOSITORY) or URL prefix (TEMPLATE)."""
    creds: RepoCreds = field(default_factory=RepoCreds, repr=False)
    kind: RepoKind = RepoKind.REPOSITORY
    project: str = ""
    source: str = ""
    """Where it came from, for messages: `repository Secret sluice/repo-1`."""
    parsed: RepoURL = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = self.source or "credential"
        template = self.kind is RepoKind.TEMPLATE
        parsed = parse_repo_url(self.url, field=f"{where}: data.url", prefix=template)
        if parsed.is_local:
            raise RepoURLError(f"{where}: data.url: local repositories need no credentials")
        if parsed.password:
            raise RepoURLError(
                f"{where}: data.url: put the password in data.password, not in the URL"
            )
        object.__setattr__(self, "parsed", parsed)

    @classmethod
    def of(cls, record: RepositorySecret) -> "RepoCredential":
        """The checked form of a parsed Secret; RepoURLError naming `data.url` otherwise."""
        return cls(registry_url(record), record.creds, record.kind, record.project, record.source)

    def secrets(self) -> list[str]:
        return self.creds.secrets()


def registry_url(record: RepositorySecret) -> str:
    """The URL a Secret is matched under: an OCI registry's (`url: oci://host/path`, or
    Argo CD's scheme-less `host/path` with `enableOCI` or `type: oci`) as
    `https://host/path`, the registry over HTTPS; any other URL as written."""
    url = record.url
    if url.startswith("oci://"):
        return "https://" + url.removeprefix("oci://")
    registry = record.creds.enable_oci or record.type is RepoType.OCI
    if registry and "://" not in url and not url.startswith("/"):
        return f"https://{url}"
    return url


def is_registry(record: RepositorySecret) -> bool:
    """Whether a repository Secret is for an OCI registry (an `oci://` URL, `type: oci`,
    or `enableOCI`), as Argo CD reads it."""
    return record.url.startswith("oci://") or record.type is RepoType.OCI or record.creds.enable_oci


@dataclass(frozen=True, slots=True)
class Refused:
    """A Secret that could not be used, under the URL it claims."""

    kind: RepoKind
    url: str
    source: str
    problem: str


@dataclass(frozen=True, slots=True)
class Resolved:
    """What one repository URL gets for one project."""

    creds: RepoCreds = field(repr=False)
    sources: tuple[str, ...]
    """The Secrets the fields came from, repository first (for messages and logs)."""
    scope: str
    """"" for credentials every project may use, else the scoping project."""

    @property
    def source(self) -> str:
        return " + ".join(self.sources)


def _segments(path: str) -> list[str]:
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    return [s for s in path.split("/") if s]


def _same_server(a: RepoURL, b: RepoURL) -> bool:
    return a.transport is b.transport and a.host == b.host and a.effective_port == b.effective_port


def covers(credential: RepoURL, repo: RepoURL) -> bool:
    """True when a template for `credential` may be sent for repository `repo`."""
    if not _same_server(credential, repo):
        return False
    prefix, path = _segments(credential.path), _segments(repo.path)
    return path[: len(prefix)] == prefix


def same_repository(a: RepoURL, b: RepoURL) -> bool:
    """True when a repository Secret for `a` is the Secret of repository `b`."""
    return _same_server(a, b) and _segments(a.path) == _segments(b.path)


def _claims(refused: Refused, repo: RepoURL) -> bool:
    try:
        claimed = parse_repo_url(refused.url, prefix=refused.kind is RepoKind.TEMPLATE)
    except RepoURLError:
        return False
    if refused.kind is RepoKind.REPOSITORY:
        return same_repository(claimed, repo)
    return covers(claimed, repo)


class CredentialStore:
    """The usable repository Secrets and templates, and the refused ones."""

    def __init__(
        self, credentials: Iterable[RepoCredential] = (), refused: Iterable[Refused] = ()
    ) -> None:
        entries = list(credentials)
        self.repositories = [c for c in entries if c.kind is RepoKind.REPOSITORY]
        self.templates = sorted(
            (c for c in entries if c.kind is RepoKind.TEMPLATE),
            key=lambda c: len(_segments(c.parsed.path)),
            reverse=True,
        )
        self.refused = list(refused)

    def repository(self, repo: RepoURL, project: str) -> RepoCredential | None:
        """The repository Secret for `repo` an app of `project` uses, if any."""
        unscoped = None
        for credential in self.repositories:
            if not same_repository(credential.parsed, repo):
                continue
            if credential.project and credential.project == project:
                return credential
            if not credential.project and unscoped is None:
                unscoped = credential
        return unscoped

    def template(self, repo: RepoURL) -> RepoCredential | None:
        """The template with the longest prefix covering `repo`, if any."""
        return next((t for t in self.templates if covers(t.parsed, repo)), None)

    def for_url(self, repo: RepoURL, project: str = "") -> Resolved | None:
        """What `repo` gets for an app of `project`; None for none (public, or local, or a
        URL carrying its own password). CredentialError when a refused Secret claims it."""
        if repo.is_local or repo.password:
            return None
        own = self.repository(repo, project)
        template = None if own is not None and own.creds.has_credentials else self.template(repo)
        self._check_refused(repo, own, template)
        if own is None and template is None:
            return None
        scope = own.project if own is not None else ""
        if own is None:
            assert template is not None
            return Resolved(template.creds, (template.source,), scope)
        if template is None:
            return Resolved(own.creds, (own.source,), scope)
        return Resolved(own.creds.filled_from(template.creds), (own.source, template.source), scope)

    def _check_refused(
        self, repo: RepoURL, own: RepoCredential | None, template: RepoCredential | None
    ) -> None:
        for refused in self.refused:
            if not _claims(refused, repo):
                continue
            if refused.kind is RepoKind.REPOSITORY and own is not None:
                continue
            if refused.kind is RepoKind.TEMPLATE and (
                (own is not None and own.creds.has_credentials)
                or (
                    template is not None
                    and len(_segments(template.parsed.path))
                    >= len(_segments(parse_repo_url(refused.url, prefix=True).path))
                )
            ):
                continue
            raise CredentialError(
                f"{repo.display}: {refused.source} cannot be used: {refused.problem}; fix the "
                "Secret and it is read again"
            )

    def secrets(self) -> list[str]:
        return [s for c in [*self.repositories, *self.templates] for s in c.secrets()]
