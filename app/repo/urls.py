"""Repository URLs: parsing, the display form, and the two normalizations.

Argo CD users write the same repository in several ways: `https://github.com/org/repo`,
`https://github.com/org/repo.git`, `git@github.com:org/repo.git`,
`ssh://git@github.com:22/org/repo`. Two keys say when these are "the same":

- `match_key` (webhooks, SEMANTICS §8): case-insensitive throughout, ignoring scheme, user,
  port, a trailing `.git` or `/`, and an `ssh.`/`altssh.` host prefix, as Argo CD's webhook
  regex does. `same_repo` compares two URLs by it. Loose on purpose: a false match costs
  one extra refresh.
- `cache_key` (the bare cache a fetch goes into): host case-insensitive, path
  case-sensitive, port kept unless it is the scheme's default, user and `.git` dropped.
  Stricter, because two repositories sharing a cache could read each other's commits.

Only https, http, ssh (URL and scp `user@host:path` forms) and local paths / `file://`
parse; anything else (`ext::`, `git://`, options disguised as URLs) is refused here, before
git ever sees it.
"""

import enum
import posixpath
import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from app.repo.errors import RepoURLError
from app.repo.redact import redact

MAX_URL_LENGTH = 2048


class Transport(enum.StrEnum):
    HTTPS = "https"
    HTTP = "http"
    SSH = "ssh"
    LOCAL = "file"


DEFAULT_PORTS = {Transport.HTTPS: 443, Transport.HTTP: 80, Transport.SSH: 22}
_SSH_SCHEMES = {"ssh", "git+ssh", "ssh+git"}
_SCP = re.compile(r"^(?:(?P<user>[^@/:]+)@)?(?P<host>[^@/:\[\]]+|\[[0-9A-Fa-f:.]+\]):(?P<path>.*)$")
_HOSTNAME = re.compile(r"^[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?$")
_IPV6 = re.compile(r"^[0-9a-f:.]+$")
_WEB_HOST_PREFIXES = ("altssh.", "ssh.")


@dataclass(frozen=True, slots=True)
class RepoURL:
    """A parsed repository URL. `repr` and `display` never show a password."""

    transport: Transport
    host: str
    """Lower-cased host name ("" for local repositories)."""
    port: int | None
    user: str
    path: str
    """Network: the path without its leading `/`, as written. Local: the absolute path."""
    password: str = field(default="", repr=False)
    remote: str = field(default="", repr=False)
    """The string handed to git (the URL as written, stripped; may hold credentials)."""

    @property
    def is_local(self) -> bool:
        return self.transport is Transport.LOCAL

    @property
    def effective_port(self) -> int | None:
        return self.port if self.port is not None else DEFAULT_PORTS.get(self.transport)

    @property
    def host_port(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}" if self.port is not None else host

    @property
    def display(self) -> str:
        """The URL as shown to users: no password, no https user, canonical scheme."""
        if self.transport is Transport.LOCAL:
            return f"file://{self.path}"
        if self.transport is Transport.SSH:
            user = f"{self.user}@" if self.user else ""
            return f"ssh://{user}{self.host_port}/{self.path}"
        return f"{self.transport.value}://{self.host_port}/{self.path}"

    @property
    def without_userinfo(self) -> str:
        """The URL git is given, minus any `user:password@` (what credentials are scoped to)."""
        if self.transport is Transport.LOCAL:
            return self.path
        if self.transport is Transport.SSH:
            return self.display
        return f"{self.transport.value}://{self.host_port}/{self.path}"


def _fail(field_name: str, text: str, problem: str) -> RepoURLError:
    shown = text if len(text) <= 200 else text[:200] + "…"
    safe = redact(shown)
    return RepoURLError(f"{field_name}: {safe!r} {problem}")


def _check_host(host: str, field_name: str, text: str) -> str:
    host = host.lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    valid = _IPV6.match(host) if ":" in host else _HOSTNAME.match(host)
    if not host or not valid:
        raise _fail(field_name, text, "has an invalid host name")
    return host


def _check_network_path(path: str, field_name: str, text: str, *, prefix: bool = False) -> str:
    path = path.lstrip("/")
    if not path.strip("/") and not prefix:
        raise _fail(field_name, text, "names a host but no repository path")
    for segment in path.split("/"):
        if unquote(segment) in (".", ".."):
            raise _fail(
                field_name, text, "contains '.' or '..' path segments; write the path plainly"
            )
    return path


def _parse_network(text: str, scheme: str, field_name: str, *, prefix: bool) -> RepoURL:
    transport = Transport.SSH if scheme in _SSH_SCHEMES else Transport(scheme)
    try:
        parts = urlsplit(text)
    except ValueError as e:
        raise _fail(field_name, text, f"is not a valid URL ({e})") from None
    if parts.query or parts.fragment:
        raise _fail(field_name, text, "must not contain a query string or fragment")
    try:
        port = parts.port
    except ValueError:
        raise _fail(field_name, text, "has an invalid port") from None
    host = _check_host(parts.hostname or "", field_name, text)
    path = _check_network_path(parts.path, field_name, text, prefix=prefix)
    return RepoURL(
        transport=transport,
        host=host,
        port=port,
        user=unquote(parts.username or ""),
        path=path,
        password=unquote(parts.password or ""),
        remote=text,
    )


def _parse_local(path: str, text: str, field_name: str) -> RepoURL:
    path = unquote(path)
    if "\x00" in path or not path.startswith("/"):
        raise _fail(field_name, text, "must be an absolute path (file:///srv/repo or /srv/repo)")
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    return RepoURL(Transport.LOCAL, "", None, "", normalized, remote=normalized)


def parse_repo_url(text: str, *, field: str = "repoURL", prefix: bool = False) -> RepoURL:
    """Parse a repository URL or raise RepoURLError naming `field` and what to write instead.

    `prefix` accepts a URL with no repository path (`https://github.com`): a credential
    template may cover a whole server.
    """
    raw = text.strip()
    if not raw:
        raise RepoURLError(f"{field}: must not be empty")
    if len(raw) > MAX_URL_LENGTH:
        raise _fail(field, raw, f"is longer than {MAX_URL_LENGTH} characters")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in raw):
        raise _fail(field, raw, "contains whitespace or control characters")
    if raw.startswith("-"):
        raise _fail(field, raw, "must not start with '-'")
    if "::" in raw.split("/", 1)[0]:
        raise _fail(field, raw, "uses git's '<transport>::' syntax, which Sluice does not allow")
    if "://" in raw:
        scheme = raw.split("://", 1)[0].lower()
        if scheme in ("https", "http") or scheme in _SSH_SCHEMES:
            return _parse_network(raw, scheme, field, prefix=prefix)
        if scheme == "file":
            rest = raw.split("://", 1)[1]
            if rest.startswith("localhost/"):
                rest = rest[len("localhost") :]
            return _parse_local(rest, raw, field)
        raise _fail(
            field,
            raw,
            f"uses unsupported scheme {scheme!r}: use https://, ssh:// or user@host:path",
        )
    if raw.startswith("/"):
        return _parse_local(raw, raw, field)
    scp = _SCP.match(raw)
    if scp is None:
        raise _fail(
            field,
            raw,
            "is not a repository URL: write https://host/org/repo.git, "
            "git@host:org/repo.git or an absolute local path",
        )
    return RepoURL(
        transport=Transport.SSH,
        host=_check_host(scp["host"], field, raw),
        port=None,
        user=scp["user"] or "",
        path=_check_network_path(scp["path"], field, raw, prefix=prefix),
        remote=raw,
    )


def _trim_repo_path(path: str) -> str:
    path = path.rstrip("/")
    return path[: -len(".git")] if path.endswith(".git") else path


def match_key(url: str | RepoURL) -> str:
    """The key under which webhook payload URLs and Application repoURLs are compared."""
    parsed = parse_repo_url(url) if isinstance(url, str) else url
    if parsed.is_local:
        return f"file://{_trim_repo_path(parsed.path)}"
    host = parsed.host
    for prefix in _WEB_HOST_PREFIXES:
        if host.startswith(prefix):
            host = host[len(prefix) :]
            break
    return f"{host}/{_trim_repo_path(parsed.path).lower()}"


def same_repo(left: str, right: str) -> bool:
    """True when both URLs name the same repository by `match_key`; False if either is invalid."""
    try:
        return match_key(left) == match_key(right)
    except RepoURLError:
        return False


def cache_key(url: str | RepoURL) -> str:
    """The key of the bare cache a repository is fetched into (see the module docstring)."""
    parsed = parse_repo_url(url) if isinstance(url, str) else url
    if parsed.is_local:
        return f"file://{_trim_repo_path(parsed.path)}"
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    if parsed.effective_port != DEFAULT_PORTS[parsed.transport]:
        host = f"{host}:{parsed.port}"
    return f"{host}/{_trim_repo_path(parsed.path)}"
