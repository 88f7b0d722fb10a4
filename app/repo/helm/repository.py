"""Charts from Helm repositories: the index, the version, the archive, the cache.

A source with `chart` and an `http(s)://` repoURL names a chart in a Helm repository, as
in Argo CD:

- The repository's `index.yaml` is downloaded (at most `HelmSettings.max_index_bytes`,
  with the deadline `RepoSettings.network_timeout`) with the credentials a repository
  Secret gives the repoURL for the app's project (`type: helm`), and kept in memory for
  `index_ttl` seconds (a hard refresh reads it again).
- `targetRevision` picks the version: an exact version, else a semver constraint
  (`1.2.*`, `>=1.0 <2`, `^1.4`) with Argo CD's rules, the highest matching version
  winning; empty or `*` means the highest stable version.
- The archive URL is the entry's first `urls` item, relative to the repository URL or
  absolute. Credentials go only to the repository's own scheme, host and port, even when
  the index points elsewhere, unless `passCredentials`; a redirect to another origin is
  followed without them.
- The archive is extracted with every bound checked (archive.py) into a cache directory
  per (repository as the project sees it, chart, version); renders copy it, so nothing a
  render does changes the cache.
"""

import asyncio
import hashlib
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import aiohttp
import yaml

from app.model.repository_secret import RepoCreds
from app.repo.access import RepoAccess
from app.repo.constraints import highest_tag, parse_constraint, parse_version
from app.repo.errors import GitError, LimitExceeded, RenderError, RevisionError
from app.repo.helm.archive import chart_root, extract_chart
from app.repo.helm_settings import HelmSettings
from app.repo.singleflight import SingleFlight

_MAX_REDIRECTS = 5


class HelmRepoError(GitError):
    """The chart repository could not be read (network, authentication, server refusal)."""


@dataclass(frozen=True, slots=True)
class ChartVersion:
    """One entry of an index: a chart at a version and where its archive is."""

    name: str
    version: str
    urls: tuple[str, ...]
    digest: str


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def same_origin(a: str, b: str) -> bool:
    return _origin(a) == _origin(b)


async def _get(
    remote: RepoAccess,
    repo_url: str,
    url: str,
    *,
    pass_credentials: bool,
    max_bytes: int,
    deadline: float,
    what: str,
) -> bytes:
    """GET `url` (capped); credentials only to `repo_url`'s origin unless passed on."""
    timeouts = aiohttp.ClientTimeout(total=deadline)
    async with aiohttp.ClientSession(timeout=timeouts) as session:
        for _ in range(_MAX_REDIRECTS + 1):
            trusted = pass_credentials or same_origin(url, repo_url)
            headers = remote.headers() if trusted else {}
            try:
                async with session.get(
                    url,
                    headers=headers,
                    ssl=remote.ssl_context() if url.startswith("https") else False,
                    proxy=remote.proxy or None,
                    allow_redirects=False,
                ) as resp:
                    if resp.status in (301, 302, 303, 307, 308) and "Location" in resp.headers:
                        url = urljoin(url, resp.headers["Location"])
                        continue
                    if resp.status in (401, 403):
                        raise HelmRepoError(
                            f"{what}: {remote.repo.display} answered HTTP {resp.status}; add or "
                            "fix a repository Secret (type: helm) with its username and password"
                        )
                    if resp.status != 200:
                        raise HelmRepoError(
                            f"{what}: {remote.repo.display} answered HTTP {resp.status}"
                        )
                    if (resp.content_length or 0) > max_bytes:
                        raise LimitExceeded(f"{what}: larger than {max_bytes} bytes")
                    data = bytearray()
                    async for chunk in resp.content.iter_chunked(1 << 16):
                        data += chunk
                        if len(data) > max_bytes:
                            raise LimitExceeded(f"{what}: larger than {max_bytes} bytes")
                    return bytes(data)
            except (aiohttp.ClientError, TimeoutError) as e:
                raise HelmRepoError(
                    f"{what}: {remote.repo.display} cannot be reached ({type(e).__name__})"
                ) from None
        raise HelmRepoError(f"{what}: more than {_MAX_REDIRECTS} redirects")


async def fetch_anonymous(
    remote: RepoAccess, url: str, *, max_bytes: int, deadline: float
) -> bytes:
    """GET `url` with no credentials at all (a remote value file)."""
    return await _get(
        replace(remote, creds=RepoCreds()),
        url,
        url,
        pass_credentials=False,
        max_bytes=max_bytes,
        deadline=deadline,
        what=url[:200],
    )


def _parse_index(data: bytes, what: str) -> dict[str, list[ChartVersion]]:
    try:
        doc = yaml.safe_load(data)
    except yaml.YAMLError:
        raise RenderError(f"{what}: index.yaml is not valid YAML") from None
    entries = doc.get("entries") if isinstance(doc, dict) else None
    if not isinstance(entries, dict):
        raise RenderError(f"{what}: index.yaml has no `entries`; is this a Helm repository?")
    found: dict[str, list[ChartVersion]] = {}
    for name, versions in entries.items():
        if not isinstance(versions, list):
            continue
        found[str(name)] = [
            ChartVersion(
                str(name),
                str(v.get("version", "")),
                tuple(str(u) for u in v.get("urls") or ()),
                str(v.get("digest", "")),
            )
            for v in versions
            if isinstance(v, dict)
        ]
    return found


async def fetch_index(
    remote: RepoAccess, repo_url: str, *, max_bytes: int, deadline: float, what: str
) -> dict[str, list[ChartVersion]]:
    """A Helm repository's `index.yaml` (at most `max_bytes`), read with `remote`'s
    credentials and trust, parsed; nothing is cached."""
    data = await _get(
        remote,
        repo_url,
        repo_url.rstrip("/") + "/index.yaml",
        pass_credentials=False,
        max_bytes=max_bytes,
        deadline=deadline,
        what=f"{what} (index.yaml)",
    )
    return await asyncio.to_thread(_parse_index, data, what)


def pick_version(
    index: Mapping[str, list[ChartVersion]], chart: str, wanted: str, *, where: str
) -> ChartVersion:
    """The version of `chart` that `wanted` (targetRevision) names."""
    versions = index.get(chart)
    if not versions:
        raise RevisionError(f"{where}: the repository has no chart named {chart!r}")
    by_version = {v.version: v for v in versions}
    text = wanted.strip()
    if text in by_version:
        return by_version[text]
    constraint = parse_constraint(text or "*")
    if constraint is None or (text and parse_version(text) is not None):
        raise RevisionError(
            f"{where}: chart {chart!r} has no version {text!r} (newest: "
            f"{', '.join(sorted(by_version, reverse=True)[:5])})"
        )
    best = highest_tag(constraint, by_version)
    if best is None:
        raise RevisionError(f"{where}: no version of chart {chart!r} satisfies {text!r}")
    return by_version[best.tag]


Loader = Callable[[], Awaitable[dict[str, list[ChartVersion]]]]
Fetcher = Callable[[], Awaitable[bytes]]


class HelmCharts:
    """Version lists (briefly, in memory) and extracted chart versions (on disk) of every
    Helm repository and OCI registry."""

    def __init__(self, root: Path, settings: HelmSettings, *, network_timeout: float) -> None:
        self._root = root
        self._settings = settings
        self._timeout = network_timeout
        self._indexes: dict[str, tuple[float, dict[str, list[ChartVersion]]]] = {}
        self._loading: SingleFlight[str, dict[str, list[ChartVersion]]] = SingleFlight()
        self._extracting: SingleFlight[str, Path] = SingleFlight()

    @property
    def settings(self) -> HelmSettings:
        return self._settings

    @property
    def network_timeout(self) -> float:
        return self._timeout

    async def versions(
        self, identity: str, load: Loader, *, fresh: bool
    ) -> dict[str, list[ChartVersion]]:
        """The charts and versions `identity` lists, from memory for `index_ttl` seconds."""
        cached = self._indexes.get(identity)
        if cached is not None and not fresh and time.monotonic() < cached[0]:
            return cached[1]

        async def loaded() -> dict[str, list[ChartVersion]]:
            found = await load()
            self._indexes[identity] = (time.monotonic() + self._settings.index_ttl, found)
            return found

        return await self._loading.run(identity, loaded)

    async def index(
        self, remote: RepoAccess, repo_url: str, identity: str, *, fresh: bool, what: str
    ) -> dict[str, list[ChartVersion]]:
        """A Helm repository's `index.yaml`, parsed."""

        async def load() -> dict[str, list[ChartVersion]]:
            return await fetch_index(
                remote,
                repo_url,
                max_bytes=self._settings.max_index_bytes,
                deadline=self._timeout,
                what=what,
            )

        return await self.versions(identity, load, fresh=fresh)

    async def chart(
        self,
        remote: RepoAccess,
        repo_url: str,
        identity: str,
        entry: ChartVersion,
        *,
        pass_credentials: bool,
        what: str,
    ) -> Path:
        """The extracted chart of an index entry (shared: copy before changing it)."""

        async def fetch() -> bytes:
            if not entry.urls:
                raise RenderError(
                    f"{what}: the index lists no URL for {entry.name} {entry.version}"
                )
            data = await _get(
                remote,
                repo_url,
                urljoin(repo_url.rstrip("/") + "/", entry.urls[0]),
                pass_credentials=pass_credentials,
                max_bytes=self._settings.max_chart_bytes,
                deadline=self._timeout,
                what=f"{what} ({entry.name}-{entry.version}.tgz)",
            )
            if entry.digest and hashlib.sha256(data).hexdigest() != entry.digest:
                raise RenderError(
                    f"{what}: {entry.name}-{entry.version}.tgz does not match the digest its "
                    "index lists; the repository may be in the middle of an update"
                )
            return data

        return await self.extracted(identity, entry, fetch, what=what)

    async def extracted(
        self, identity: str, entry: ChartVersion, fetch: Fetcher, *, what: str
    ) -> Path:
        """The chart directory of `entry`, extracted once from what `fetch` downloads."""
        key = hashlib.sha256(f"{identity}\0{entry.name}\0{entry.version}".encode()).hexdigest()
        place = self._root / key[:32]
        if (place / "chart").is_dir():
            return chart_root(place / "chart", what)

        async def extract() -> Path:
            data = await fetch()
            await asyncio.to_thread(self._unpack, data, place, what)
            return chart_root(place / "chart", what)

        return await self._extracting.run(key, extract)

    def _unpack(self, data: bytes, place: Path, what: str) -> None:
        place.mkdir(parents=True, exist_ok=True, mode=0o700)
        staging = Path(tempfile.mkdtemp(prefix="extract-", dir=place))
        try:
            extract_chart(
                data,
                staging,
                max_bytes=self._settings.max_chart_bytes,
                max_entries=self._settings.max_chart_entries,
                what=what,
            )
            staging.rename(place / "chart")
        finally:
            shutil.rmtree(staging, ignore_errors=True)
