"""Argo CD cluster Secrets: a destination cluster registered as a Secret, read unchanged.

A Secret in the Argo CD namespace labelled `argocd.argoproj.io/secret-type: cluster`
registers one destination cluster (Argo CD's declarative setup; `util/db/cluster.go`
reads it). Its `data` keys, each base64 as the API server returns them:

- `server` (required): the API server URL; trailing `/` dropped, as Argo CD does.
- `name`: what `spec.destination.name` calls it (optional: without one the cluster is
  reached by `server` only).
- `config`: JSON with the credentials: `bearerToken`, `username`/`password`,
  `tlsClientConfig` {`insecure`, `serverName`, `caData`, `certData`, `keyData`; the data
  fields base64 PEM}, `proxyUrl`, `execProviderConfig` {`command`, `args`, `env`,
  `apiVersion`, `installHint`}, `awsAuthConfig` {`clusterName`, `roleARN`, `profile`}.
  Other keys are ignored, as Go's JSON decoding ignores them. No `config` at all means no
  credentials.
- `namespaces` (comma separated), `clusterResources` (`"true"`), `project`: read and
  carried on the record.

`execProviderConfig` and `awsAuthConfig` run a program for credentials; a Secret anyone
able to write Secrets in the namespace can create must not make Sluice run commands
(docs/threats.md, kubeconfig `exec`), so both are refused unless the operator allows exec.
The in-cluster address names Sluice's own control plane, reached with its own
credentials: a Secret claiming it is refused.

Parsing is pure: every error names the Secret and the field (`data.config.tlsClientConfig.
caData`) and never echoes a credential. Credentials are kept out of `repr`.
"""

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from app.model.errors import SpecError
from app.model.resource import KubeObject

TYPE_LABEL = "argocd.argoproj.io/secret-type"
TYPE_CLUSTER = "cluster"
LABEL_SELECTOR = f"{TYPE_LABEL}={TYPE_CLUSTER}"
"""The label selector that finds cluster Secrets."""
IN_CLUSTER_SERVER = "https://kubernetes.default.svc"
IN_CLUSTER_NAME = "in-cluster"
ALLOW_EXEC_HINT = (
    "Sluice runs no program named in a cluster Secret unless the operator sets "
    "SLUICE_ALLOW_KUBECONFIG_EXEC=true; or put a bearerToken or client certificate in "
    "the config instead"
)
MAX_CONFIG_BYTES = 256 * 1024
"""A `config` larger than this (256 KiB) is refused before it is parsed."""


class ClusterSecretError(SpecError):
    """A cluster Secret that cannot be used; the message names the Secret and the field."""


@dataclass(frozen=True, slots=True)
class TLSClientConfig:
    """`config.tlsClientConfig`: how the API server's certificate is checked, and ours."""

    insecure: bool = False
    """Skip verifying the server's certificate."""
    server_name: str = ""
    """The name the server's certificate is checked against (SNI), if not the URL's host."""
    ca_data: str = field(default="", repr=False)
    """The trusted CA certificates, base64 PEM ("" for the system's)."""
    cert_data: str = field(default="", repr=False)
    """The client certificate, base64 PEM."""
    key_data: str = field(default="", repr=False)
    """The client key, base64 PEM."""


@dataclass(frozen=True, slots=True)
class ExecProvider:
    """`config.execProviderConfig`: a client-go credential plugin to run for a token."""

    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    api_version: str = ""
    install_hint: str = ""


@dataclass(frozen=True, slots=True)
class AWSAuth:
    """`config.awsAuthConfig`: an EKS token obtained with AWS credentials."""

    cluster_name: str
    role_arn: str = ""
    profile: str = ""


@dataclass(frozen=True, slots=True)
class ClusterCredentials:
    """`config`: how Sluice authenticates to the cluster."""

    bearer_token: str = field(default="", repr=False)
    username: str = ""
    password: str = field(default="", repr=False)
    tls: TLSClientConfig = field(default_factory=TLSClientConfig)
    proxy_url: str = field(default="", repr=False)
    exec_provider: ExecProvider | None = None
    aws_auth: AWSAuth | None = None


@dataclass(frozen=True, slots=True)
class ClusterSecret:
    """One registered destination cluster, as its Secret describes it."""

    secret: str
    """`<namespace>/<name>` of the Secret: how messages name where the cluster came from."""
    server: str
    """The API server URL, without a trailing `/`."""
    name: str = ""
    """The cluster's name for `spec.destination.name` ("" if it has none)."""
    credentials: ClusterCredentials = field(default_factory=ClusterCredentials, repr=False)
    namespaces: tuple[str, ...] = ()
    """The namespaces Argo CD would limit itself to there (empty: all)."""
    cluster_resources: bool = False
    """With `namespaces`: whether cluster-scoped kinds are managed too."""
    project: str = ""
    """The project the cluster is scoped to ("" for none)."""

    @property
    def display_name(self) -> str:
        """The name, else the server: how logs and errors name the cluster."""
        return self.name or self.server

    @property
    def source(self) -> str:
        return f"cluster Secret {self.secret}"


def secret_ref(obj: KubeObject) -> str:
    """`<namespace>/<name>` of a Secret object."""
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def parse_cluster_secret(obj: KubeObject, *, allow_exec: bool) -> ClusterSecret:
    """The cluster a Secret registers; ClusterSecretError naming the field otherwise."""
    ref = secret_ref(obj)
    source = f"cluster Secret {ref}"
    data = _data(obj, source)
    server = data.get("server", "").strip().rstrip("/")
    _check_server(server, source)
    config = data.get("config", "")
    credentials = _credentials(config, source, allow_exec) if config else ClusterCredentials()
    namespaces = tuple(ns.strip() for ns in data.get("namespaces", "").split(",") if ns.strip())
    return ClusterSecret(
        secret=ref,
        server=server,
        name=data.get("name", "").strip(),
        credentials=credentials,
        namespaces=namespaces,
        cluster_resources=data.get("clusterResources", "") == "true",
        project=data.get("project", ""),
    )


def _data(obj: KubeObject, source: str) -> dict[str, str]:
    """The Secret's `data`, decoded to text."""
    raw = obj.get("data") or {}
    if not isinstance(raw, dict):
        raise ClusterSecretError("data", "must be a map of base64 values", source=source)
    decoded: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(value, str):
            raise ClusterSecretError(f"data.{key}", "must be a base64 string", source=source)
        try:
            decoded[str(key)] = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise ClusterSecretError(
                f"data.{key}", "is not base64-encoded UTF-8 text", source=source
            ) from None
    return decoded


def _check_server(server: str, source: str) -> None:
    if not server:
        raise ClusterSecretError(
            "data.server",
            "is missing: a cluster Secret must give the API server URL",
            source=source,
        )
    parts = urlsplit(server)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ClusterSecretError(
            "data.server",
            "must be an http(s) URL with a host, e.g. https://10.0.0.1:6443",
            source=source,
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ClusterSecretError(
            "data.server",
            "must not carry credentials, a query or a fragment; put credentials in data.config",
            source=source,
        )
    if server == IN_CLUSTER_SERVER:
        raise ClusterSecretError(
            "data.server",
            f"{IN_CLUSTER_SERVER} is Sluice's own control-plane cluster, reached with its own "
            f"credentials; address it as {IN_CLUSTER_NAME!r} and remove this Secret",
            source=source,
        )


def _credentials(text: str, source: str, allow_exec: bool) -> ClusterCredentials:
    if len(text.encode()) > MAX_CONFIG_BYTES:
        raise ClusterSecretError(
            "data.config", f"is over the {MAX_CONFIG_BYTES}-byte limit", source=source
        )
    try:
        config = json.loads(text)
    except ValueError as e:
        where = (
            f" (line {e.lineno}, column {e.colno})" if isinstance(e, json.JSONDecodeError) else ""
        )
        raise ClusterSecretError(
            "data.config", f"is not valid JSON{where}", source=source
        ) from None
    if not isinstance(config, dict):
        raise ClusterSecretError("data.config", "must be a JSON object", source=source)
    fields = _Fields(config, "data.config", source)
    exec_provider = _exec_provider(fields.map("execProviderConfig"), source)
    aws_auth = _aws_auth(fields.map("awsAuthConfig"), source)
    if (exec_provider or aws_auth) and not allow_exec:
        key = "execProviderConfig" if exec_provider else "awsAuthConfig"
        what = f"command {exec_provider.command!r}" if exec_provider else "the aws CLI"
        raise ClusterSecretError(
            f"data.config.{key}",
            f"would run a program for credentials ({what}); {ALLOW_EXEC_HINT}",
            source=source,
        )
    tls = fields.map("tlsClientConfig")
    tls_fields = _Fields(tls or {}, "data.config.tlsClientConfig", source)
    tls_config = TLSClientConfig(
        insecure=tls_fields.boolean("insecure"),
        server_name=tls_fields.string("serverName"),
        ca_data=tls_fields.pem("caData"),
        cert_data=tls_fields.pem("certData"),
        key_data=tls_fields.pem("keyData"),
    )
    if bool(tls_config.cert_data) != bool(tls_config.key_data):
        raise ClusterSecretError(
            "data.config.tlsClientConfig",
            "certData and keyData go together: give both or neither",
            source=source,
        )
    username, password = fields.string("username"), fields.string("password")
    if password and not username:
        raise ClusterSecretError(
            "data.config.username", "is missing while a password is given", source=source
        )
    return ClusterCredentials(
        bearer_token=fields.string("bearerToken"),
        username=username,
        password=password,
        tls=tls_config,
        proxy_url=_proxy_url(fields.string("proxyUrl"), source),
        exec_provider=exec_provider,
        aws_auth=aws_auth,
    )


def _proxy_url(url: str, source: str) -> str:
    if url and urlsplit(url).scheme not in ("http", "https"):
        raise ClusterSecretError("data.config.proxyUrl", "must be an http(s) URL", source=source)
    return url


def _exec_provider(config: dict[str, Any] | None, source: str) -> ExecProvider | None:
    if config is None:
        return None
    fields = _Fields(config, "data.config.execProviderConfig", source)
    command = fields.string("command")
    if not command:
        raise ClusterSecretError(
            "data.config.execProviderConfig.command", "is missing", source=source
        )
    env = fields.map("env") or {}
    if not all(isinstance(v, str) for v in env.values()):
        raise ClusterSecretError(
            "data.config.execProviderConfig.env", "must map names to strings", source=source
        )
    return ExecProvider(
        command=command,
        args=tuple(fields.strings("args")),
        env=tuple(sorted((str(k), str(v)) for k, v in env.items())),
        api_version=fields.string("apiVersion"),
        install_hint=fields.string("installHint"),
    )


def _aws_auth(config: dict[str, Any] | None, source: str) -> AWSAuth | None:
    if config is None:
        return None
    fields = _Fields(config, "data.config.awsAuthConfig", source)
    cluster_name = fields.string("clusterName")
    if not cluster_name:
        raise ClusterSecretError(
            "data.config.awsAuthConfig.clusterName", "is missing", source=source
        )
    return AWSAuth(
        cluster_name=cluster_name,
        role_arn=fields.string("roleARN"),
        profile=fields.string("profile"),
    )


@dataclass(frozen=True, slots=True)
class _Fields:
    """Typed reads of one JSON object, errors naming the field (never its value)."""

    values: dict[str, Any]
    path: str
    source: str

    def _error(self, key: str, problem: str) -> ClusterSecretError:
        return ClusterSecretError(f"{self.path}.{key}", problem, source=self.source)

    def string(self, key: str) -> str:
        value = self.values.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self._error(key, "must be a string")
        return value

    def boolean(self, key: str) -> bool:
        value = self.values.get(key)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise self._error(key, "must be true or false")
        return value

    def map(self, key: str) -> dict[str, Any] | None:
        value = self.values.get(key)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self._error(key, "must be an object")
        return value

    def strings(self, key: str) -> list[str]:
        value = self.values.get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._error(key, "must be a list of strings")
        return value

    def pem(self, key: str) -> str:
        """A base64 PEM field (Go's []byte in JSON), checked to decode to a PEM block."""
        value = self.string(key)
        if not value:
            return ""
        try:
            decoded = base64.b64decode(value, validate=True)
        except binascii.Error:
            raise self._error(key, "is not base64 (PEM data, base64-encoded)") from None
        if b"-----BEGIN " not in decoded:
            raise self._error(key, "does not hold PEM data (-----BEGIN ...)")
        return value


def claimed_address(obj: KubeObject) -> tuple[str, str]:
    """The name and server a Secret claims, read leniently ("" where unreadable): what a
    refused Secret is reported under."""
    raw = obj.get("data")
    found: list[str] = []
    for key in ("name", "server"):
        value = raw.get(key) if isinstance(raw, dict) else None
        try:
            text = base64.b64decode(str(value or ""), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            text = ""
        found.append(text.strip())
    return found[0], found[1].rstrip("/")
