"""Charts in OCI registries (`oci://host/path` + `chart`), as Helm stores them.

Helm pushes a chart as an OCI artifact: repository `<path>/<chart>`, tagged with the
chart version, whose manifest has one layer of media type
`application/vnd.cncf.helm.chart.content.v1.tar+gzip` (the chart archive). Sluice speaks
the registry API (distribution spec v2) over HTTPS:

- `GET /v2/<name>/tags/list` lists the versions; the targetRevision picks one with the
  same rules as a Helm repository's index (repository.pick_version);
- `GET /v2/<name>/manifests/<tag>` (OCI manifest), then `GET /v2/<name>/blobs/<digest>`
  for the chart layer, whose SHA-256 must equal its digest.

Authentication is the registry's: a 401 with `WWW-Authenticate: Bearer realm=…,
service=…,scope=…` is answered by asking that realm for a token with the repository
Secret's username and password (HTTP Basic), then retrying with `Bearer <token>`; a
`Basic` challenge gets the Secret's Basic header. Credentials and tokens go only to the
registry's own origin and to the realm it names; a blob redirect elsewhere is followed
without them. Every answer is capped (manifests and tag lists at 4 MiB, the archive at
`HelmSettings.max_chart_bytes`).
"""

import hashlib
import json
import re
from dataclasses import dataclass
from urllib.parse import urlencode, urljoin, urlsplit

import aiohttp

from app.repo.access import RepoAccess
from app.repo.errors import LimitExceeded, RenderError
from app.repo.helm.repository import ChartVersion, HelmRepoError, same_origin

CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
MANIFEST_TYPES = (
    "application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.v2+json"
)
MAX_DOCUMENT_BYTES = 4 << 20
_CHALLENGE = re.compile(r'(\w+)="([^"]*)"')
_MAX_REDIRECTS = 5


def oci_url(repo_url: str) -> str:
    """The `oci://` URL of a chart source's registry, or "" for a Helm repository. A
    `repoURL` without a scheme (`registry.example.com/charts`) is a registry, as Argo CD
    reads it for a repository Secret with `enableOCI`."""
    if repo_url.startswith("oci://"):
        return repo_url
    if "://" in repo_url or repo_url.startswith("/") or "@" in repo_url:
        return ""
    return f"oci://{repo_url}"


@dataclass(frozen=True, slots=True)
class OciChart:
    """Where a chart lives in a registry: its HTTPS base and repository name."""

    base: str
    """`https://host[:port]`."""
    name: str
    """`path/chart`, the registry repository."""
    path: str = ""
    """`path`, the repoURL's part after the host (no chart)."""

    @classmethod
    def of(cls, repo_url: str, chart: str, *, where: str) -> "OciChart":
        parts = urlsplit(repo_url)
        path = "/".join(p for p in (parts.path.strip("/"), chart.strip("/")) if p)
        if parts.scheme != "oci" or not parts.netloc or not path or ".." in path.split("/"):
            raise RenderError(f"{where}: {repo_url!r} is not an oci://host/path registry URL")
        return cls(f"https://{parts.netloc}", path, parts.path.strip("/"))

    @property
    def registry_url(self) -> str:
        """The repoURL over HTTPS: what Argo CD matches a registry's repository Secret to."""
        return f"{self.base}/{self.path}" if self.path else self.base

    @property
    def credential_url(self) -> str:
        """The chart's registry repository over HTTPS: matched when `registry_url` has no
        Secret of its own."""
        return f"{self.base}/{self.name}"


class OciSession:
    """One conversation with a registry: a bearer token, once obtained, is reused."""

    def __init__(self, remote: RepoAccess, chart: OciChart, *, deadline: float, what: str):
        self._remote = remote
        self._chart = chart
        self._deadline = deadline
        self._what = what
        self._token = ""

    def _auth(self, url: str) -> dict[str, str]:
        if not same_origin(url, self._chart.base):
            return {}
        if self._token:
            return {"Authorization": f"Bearer {self._token}"}
        return {}

    async def _fetch_token(self, session: aiohttp.ClientSession, challenge: str) -> None:
        fields = dict(_CHALLENGE.findall(challenge))
        realm = fields.get("realm", "")
        if not realm.startswith("https://"):
            raise HelmRepoError(f"{self._what}: the registry's token realm {realm!r} is not https")
        query = {k: v for k, v in fields.items() if k in ("service", "scope")}
        async with session.get(
            f"{realm}?{urlencode(query)}",
            headers=self._remote.headers(),
            ssl=self._remote.ssl_context(),
            allow_redirects=False,
        ) as resp:
            if resp.status != 200:
                raise HelmRepoError(
                    f"{self._what}: the registry's token service answered HTTP {resp.status}; "
                    "add or fix a repository Secret (type: helm, enableOCI: true)"
                )
            body = await resp.content.read(MAX_DOCUMENT_BYTES)
        try:
            doc = json.loads(body)
        except ValueError:
            doc = {}
        token = (doc.get("token") or doc.get("access_token")) if isinstance(doc, dict) else ""
        if not token:
            raise HelmRepoError(f"{self._what}: the registry's token service gave no token")
        self._token = str(token)

    async def get(self, path: str, *, accept: str = "", max_bytes: int) -> bytes:
        url = f"{self._chart.base}{path}"
        timeouts = aiohttp.ClientTimeout(total=self._deadline)
        try:
            async with aiohttp.ClientSession(timeout=timeouts) as session:
                return await self._get(session, url, accept, max_bytes)
        except (aiohttp.ClientError, TimeoutError) as e:
            raise HelmRepoError(
                f"{self._what}: the registry {self._chart.base} cannot be reached "
                f"({type(e).__name__})"
            ) from None

    async def _get(
        self, session: aiohttp.ClientSession, url: str, accept: str, max_bytes: int
    ) -> bytes:
        challenged = False
        for _ in range(_MAX_REDIRECTS + 2):
            headers = self._auth(url)
            if accept:
                headers["Accept"] = accept
            async with session.get(
                url, headers=headers, ssl=self._remote.ssl_context(), allow_redirects=False
            ) as resp:
                if resp.status == 401 and not challenged and same_origin(url, self._chart.base):
                    challenged = True
                    challenge = resp.headers.get("WWW-Authenticate", "")
                    if challenge.lower().startswith("bearer"):
                        await self._fetch_token(session, challenge)
                        continue
                    basic = self._remote.headers()
                    if basic:
                        headers = {**basic, **({"Accept": accept} if accept else {})}
                        async with session.get(
                            url, headers=headers, ssl=self._remote.ssl_context()
                        ) as retry:
                            return await self._body(retry, max_bytes)
                if resp.status in (301, 302, 303, 307, 308) and "Location" in resp.headers:
                    url = urljoin(url, resp.headers["Location"])
                    continue
                return await self._body(resp, max_bytes)
        raise HelmRepoError(f"{self._what}: too many redirects or challenges")

    async def _body(self, resp: aiohttp.ClientResponse, max_bytes: int) -> bytes:
        if resp.status in (401, 403):
            raise HelmRepoError(
                f"{self._what}: the registry answered HTTP {resp.status}; add or fix a "
                "repository Secret (type: helm, enableOCI: true) with its username and password"
            )
        if resp.status == 404:
            raise HelmRepoError(f"{self._what}: the registry has no {self._chart.name}")
        if resp.status != 200:
            raise HelmRepoError(f"{self._what}: the registry answered HTTP {resp.status}")
        data = bytearray()
        async for chunk in resp.content.iter_chunked(1 << 16):
            data += chunk
            if len(data) > max_bytes:
                raise LimitExceeded(
                    f"{self._what}: the registry's answer is larger than {max_bytes}"
                )
        return bytes(data)

    async def versions(self) -> list[ChartVersion]:
        """Every tag of the chart's repository, as chart versions."""
        data = await self.get(f"/v2/{self._chart.name}/tags/list", max_bytes=MAX_DOCUMENT_BYTES)
        try:
            tags = json.loads(data).get("tags") or []
        except (ValueError, AttributeError):
            raise RenderError(f"{self._what}: the registry's tag list is not JSON") from None
        chart = self._chart.name.rsplit("/", 1)[-1]
        # OCI tags cannot hold `+`; Helm writes build metadata as `_`.
        return [ChartVersion(chart, str(t).replace("_", "+"), (), "") for t in tags]

    async def archive(self, version: str, max_bytes: int) -> bytes:
        """The chart archive of `version`, checked against its layer digest."""
        tag = version.replace("+", "_")
        manifest = await self.get(
            f"/v2/{self._chart.name}/manifests/{tag}",
            accept=MANIFEST_TYPES,
            max_bytes=MAX_DOCUMENT_BYTES,
        )
        try:
            layers = json.loads(manifest).get("layers") or []
        except (ValueError, AttributeError):
            raise RenderError(f"{self._what}: the registry's manifest is not JSON") from None
        layer = next(
            (x for x in layers if isinstance(x, dict) and x.get("mediaType") == CHART_LAYER), None
        )
        digest = str(layer.get("digest", "")) if layer else ""
        if not digest.startswith("sha256:"):
            raise RenderError(
                f"{self._what}: {self._chart.name}:{tag} is not a Helm chart (no {CHART_LAYER} "
                "layer)"
            )
        data = await self.get(f"/v2/{self._chart.name}/blobs/{digest}", max_bytes=max_bytes)
        if "sha256:" + hashlib.sha256(data).hexdigest() != digest:
            raise RenderError(f"{self._what}: the chart layer does not match its digest")
        return data
