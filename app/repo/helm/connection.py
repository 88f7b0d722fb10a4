"""Connection checks of chart repositories, as Argo CD's "Connection Status" runs them.

A Helm repository (`type: helm`, an `http(s)://` URL) is checked by reading its
`index.yaml`, an OCI registry (`oci://`, `type: oci`, or `enableOCI`) by `GET /v2/`,
the registry API's base, answering a token challenge with the credentials. Both go
through the same clients, credentials and trust (CA bundle, client certificate,
`insecure`) as the renders (repository.py, oci.py); nothing read is cached. A failure is
a `RepoError` whose text names the repository and the cause, never a credential.
"""

from urllib.parse import urlsplit

from app.repo.access import RepoAccess
from app.repo.errors import RepoURLError
from app.repo.helm.oci import MAX_DOCUMENT_BYTES, OciChart, OciSession
from app.repo.helm.repository import fetch_index


async def check_helm_repository(
    remote: RepoAccess, repo_url: str, *, max_bytes: int, deadline: float
) -> None:
    """Whether `repo_url`'s index can be read and parsed with `remote`'s credentials."""
    await fetch_index(remote, repo_url, max_bytes=max_bytes, deadline=deadline, what=repo_url)


async def check_registry(
    remote: RepoAccess, registry_url: str, *, deadline: float, what: str
) -> None:
    """Whether the registry of `registry_url` (`https://host[:port][/path]`, the matched
    form of an OCI repository Secret's URL) accepts `remote`'s credentials at `/v2/`;
    `what` names the repository in messages."""
    parts = urlsplit(registry_url)
    if parts.scheme != "https" or not parts.netloc:
        raise RepoURLError(f"{what}: is not an OCI registry URL (oci://host/path)")
    path = parts.path.strip("/")
    registry = OciChart(f"https://{parts.netloc}", path, path)
    session = OciSession(remote, registry, deadline=deadline, what=what)
    await session.get("/v2/", max_bytes=MAX_DOCUMENT_BYTES)
