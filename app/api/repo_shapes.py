"""The shapes of `/api/v1/repositories` and `/api/v1/repocreds`, in Argo CD's JSON names.

A request (`Repository`, `RepoCredsBody`) carries the secret fields; an answer
(`RepositoryView`, `RepoCredsView`) has none of them, only whether each is set, so a
secret is write-only by type: no handler can return one.
"""

from dataclasses import dataclass, field

from app.model.repository_secret import RepoCreds, RepoKind, RepositorySecret, RepoType

_URL = {"max_length": 2048, "doc": "repository URL (a template: URL prefix)"}
_TEXT = {"max_length": 1024}
_PEM = {"max_length": 64 * 1024, "doc": "PEM, write-only"}
_SECRET = {"max_length": 16 * 1024, "doc": "write-only: never returned"}


@dataclass
class _CredsFields:
    username: str = field(default="", metadata=_TEXT)
    password: str = field(default="", metadata=_SECRET)
    bearer_token: str = field(default="", metadata=_SECRET)
    ssh_private_key: str = field(default="", metadata=_PEM)
    tls_client_cert_data: str = field(default="", metadata=_PEM)
    tls_client_cert_key: str = field(default="", metadata=_PEM)
    github_app_private_key: str = field(default="", metadata=_PEM)
    github_app_id: int = field(default=0, metadata={"json": "githubAppID", "minimum": 0})
    github_app_installation_id: int = field(
        default=0, metadata={"json": "githubAppInstallationID", "minimum": 0}
    )
    github_app_enterprise_base_url: str = field(
        default="", metadata={"json": "githubAppEnterpriseBaseUrl", **_TEXT}
    )
    insecure: bool = False
    insecure_ignore_host_key: bool = False
    force_http_basic_auth: bool = False
    proxy: str = field(default="", metadata=_TEXT)
    no_proxy: str = field(default="", metadata=_TEXT)
    enable_lfs: bool = field(default=False, metadata={"json": "enableLfs"})
    enable_oci: bool = field(default=False, metadata={"json": "enableOCI"})

    def creds(self) -> RepoCreds:
        return RepoCreds(
            username=self.username,
            password=self.password,
            bearer_token=self.bearer_token,
            ssh_private_key=self.ssh_private_key,
            tls_client_cert_data=self.tls_client_cert_data,
            tls_client_cert_key=self.tls_client_cert_key,
            github_app_id=self.github_app_id,
            github_app_installation_id=self.github_app_installation_id,
            github_app_private_key=self.github_app_private_key,
            github_app_enterprise_base_url=self.github_app_enterprise_base_url,
            insecure=self.insecure,
            insecure_ignore_host_key=self.insecure_ignore_host_key,
            force_http_basic_auth=self.force_http_basic_auth,
            proxy=self.proxy,
            no_proxy=self.no_proxy,
            enable_lfs=self.enable_lfs,
            enable_oci=self.enable_oci,
        )


@dataclass
class Repository(_CredsFields):
    """A repository to register (Argo CD's `v1alpha1.Repository`)."""

    repo: str = field(default="", metadata=_URL)
    type: str = field(default="git", metadata={"pattern": "^(git|helm|oci)$"})
    name: str = field(default="", metadata=_TEXT)
    project: str = field(default="", metadata={"max_length": 253})

    def record(self) -> RepositorySecret:
        return RepositorySecret(
            "", RepoKind.REPOSITORY, self.repo, RepoType(self.type), self.name, self.project,
            self.creds(),
        )  # fmt: skip


@dataclass
class RepoCredsBody(_CredsFields):
    """A credential template to register (Argo CD's `v1alpha1.RepoCreds`)."""

    url: str = field(default="", metadata=_URL)
    type: str = field(default="git", metadata={"pattern": "^(git|helm|oci)$"})

    def record(self) -> RepositorySecret:
        return RepositorySecret(
            "", RepoKind.TEMPLATE, self.url, RepoType(self.type), creds=self.creds()
        )


@dataclass
class ConnectionState:
    """Argo CD's connection state: `Successful`, `Failed` or `Unknown`."""

    status: str
    message: str = ""
    attempted_at: str = ""


@dataclass
class _View:
    username: str
    has_password: bool
    has_bearer_token: bool
    has_ssh_private_key: bool
    has_tls_client_cert: bool
    github_app_id: int = field(metadata={"json": "githubAppID"})
    github_app_installation_id: int = field(metadata={"json": "githubAppInstallationID"})
    github_app_enterprise_base_url: str = field(metadata={"json": "githubAppEnterpriseBaseUrl"})
    insecure: bool
    insecure_ignore_host_key: bool
    force_http_basic_auth: bool
    enable_lfs: bool = field(metadata={"json": "enableLfs"})
    enable_oci: bool = field(metadata={"json": "enableOCI"})
    no_proxy: str
    has_proxy: bool


def _view_fields(creds: RepoCreds) -> dict[str, object]:
    return {
        "username": creds.username,
        "has_password": bool(creds.password),
        "has_bearer_token": bool(creds.bearer_token),
        "has_ssh_private_key": bool(creds.ssh_private_key),
        "has_tls_client_cert": bool(creds.tls_client_cert_data),
        "github_app_id": creds.github_app_id,
        "github_app_installation_id": creds.github_app_installation_id,
        "github_app_enterprise_base_url": creds.github_app_enterprise_base_url,
        "insecure": creds.insecure,
        "insecure_ignore_host_key": creds.insecure_ignore_host_key,
        "force_http_basic_auth": creds.force_http_basic_auth,
        "enable_lfs": creds.enable_lfs,
        "enable_oci": creds.enable_oci,
        "no_proxy": creds.no_proxy,
        "has_proxy": bool(creds.proxy),
    }


@dataclass
class RepositoryView(_View):
    """A registered repository, without its secrets."""

    repo: str
    type: str
    name: str
    project: str
    secret: str = field(metadata={"doc": "the Secret that registers it, namespace/name"})
    inherited_creds: bool = field(
        metadata={"doc": "its credentials come from a repo-creds template"}
    )
    connection_state: ConnectionState

    @classmethod
    def of(
        cls, record: RepositorySecret, state: ConnectionState, *, inherited: bool
    ) -> "RepositoryView":
        return cls(
            repo=record.url,
            type=record.type.value,
            name=record.name,
            project=record.project,
            secret=record.secret,
            inherited_creds=inherited,
            connection_state=state,
            **_view_fields(record.creds),  # type: ignore[arg-type]
        )


@dataclass
class RepositoryList:
    items: list[RepositoryView]


@dataclass
class RepoCredsView(_View):
    """A credential template, without its secrets."""

    url: str
    type: str
    secret: str

    @classmethod
    def of(cls, record: RepositorySecret) -> "RepoCredsView":
        return cls(
            url=record.url,
            type=record.type.value,
            secret=record.secret,
            **_view_fields(record.creds),  # type: ignore[arg-type]
        )


@dataclass
class RepoCredsList:
    items: list[RepoCredsView]
