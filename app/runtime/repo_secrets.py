"""Argo CD repository Secrets, templates and trust ConfigMaps, followed by every process.

Every Sluice process that talks to Git (all of them: `Runtime.open` starts this) follows,
in the control-plane namespace, with one LIST+WATCH each as Argo CD's components do:

- the Secrets labelled `argocd.argoproj.io/secret-type` `repository` or `repo-creds`. A
  Secret that parses (`app.model.repository_secret`) and whose URL is usable
  (`app.repo.credentials.RepoCredential`) is put in force; one that does not is logged
  naming the field, and kept as refused, so a repository it claims reports why in its
  apps' conditions instead of being fetched anonymously. A deleted Secret, or one no
  longer listed after a re-list, is dropped.
- `argocd-ssh-known-hosts-cm` (`ssh_known_hosts`) and `argocd-tls-certs-cm` (one PEM
  bundle per server name; an entry without a certificate is logged and left out).

Each change builds a new credential store or trust and hands it to `Repositories`, so the
next git command uses it: a rotated password or key takes effect without a restart.
After the first lists, every change (a burst of them coalesced) is also handed to
`on_change` as the view before and after (`app.repo.credential_view`), one at a time:
the runtime refreshes the apps it concerns and drops cached connection states.
Start waits up to `START_WAIT` for the first lists; a control plane that does not answer
does not stop the process (logged; the watch is reopened after a growing pause). No
secret value is ever logged: only which kind of credential a Secret carries.
"""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from app import log
from app.cluster import Cluster, ClusterError, EventType, Synced
from app.engine.redact import redact_text
from app.model.repository_secret import (
    KNOWN_HOSTS_CONFIGMAP,
    KNOWN_HOSTS_KEY,
    LABEL_SELECTOR,
    TLS_CERTS_CONFIGMAP,
    RepoCreds,
    RepoKind,
    RepositorySecretError,
    claimed_url,
    parse_repository_secret,
    parse_tls_certs,
    secret_kind,
    secret_ref,
)
from app.model.resource import KubeObject
from app.repo.credential_view import CredentialView
from app.repo.credentials import CredentialStore, Refused, RepoCredential
from app.repo.errors import RepoURLError
from app.repo.service import Repositories

logger = log.get("repositories")

START_WAIT = 3.0
"""Seconds start waits for the first lists before going on without them."""
RETRY_DELAY = 1.0
"""First pause before a failed watch is opened again (doubles, up to MAX_RETRY_DELAY)."""
MAX_RETRY_DELAY = 60.0

OnChange = Callable[[CredentialView, CredentialView], Awaitable[object]]


def auth_kind(creds: RepoCreds) -> str:
    """Which kind of credentials a Secret carries, for logs (never the credentials)."""
    if creds.github_app_private_key:
        return "github app"
    if creds.ssh_private_key:
        return "ssh key"
    if creds.bearer_token:
        return "bearer token"
    if creds.password:
        return "password"
    if creds.tls_client_cert_data:
        return "client certificate"
    return "none"


class RepositorySecretsSource:
    """The repository credentials and trust of one process, and the watches that keep them."""

    def __init__(self, repos: Repositories, cluster: Cluster, namespace: str) -> None:
        self._repos = repos
        self._cluster = cluster
        self._namespace = namespace
        self._tasks: list[asyncio.Task[None]] = []
        self._entries: dict[str, RepoCredential | Refused] = {}
        self._known_hosts = ""
        self._tls_certs: dict[str, str] = {}
        self._store = CredentialStore()
        self._versions: dict[str, str] = {}
        self._changed = asyncio.Event()
        self._stopping = False
        self._seen = CredentialView()
        self.on_change: OnChange | None = None
        """Called with the views before and after each change once started."""

    def view(self) -> CredentialView:
        """The credentials and trust in force now."""
        version = ",".join(f"{name}={rv}" for name, rv in sorted(self._versions.items()))
        return CredentialView(self._store, self._known_hosts, dict(self._tls_certs), version)

    async def start(self) -> None:
        """Read the Secrets and ConfigMaps (up to START_WAIT) and follow them."""
        loop = asyncio.get_running_loop()
        firsts: list[asyncio.Future[None]] = [loop.create_future() for _ in range(3)]
        follows: list[tuple[str, Callable[[asyncio.Future[None]], Awaitable[None]]]] = [
            ("repository secrets", self._watch_secrets),
            (
                "known hosts",
                self._watch_configmap(KNOWN_HOSTS_CONFIGMAP, self._known_hosts_changed),
            ),
            ("tls certs", self._watch_configmap(TLS_CERTS_CONFIGMAP, self._tls_certs_changed)),
        ]
        for (name, watch), first in zip(follows, firsts, strict=True):
            self._tasks.append(asyncio.create_task(self._follow(name, watch, first), name=name))
        try:
            async with asyncio.timeout(START_WAIT):
                await asyncio.shield(asyncio.gather(*firsts))
        except TimeoutError:
            logger.warning(
                "repositories.waiting",
                namespace=self._namespace,
                waited_s=START_WAIT,
                reason="the repository Secrets are not listed yet; private repositories are "
                "reachable once they are",
            )
        self._seen = self.view()
        self._changed.clear()
        self._tasks.append(asyncio.create_task(self._react(), name="repository changes"))

    async def _react(self) -> None:
        while True:
            await self._changed.wait()
            self._changed.clear()
            if self._stopping:
                return
            before, after = self._seen, self.view()
            self._seen = after
            if self.on_change is None or before.version == after.version:
                continue
            try:
                await self.on_change(before, after)
            except Exception:
                # The follower outlives one failed reaction (Redis or NATS away): the
                # periodic resync still retries the apps, and the next change reacts again.
                logger.exception(
                    "repositories.change_reaction_failed",
                    consequence="apps on the changed repositories wait for their resync",
                )

    async def stop(self) -> None:
        # A library that swallows a cancellation inside `on_change` must not leave the
        # reaction loop waiting for ever: it also stops when woken with `_stopping` set.
        self._stopping = True
        self._changed.set()
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(
        self,
        name: str,
        watch: Callable[[asyncio.Future[None]], Awaitable[None]],
        first: asyncio.Future[None],
    ) -> None:
        delay = RETRY_DELAY
        while True:
            try:
                await watch(first)
            except ClusterError as e:
                hint = "" if e.retriable else (
                    f"; Sluice needs list and watch on secrets and configmaps in namespace "
                    f"{self._namespace}"
                )  # fmt: skip
                logger.error(
                    "repositories.watch_failed", watching=name, error=f"{e}{hint}", retry_in_s=delay
                )
                if not first.done():
                    first.set_result(None)
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_DELAY)

    async def _watch_secrets(self, first: asyncio.Future[None]) -> None:
        watch = self._cluster.watch(
            "v1", "Secret", namespace=self._namespace, label_selector=LABEL_SELECTOR
        )
        listed: set[str] | None = set()
        async with watch as events:
            async for event in events:
                if isinstance(event, Synced):
                    if listed is not None:
                        for ref in sorted(set(self._entries) - listed):
                            self._gone(ref, "the Secret is no longer listed")
                        listed = None
                    self._publish()
                    if not first.done():
                        first.set_result(None)
                    continue
                ref = secret_ref(event.object)
                if event.type is EventType.DELETED:
                    self._gone(ref, "the Secret was deleted")
                else:
                    self._versions[f"Secret {ref}"] = _resource_version(event.object)
                    if listed is not None:
                        listed.add(ref)
                    self._upsert(ref, event.object)
                if listed is None:
                    self._publish()

    def _upsert(self, ref: str, obj: KubeObject) -> None:
        try:
            entry: RepoCredential | Refused = RepoCredential.of(parse_repository_secret(obj))
        except (RepositorySecretError, RepoURLError) as e:
            kind = secret_kind(obj) or RepoKind.REPOSITORY
            word = "repository" if kind is RepoKind.REPOSITORY else "repo-creds"
            problem = str(e).replace(f"{word} Secret {ref}: ", "")
            entry = Refused(kind, claimed_url(obj), f"{word} Secret {ref}", problem)
        before = self._entries.get(ref)
        if before == entry:
            return
        self._entries[ref] = entry
        if isinstance(entry, Refused):
            logger.error(
                "repository.refused",
                secret=ref,
                repo=redact_text(entry.url),
                error=entry.problem,
                reason="a repository Secret that cannot be used gives no credentials; its "
                "repository's apps say why; fix it and it is read again",
            )
            return
        logger.info(
            "repository.registered" if before is None else "repository.updated",
            secret=ref,
            kind=entry.kind.value,
            repo=entry.parsed.display,
            project=entry.project,
            auth=auth_kind(entry.creds),
        )

    def _gone(self, ref: str, reason: str) -> None:
        self._versions.pop(f"Secret {ref}", None)
        if self._entries.pop(ref, None) is not None:
            logger.info("repository.unregistered", secret=ref, reason=reason)

    def _publish(self) -> None:
        usable = [e for e in self._entries.values() if isinstance(e, RepoCredential)]
        refused = [e for e in self._entries.values() if isinstance(e, Refused)]
        self._store = CredentialStore(usable, refused)
        self._repos.update_credentials(self._store)
        self._changed.set()

    def _watch_configmap(
        self, name: str, changed: Callable[[dict[str, str]], Awaitable[None]]
    ) -> Callable[[asyncio.Future[None]], Awaitable[None]]:
        async def watch(first: asyncio.Future[None]) -> None:
            stream = self._cluster.watch(
                "v1", "ConfigMap", namespace=self._namespace, field_selector=f"metadata.name={name}"
            )
            seen = False
            async with stream as events:
                async for event in events:
                    if isinstance(event, Synced):
                        if not seen:
                            await changed({})
                        if not first.done():
                            first.set_result(None)
                        continue
                    seen = True
                    if event.type is EventType.DELETED:
                        self._versions.pop(f"ConfigMap {name}", None)
                        data = {}
                    else:
                        self._versions[f"ConfigMap {name}"] = _resource_version(event.object)
                        data = _string_data(event.object)
                    await changed(data)
                    self._changed.set()

        return watch

    async def _known_hosts_changed(self, data: dict[str, str]) -> None:
        text = data.get(KNOWN_HOSTS_KEY, "")
        if text == self._known_hosts:
            return
        self._known_hosts = text
        hosts = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
        logger.info("trust.known_hosts", configmap=KNOWN_HOSTS_CONFIGMAP, keys=len(hosts))
        await self._repos.update_trust(self._known_hosts, self._tls_certs)

    async def _tls_certs_changed(self, data: dict[str, str]) -> None:
        bundles, refused = parse_tls_certs(data)
        for key in refused:
            logger.error(
                "trust.tls_cert_refused",
                configmap=TLS_CERTS_CONFIGMAP,
                field=f"data.{key}",
                error="holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            )
        if bundles == self._tls_certs:
            return
        self._tls_certs = bundles
        logger.info("trust.tls_certs", configmap=TLS_CERTS_CONFIGMAP, servers=sorted(bundles))
        await self._repos.update_trust(self._known_hosts, self._tls_certs)


def _string_data(obj: KubeObject) -> dict[str, str]:
    raw: Any = obj.get("data") or {}
    if not isinstance(raw, dict):
        return {}
    return {str(k): v for k, v in raw.items() if isinstance(v, str)}


def _resource_version(obj: KubeObject) -> str:
    metadata: Any = obj.get("metadata") or {}
    return str(metadata.get("resourceVersion", "")) if isinstance(metadata, dict) else ""
