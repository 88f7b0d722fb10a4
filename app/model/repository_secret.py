"""Argo CD repository Secrets and credential templates, read and written unchanged.

A Secret in the Argo CD namespace labelled `argocd.argoproj.io/secret-type: repository`
registers one repository; one labelled `…: repo-creds` is a credential template for every
repository whose URL it prefixes (Argo CD's declarative setup, `util/db/repository_secrets.go`).
Their `data` keys, each base64 as the API server returns them (`stringData` is folded into
`data` by the API server):

- `url` (required), `type` (`git` default, `helm`, `oci`), `name`, `project` (repository
  Secrets only: the AppProject it is scoped to).
- HTTPS: `username`, `password`, `bearerToken`, `tlsClientCertData`, `tlsClientCertKey`
  (PEM), `insecure`, `forceHttpBasicAuth`, `proxy`, `noProxy`.
- SSH: `sshPrivateKey`, `insecureIgnoreHostKey`.
- GitHub App: `githubAppID`, `githubAppInstallationID` (integers), `githubAppPrivateKey`
  (PEM), `githubAppEnterpriseBaseUrl`.
- `enableLfs`, `enableOCI` (booleans, `"true"`).

Booleans are Go's `strconv.ParseBool` spellings; anything else names the field. Unknown
keys are ignored, as Argo CD ignores them. Parsing is pure; every error names the Secret
and the field and never echoes a value. Secret fields are kept out of `repr`.

Writing (`secret_manifest`) produces the Secret Argo CD's API would: named
`repo-<fnv32a(url+project)>` or `creds-<fnv32a(url)>`, labelled, with the non-empty fields
as `data`.
"""

import base64
import binascii
import enum
from dataclasses import dataclass, field, fields, replace
from urllib.parse import urlsplit

from app.model.errors import SpecError
from app.model.resource import KubeObject

TYPE_LABEL = "argocd.argoproj.io/secret-type"
TYPE_REPOSITORY = "repository"
TYPE_REPO_CREDS = "repo-creds"
LABEL_SELECTOR = f"{TYPE_LABEL} in ({TYPE_REPOSITORY},{TYPE_REPO_CREDS})"
"""The label selector that finds repository Secrets and credential templates."""
KNOWN_HOSTS_CONFIGMAP = "argocd-ssh-known-hosts-cm"
KNOWN_HOSTS_KEY = "ssh_known_hosts"
TLS_CERTS_CONFIGMAP = "argocd-tls-certs-cm"
MAX_SECRET_BYTES = 256 * 1024
"""A Secret whose decoded data is larger than this (256 KiB) is refused."""

_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("", "0", "f", "F", "FALSE", "false", "False")


class RepoKind(enum.StrEnum):
    REPOSITORY = TYPE_REPOSITORY
    TEMPLATE = TYPE_REPO_CREDS


class RepoType(enum.StrEnum):
    GIT = "git"
    HELM = "helm"
    OCI = "oci"


class RepositorySecretError(SpecError):
    """A repository Secret that cannot be used; the message names the Secret and the field."""


@dataclass(frozen=True, slots=True)
class RepoCreds:
    """The credential fields of a repository Secret or a template (all optional)."""

    username: str = ""
    password: str = field(default="", repr=False)
    bearer_token: str = field(default="", repr=False)
    ssh_private_key: str = field(default="", repr=False)
    tls_client_cert_data: str = field(default="", repr=False)
    tls_client_cert_key: str = field(default="", repr=False)
    github_app_id: int = 0
    github_app_installation_id: int = 0
    github_app_private_key: str = field(default="", repr=False)
    github_app_enterprise_base_url: str = ""
    insecure: bool = False
    insecure_ignore_host_key: bool = False
    force_http_basic_auth: bool = False
    proxy: str = field(default="", repr=False)
    no_proxy: str = ""
    enable_lfs: bool = False
    enable_oci: bool = False

    @property
    def has_credentials(self) -> bool:
        """Whether any credential is set (Argo CD's `HasCredentials`): then no template applies."""
        return bool(
            self.username
            or self.password
            or self.bearer_token
            or self.ssh_private_key
            or self.tls_client_cert_data
            or self.github_app_private_key
        )

    def filled_from(self, template: "RepoCreds") -> "RepoCreds":
        """These fields, with every empty one taken from `template` (the repository's win)."""
        changes = {}
        for f in fields(self):
            if f.name in ("insecure", "insecure_ignore_host_key", "enable_lfs"):
                continue
            mine, theirs = getattr(self, f.name), getattr(template, f.name)
            if not mine and theirs:
                changes[f.name] = theirs
        return replace(self, **changes)

    def secrets(self) -> list[str]:
        """Every secret value, for the redactor."""
        values = [
            self.password,
            self.bearer_token,
            self.ssh_private_key,
            self.tls_client_cert_key,
            self.github_app_private_key,
            _proxy_password(self.proxy),
        ]
        return [v for v in values if v]


@dataclass(frozen=True, slots=True)
class RepositorySecret:
    """One repository Secret or credential template, as its Secret describes it."""

    secret: str
    """`<namespace>/<name>` of the Secret: how messages name where it came from."""
    kind: RepoKind
    url: str
    type: RepoType = RepoType.GIT
    name: str = ""
    project: str = ""
    creds: RepoCreds = field(default_factory=RepoCreds)

    @property
    def source(self) -> str:
        word = "repository" if self.kind is RepoKind.REPOSITORY else "repo-creds"
        return f"{word} Secret {self.secret}"


# Secret data key → RepoCreds attribute, and how the value is read.
_STRINGS = {
    "username": "username",
    "password": "password",
    "bearerToken": "bearer_token",
    "sshPrivateKey": "ssh_private_key",
    "tlsClientCertData": "tls_client_cert_data",
    "tlsClientCertKey": "tls_client_cert_key",
    "githubAppPrivateKey": "github_app_private_key",
    "githubAppEnterpriseBaseUrl": "github_app_enterprise_base_url",
    "proxy": "proxy",
    "noProxy": "no_proxy",
}
_INTEGERS = {
    "githubAppID": "github_app_id",
    "githubAppInstallationID": "github_app_installation_id",
}
_BOOLEANS = {
    "insecure": "insecure",
    "insecureIgnoreHostKey": "insecure_ignore_host_key",
    "forceHttpBasicAuth": "force_http_basic_auth",
    "enableLfs": "enable_lfs",
    "enableOCI": "enable_oci",
}
_SECRET_STRINGS = ("password", "bearerToken")
_PEM_FIELDS = ("sshPrivateKey", "tlsClientCertData", "tlsClientCertKey", "githubAppPrivateKey")


def secret_ref(obj: KubeObject) -> str:
    """`<namespace>/<name>` of a Secret object."""
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def secret_kind(obj: KubeObject) -> RepoKind | None:
    """Which of the two a Secret is by its label, or None for any other Secret."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    value = labels.get(TYPE_LABEL) if isinstance(labels, dict) else None
    try:
        return RepoKind(value) if isinstance(value, str) else None
    except ValueError:
        return None


def claimed_url(obj: KubeObject) -> str:
    """The `url` a Secret claims, read leniently ("" where unreadable): what a refused
    Secret is reported under."""
    raw = obj.get("data")
    value = raw.get("url") if isinstance(raw, dict) else None
    try:
        return base64.b64decode(str(value or ""), validate=True).decode("utf-8").strip()
    except (binascii.Error, UnicodeDecodeError):
        return ""


def parse_repository_secret(obj: KubeObject) -> RepositorySecret:
    """The repository or template a Secret describes; RepositorySecretError naming the field."""
    ref = secret_ref(obj)
    kind = secret_kind(obj)
    if kind is None:
        raise RepositorySecretError(
            f"metadata.labels.{TYPE_LABEL}",
            f"must be {TYPE_REPOSITORY!r} or {TYPE_REPO_CREDS!r}",
            source=f"Secret {ref}",
        )
    word = "repository" if kind is RepoKind.REPOSITORY else "repo-creds"
    source = f"{word} Secret {ref}"
    data = _data(obj, source)
    url = data.get("url", "").strip()
    if not url:
        raise RepositorySecretError(
            "data.url", "is missing: give the repository URL", source=source
        )
    raw_type = data.get("type", "").strip() or RepoType.GIT.value
    try:
        repo_type = RepoType(raw_type)
    except ValueError:
        raise RepositorySecretError(
            "data.type", "must be git, helm or oci", source=source
        ) from None
    values: dict[str, object] = {}
    for key, attr in _STRINGS.items():
        text = data.get(key, "")
        if key in _PEM_FIELDS and text and "-----BEGIN " not in text:
            raise RepositorySecretError(
                f"data.{key}", "does not hold PEM data (-----BEGIN ...)", source=source
            )
        if key in _PEM_FIELDS:
            values[attr] = text
            continue
        value = text.strip("\r\n") if key in _SECRET_STRINGS else text.strip()
        if any(c in value for c in "\r\n\0"):
            raise RepositorySecretError(
                f"data.{key}", "must be one line (no line breaks or NUL)", source=source
            )
        values[attr] = value
    for key, attr in _INTEGERS.items():
        text = data.get(key, "").strip()
        if text and not (text.isascii() and text.isdigit() and len(text) <= 18):
            raise RepositorySecretError(f"data.{key}", "must be a whole number", source=source)
        values[attr] = int(text) if text else 0
    for key, attr in _BOOLEANS.items():
        text = data.get(key, "").strip()
        if text not in _TRUE and text not in _FALSE:
            raise RepositorySecretError(f"data.{key}", "must be true or false", source=source)
        values[attr] = text in _TRUE
    creds = RepoCreds(**values)  # type: ignore[arg-type]
    _check_creds(creds, source)
    project = data.get("project", "").strip()
    if project and kind is RepoKind.TEMPLATE:
        project = ""
    return RepositorySecret(
        secret=ref,
        kind=kind,
        url=url,
        type=repo_type,
        name=data.get("name", "").strip(),
        project=project,
        creds=creds,
    )


def _check_creds(creds: RepoCreds, source: str) -> None:
    if bool(creds.tls_client_cert_data) != bool(creds.tls_client_cert_key):
        raise RepositorySecretError(
            "data.tlsClientCertKey" if creds.tls_client_cert_data else "data.tlsClientCertData",
            "is missing: a client certificate needs both tlsClientCertData and tlsClientCertKey",
            source=source,
        )
    app_fields = (creds.github_app_id, creds.github_app_installation_id)
    if creds.github_app_private_key and not all(app_fields):
        missing = "githubAppID" if not creds.github_app_id else "githubAppInstallationID"
        raise RepositorySecretError(
            f"data.{missing}",
            "is missing: a GitHub App needs its ID and installation ID",
            source=source,
        )
    for key, value in (
        ("proxy", creds.proxy),
        ("githubAppEnterpriseBaseUrl", creds.github_app_enterprise_base_url),
    ):
        if not value:
            continue
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https", "socks5") or not parts.hostname:
            raise RepositorySecretError(
                f"data.{key}", "must be an http(s) URL with a host", source=source
            )


def _data(obj: KubeObject, source: str) -> dict[str, str]:
    raw = obj.get("data") or {}
    if not isinstance(raw, dict):
        raise RepositorySecretError("data", "must be a map of base64 values", source=source)
    decoded: dict[str, str] = {}
    total = 0
    for key, value in raw.items():
        if not isinstance(value, str):
            raise RepositorySecretError(f"data.{key}", "must be a base64 string", source=source)
        try:
            decoded[str(key)] = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise RepositorySecretError(
                f"data.{key}", "is not base64-encoded UTF-8 text", source=source
            ) from None
        total += len(decoded[str(key)])
        if total > MAX_SECRET_BYTES:
            raise RepositorySecretError(
                "data", f"holds more than {MAX_SECRET_BYTES} bytes", source=source
            )
    return decoded


def _proxy_password(proxy: str) -> str:
    try:
        return urlsplit(proxy).password or ""
    except ValueError:
        return ""


def _fnv32a(text: str) -> int:
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def secret_name(kind: RepoKind, url: str, project: str = "") -> str:
    """The Secret name Argo CD's API gives a repository (`repo-…`) or template (`creds-…`)."""
    if kind is RepoKind.REPOSITORY:
        return f"repo-{_fnv32a(url + project)}"
    return f"creds-{_fnv32a(url)}"


def secret_data(record: RepositorySecret) -> dict[str, str]:
    """The Secret `data` (base64) that describes `record`: only the fields that are set."""
    plain: dict[str, str] = {"url": record.url}
    if record.type is not RepoType.GIT or record.kind is RepoKind.REPOSITORY:
        plain["type"] = record.type.value
    if record.name:
        plain["name"] = record.name
    if record.project and record.kind is RepoKind.REPOSITORY:
        plain["project"] = record.project
    creds = record.creds
    for key, attr in _STRINGS.items():
        if value := getattr(creds, attr):
            plain[key] = value
    for key, attr in _INTEGERS.items():
        if number := getattr(creds, attr):
            plain[key] = str(number)
    for key, attr in _BOOLEANS.items():
        if getattr(creds, attr):
            plain[key] = "true"
    return {k: base64.b64encode(v.encode()).decode() for k, v in plain.items()}


def secret_manifest(record: RepositorySecret, namespace: str, name: str) -> KubeObject:
    """The Secret object for `record`, in Argo CD's shape."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {TYPE_LABEL: record.kind.value},
            "annotations": {"managed-by": "argocd.argoproj.io"},
        },
        "type": "Opaque",
        "data": secret_data(record),
    }


def parse_tls_certs(data: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """`argocd-tls-certs-cm`'s data: server name (lower-cased) → PEM bundle, and the keys
    refused because they hold no certificate (the others stay usable)."""
    bundles: dict[str, str] = {}
    refused: list[str] = []
    for server, pem in sorted(data.items()):
        if "-----BEGIN CERTIFICATE-----" in pem:
            bundles[server.strip().lower()] = pem
        else:
            refused.append(server)
    return bundles, refused
