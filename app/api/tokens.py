"""Bearer tokens: who may call the API, for which projects, until when.

Tokens come from configuration only: `SLUICE_API_TOKENS` (comma-separated; each entry a
token, or `name=token`) gives full access; a token file (`SLUICE_API_TOKEN_FILE`, YAML or
JSON) can scope tokens:

    tokens:
      - name: ci-team-a
        sha256: 9f86d081884c7d65...   # or `token: <the token>`; the digest keeps it off disk
        projects: ["team-a-*"]        # project globs (default: every project)
        readOnly: true                # GET only (default false)
        expiresAt: "2027-01-01T00:00:00Z"
        groups: ["org:ci"]            # groups for argocd-rbac-cm lines (as OIDC groups)

Each token is a subject of Sluice's RBAC (`app.engine.rbac`) under its name, with the
policy lines `rules` generates from its fields: every project and not read-only is
`role:admin`, read-only `role:readonly`; limited to projects, it may get (read-only) or
do anything to (otherwise) the applications and repositories of those projects, and get
the projects.
argocd-rbac-cm lines naming the token or its groups apply to it too.

A presented token is hashed and compared with every configured digest in constant time
(`hmac.compare_digest`, no early exit), so timing reveals neither which token nor how much
of it matched. A token that matches nothing, or has expired, is refused: there is no
anonymous access, and with no token configured every request is refused.
"""

import datetime as dt
import hashlib
import hmac
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from app.engine.rbac import names as n
from app.engine.rbac.builtin import ADMIN, READONLY
from app.engine.rbac.policy import Rule, allow, member
from app.model.timestamps import format_time, parse_time

MAX_TOKEN_FILE_BYTES = 1 << 20
MAX_TOKEN_LENGTH = 4096
MIN_TOKEN_LENGTH = 16
ENV_TOKENS = "SLUICE_API_TOKENS"
ENV_TOKEN_FILE = "SLUICE_API_TOKEN_FILE"  # noqa: S105 - a variable name
LOCAL_TOKEN_FILE = "api-token"  # noqa: S105 - a file name
SESSION_COOKIE = "sluice_session"
"""The cookie a browser session carries its token in (`app.api.handlers.session`)."""
"""The token `sluice up` keeps in its state directory (`ensure_local_token`)."""


class TokenConfigError(ValueError):
    """The token configuration cannot be used; the message names the place, never a token."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a configured token speaks for, and what it may touch."""

    name: str
    projects: tuple[str, ...] = ("*",)
    """Globs of the projects whose apps this token may use; others do not exist for it."""
    read_only: bool = False
    groups: tuple[str, ...] = ()
    """Groups argocd-rbac-cm lines may name (standing for an OIDC token's groups claim)."""

    def rules(self) -> list[Rule]:
        """The policy lines that give this token what its fields say."""
        if self.projects == ("*",):
            return [member(self.name, READONLY if self.read_only else ADMIN)]
        found: list[Rule] = []
        for pattern in self.projects:
            apps = f"{pattern}/*"
            found += [
                allow(self.name, n.APPLICATIONS, n.GET, apps),
                allow(self.name, n.LOGS, n.GET, apps),
                allow(self.name, n.PROJECTS, n.GET, pattern),
                allow(self.name, n.REPOSITORIES, n.GET, apps),
            ]
            if not self.read_only:
                found += [
                    allow(self.name, n.APPLICATIONS, "*", apps),
                    allow(self.name, n.APPLICATIONSETS, "*", apps),
                    allow(self.name, n.REPOSITORIES, "*", apps),
                ]
        return found


@dataclass(frozen=True, slots=True)
class Token:
    principal: Principal
    digest: bytes
    expires_at: dt.datetime | None = None


class Refused(Exception):
    """The presented token is not accepted; the text says why (without the token)."""


def digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class TokenSet:
    """The configured tokens; `authenticate` maps a presented token to its principal."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens

    def __len__(self) -> int:
        return len(self.tokens)

    def rules(self) -> list[Rule]:
        """Every configured token's policy lines."""
        return [rule for token in self.tokens for rule in token.principal.rules()]

    def authenticate(self, presented: str, now: dt.datetime | None = None) -> Principal:
        if not self.tokens:
            raise Refused(
                f"no API tokens are configured; set {ENV_TOKENS} or {ENV_TOKEN_FILE} on the server"
            )
        if not presented or len(presented) > MAX_TOKEN_LENGTH:
            raise Refused("invalid bearer token")
        wanted = digest(presented)
        found: Token | None = None
        for token in self.tokens:
            if hmac.compare_digest(token.digest, wanted) and found is None:
                found = token
        if found is None:
            raise Refused("invalid bearer token")
        moment = now or dt.datetime.now(dt.UTC)
        if found.expires_at is not None and moment >= found.expires_at:
            raise Refused(
                f"token {found.principal.name!r} expired at "
                f"{format_time(found.expires_at, timespec='auto')}; ask for a new one"
            )
        return found.principal


def _check_token(token: str, where: str) -> str:
    token = token.strip()
    if len(token) < MIN_TOKEN_LENGTH or len(token) > MAX_TOKEN_LENGTH:
        raise TokenConfigError(
            f"{where}: a token must be {MIN_TOKEN_LENGTH}-{MAX_TOKEN_LENGTH} characters "
            "(e.g. `openssl rand -hex 32`)"
        )
    return token


def from_env_list(text: str) -> list[Token]:
    """`SLUICE_API_TOKENS`: comma-separated `token` or `name=token`, all with full access."""
    tokens = []
    for i, entry in enumerate(p.strip() for p in text.split(",")):
        if not entry:
            continue
        name, sep, value = entry.partition("=")
        if not sep:
            name, value = f"token-{i + 1}", entry
        where = f"{ENV_TOKENS} entry {i + 1}"
        tokens.append(
            Token(Principal(name.strip() or f"token-{i + 1}"), digest(_check_token(value, where)))
        )
    return tokens


def _expiry(value: Any, where: str) -> dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = parse_time(value, default_zone=dt.UTC)
        except ValueError as e:
            raise TokenConfigError(f"{where}.expiresAt: {e}") from None
    else:
        raise TokenConfigError(f"{where}.expiresAt: expected an RFC 3339 time string")
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _string_list(value: Any, where: str, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise TokenConfigError(f"{where}: expected a non-empty list of {what}")
    if any(v.startswith("!") or "," in v for v in value):
        raise TokenConfigError(
            f"{where}: a {what[:-1]} cannot start with `!` or hold a comma; deny with "
            "argocd-rbac-cm lines instead"
        )
    return tuple(v.strip() for v in value)


def _entry(doc: Any, where: str) -> Token:
    if not isinstance(doc, dict):
        raise TokenConfigError(f"{where}: expected a mapping with name and token or sha256")
    unknown = set(doc) - {"name", "token", "sha256", "projects", "readOnly", "expiresAt", "groups"}
    if unknown:
        raise TokenConfigError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TokenConfigError(f"{where}.name: expected a non-empty string")
    token, hashed = doc.get("token"), doc.get("sha256")
    if (token is None) == (hashed is None):
        raise TokenConfigError(f"{where}: set exactly one of token and sha256")
    if token is not None:
        if not isinstance(token, str):
            raise TokenConfigError(f"{where}.token: expected a string")
        value = digest(_check_token(token, f"{where}.token"))
    else:
        try:
            value = bytes.fromhex(str(hashed))
        except ValueError:
            value = b""
        if len(value) != hashlib.sha256().digest_size:
            raise TokenConfigError(f"{where}.sha256: expected 64 hex digits (sha256 of the token)")
    read_only = doc.get("readOnly", False)
    if not isinstance(read_only, bool):
        raise TokenConfigError(f"{where}.readOnly: expected true or false")
    projects = (
        _string_list(doc["projects"], f"{where}.projects", "project globs")
        if "projects" in doc
        else ("*",)
    )
    groups = _string_list(doc["groups"], f"{where}.groups", "groups") if "groups" in doc else ()
    if "," in name or name.startswith("proj:"):
        raise TokenConfigError(f"{where}.name: a name cannot hold a comma or start with proj:")
    principal = Principal(name.strip(), projects, read_only, groups)
    return Token(principal, value, _expiry(doc.get("expiresAt"), where))


def from_file(path: Path) -> list[Token]:
    """Tokens from a YAML/JSON token file; TokenConfigError names the entry and field."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_TOKEN_FILE_BYTES + 1)
    except OSError as e:
        raise TokenConfigError(f"token file {path}: cannot read it ({e.strerror})") from None
    if len(data) > MAX_TOKEN_FILE_BYTES:
        raise TokenConfigError(f"token file {path}: larger than {MAX_TOKEN_FILE_BYTES} bytes")
    try:
        doc = yaml.safe_load(data)
    except yaml.YAMLError as e:
        raise TokenConfigError(
            f"token file {path}: not YAML or JSON ({type(e).__name__})"
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("tokens"), list):
        raise TokenConfigError(f"token file {path}: expected a mapping with a `tokens` list")
    return [_entry(item, f"token file {path}: tokens[{i}]") for i, item in enumerate(doc["tokens"])]


def load(env: Mapping[str, str] | None = None) -> TokenSet:
    """Every token the environment configures (the list variable, then the file)."""
    e = os.environ if env is None else env
    tokens = from_env_list(e.get(ENV_TOKENS, ""))
    file = e.get(ENV_TOKEN_FILE, "").strip()
    if file:
        tokens.extend(from_file(Path(file)))
    names = [t.principal.name for t in tokens]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise TokenConfigError(f"API token names must be unique; repeated: {', '.join(duplicates)}")
    return TokenSet(tokens)


def ensure_local_token(state_dir: Path) -> str:
    """The token of a local `sluice up` in `<state_dir>/api-token`, made (mode 0600) if absent."""
    path = state_dir / LOCAL_TOKEN_FILE
    try:
        token = path.read_text().strip()
        if token:
            return _check_token(token, str(path))
    except FileNotFoundError:
        pass
    token = secrets.token_hex(32)
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token
