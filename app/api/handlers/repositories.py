"""`/api/v1/repositories` and `/api/v1/repocreds`: Argo CD's repository Secrets, through the API.

Both write the Secrets Argo CD's API would write (`app.model.repository_secret`: named
`repo-…`/`creds-…`, labelled, in the control-plane namespace), which every Sluice process
then follows; nothing is stored anywhere else. Secret fields are write-only: answers carry
`has…` flags instead (`app.api.repo_shapes`), and an update that leaves a secret field
empty keeps the stored one (so a client that never saw the secret cannot wipe it by
accident).

The `{repo}`/`{url}` path segment is the URL percent-encoded (`/` as `%2F`), as Argo CD's
clients send it; a registry's may be written `oci://host/path` or scheme-less, and finds
its Secret in either form (`registry_url`). Every answer about a repository carries its
connection state, measured with exactly that Secret's credentials as Argo CD measures it
for the Secret's type: a Git repository by ls-remote (`Repositories.validate`), a Helm
repository by its `index.yaml`, an OCI registry by `/v2/` (`app.repo.helm.connection`);
Argo CD's "Connection Status": `Successful`, or `Failed` with the reason (redacted). As
in Argo CD it is cached (`app.store.connection_states`, 10 min, emptied when any repository Secret
or trust ConfigMap changes): list and get answer from the cache unless
`forceRefresh=true` (`sluice repo list --refresh hard`); validate, create and update
always measure it afresh and store it.

Who may do what is Argo CD's RBAC on `repositories` (get, create, update, delete), whose
object is the repository URL, `<project>/<url>` for a repository scoped to a project, and
the URL prefix for a credential template. A repository or template the caller may not
get is answered as unregistered, and lists leave it out.
"""

import asyncio
import datetime as dt
from dataclasses import replace
from typing import Any

from app import log
from app.api import access, authz
from app.api.errors import BadRequest, Conflict, NotFound
from app.api.repo_shapes import (
    ConnectionState,
    RepoCredsBody,
    RepoCredsList,
    RepoCredsView,
    Repository,
    RepositoryList,
    RepositoryView,
)
from app.api.routes import Call, Route
from app.api.shapes import Result
from app.cluster.errors import Conflict as ClusterConflict
from app.engine.rbac import names
from app.model.repository_secret import (
    TYPE_LABEL,
    RepoKind,
    RepositorySecret,
    RepositorySecretError,
    RepoType,
    parse_repository_secret,
    secret_data,
    secret_manifest,
    secret_name,
)
from app.repo.credentials import (
    CredentialStore,
    RepoCredential,
    is_registry,
    registry_url,
    same_repository,
)
from app.repo.errors import RepoError, RepoURLError
from app.repo.helm.connection import check_helm_repository, check_registry
from app.repo.helm.oci import oci_url
from app.repo.urls import RepoURL, parse_repo_url
from app.store.connection_states import CachedState, ConnectionStates

logger = log.get("api")

VALIDATIONS = 8
"""Connection checks a list runs at once."""
VALIDATE_SECONDS = 20.0
"""How long one connection check may take before it is reported as Failed."""
_FILLED_ON_UPDATE = (
    "password",
    "bearer_token",
    "ssh_private_key",
    "tls_client_cert_data",
    "tls_client_cert_key",
    "github_app_private_key",
    "proxy",
)


async def _secrets(call: Call[Any, Any], kind: RepoKind) -> list[RepositorySecret]:
    found = await call.rt.control_plane.list(
        "v1",
        "Secret",
        namespace=access.control_namespace(call.rt),
        label_selector=f"{TYPE_LABEL}={kind.value}",
    )
    records = []
    for obj in found.items:
        try:
            records.append(parse_repository_secret(obj))
        except RepositorySecretError as e:
            logger.warning("api.repository_secret_unreadable", error=str(e), action="left out")
    return records


def _checked(record: RepositorySecret) -> RepoCredential:
    try:
        return RepoCredential.of(record)
    except RepoURLError as e:
        raise BadRequest(str(e).replace(f"{record.source}: ", "")) from None


def _store(records: list[RepositorySecret]) -> CredentialStore:
    usable = []
    for record in records:
        try:
            usable.append(RepoCredential.of(record))
        except RepoURLError:
            continue
    return CredentialStore(usable)


def _object(record: RepositorySecret) -> str:
    return names.scoped_object(record.project, record.url)


async def _visible(call: Call[Any, Any], record: RepositorySecret) -> bool:
    return await authz.allowed(call, names.REPOSITORIES, names.GET, _object(record))


async def _may(call: Call[Any, Any], action: str, record: RepositorySecret) -> None:
    await authz.require(call, names.REPOSITORIES, action, _object(record))


def _force(call: Call[Any, Any]) -> bool:
    return call.request.query.get("forceRefresh", "").lower() in ("true", "1")


async def _state(
    call: Call[Any, Any],
    record: RepositorySecret,
    templates: list[RepositorySecret],
    *,
    fresh: bool,
) -> ConnectionState:
    """The cached connection state of `record`, or (`fresh`, or none cached) a new one."""
    cache = ConnectionStates(call.rt.redis)
    if not fresh:
        cached = await cache.get(record.url, record.project)
        if cached is not None:
            return ConnectionState(cached.status, cached.message, cached.attempted_at)
    state = await _measure(call, record, templates)
    await cache.put(
        record.url, record.project, CachedState(state.status, state.message, state.attempted_at)
    )
    return state


async def _check(call: Call[Any, Any], record: RepositorySecret, store: CredentialStore) -> None:
    """Reach `record`'s repository with the credentials `store` gives it, as Argo CD checks
    each type: a Git repository by ls-remote, a Helm repository by its `index.yaml`, an
    OCI registry by its `/v2/` endpoint. RepoError naming the cause when it cannot."""
    repos = call.rt.repos
    if not is_registry(record) and record.type is RepoType.GIT:
        await repos.validate(record.url, store, project=record.project)
        return
    url = registry_url(record)
    remote = await repos.checking_remote(url, store, project=record.project)
    deadline = repos.settings.network_timeout
    if is_registry(record):
        await check_registry(remote, url, deadline=deadline, what=record.url)
    else:
        max_bytes = repos.settings.helm.max_index_bytes
        await check_helm_repository(remote, url, max_bytes=max_bytes, deadline=deadline)


async def _measure(
    call: Call[Any, Any], record: RepositorySecret, templates: list[RepositorySecret]
) -> ConnectionState:
    attempted = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    store = _store([record, *templates])
    try:
        async with asyncio.timeout(VALIDATE_SECONDS):
            await _check(call, record, store)
    except RepoError as e:
        return ConnectionState("Failed", str(e), attempted)
    except TimeoutError:
        return ConnectionState(
            "Failed", f"no answer from the server within {VALIDATE_SECONDS:g} s", attempted
        )
    return ConnectionState("Successful", "", attempted)


def _inherited(record: RepositorySecret, templates: list[RepositorySecret]) -> bool:
    if record.creds.has_credentials:
        return False
    try:
        return _store(templates).template(parse_repo_url(record.url)) is not None
    except RepoURLError:
        return False


async def _view(
    call: Call[Any, Any],
    record: RepositorySecret,
    templates: list[RepositorySecret],
    *,
    fresh: bool,
) -> RepositoryView:
    state = await _state(call, record, templates, fresh=fresh)
    return RepositoryView.of(record, state, inherited=_inherited(record, templates))


async def list_repositories(call: Call[None, None]) -> RepositoryList:
    records = [r for r in await _secrets(call, RepoKind.REPOSITORY) if await _visible(call, r)]
    templates = await _secrets(call, RepoKind.TEMPLATE)
    limit = asyncio.Semaphore(VALIDATIONS)

    async def one(record: RepositorySecret) -> RepositoryView:
        async with limit:
            return await _view(call, record, templates, fresh=_force(call))

    views = await asyncio.gather(*(one(r) for r in sorted(records, key=lambda r: r.url)))
    return RepositoryList(list(views))


def _wanted(url: str) -> list[RepoURL]:
    """The path's repository URL parsed as a Secret's is matched: as written and, when it
    could be a registry's (`oci://`, or scheme-less as Argo CD writes registries), over
    HTTPS (`registry_url`); the scheme-less registry form first. BadRequest when neither
    parses."""
    registry = oci_url(url)
    forms = [url]
    if registry:
        https = "https://" + registry.removeprefix("oci://")
        forms = [url, https] if "://" in url else [https, url]
    found: list[RepoURL] = []
    problems: list[str] = []
    for form in forms:
        try:
            found.append(parse_repo_url(form, field="repo"))
        except RepoURLError as e:
            problems.append(str(e))
    if not found:
        raise BadRequest(problems[-1])
    return found


def _matches(record: RepositorySecret, url: str, wanted: list[RepoURL]) -> bool:
    if record.url.rstrip("/") == url.rstrip("/"):
        return True
    try:
        parsed = parse_repo_url(registry_url(record))
    except RepoURLError:
        return False
    return any(same_repository(parsed, w) for w in wanted)


async def _find(call: Call[Any, Any], url: str) -> RepositorySecret:
    wanted = _wanted(url)
    project = call.request.query.get("appProject", "")
    candidates = []
    for record in await _secrets(call, RepoKind.REPOSITORY):
        if _matches(record, url, wanted) and await _visible(call, record):
            candidates.append(record)
    for record in sorted(candidates, key=lambda r: r.project != project):
        return record
    raise NotFound(f"repository {wanted[0].display} is not registered")


async def get_repository(call: Call[None, None]) -> RepositoryView:
    record = await _find(call, call.path("repo"))
    templates = await _secrets(call, RepoKind.TEMPLATE)
    return await _view(call, record, templates, fresh=_force(call))


async def validate_repository(call: Call[None, None]) -> ConnectionState:
    record = await _find(call, call.path("repo"))
    return await _state(call, record, await _secrets(call, RepoKind.TEMPLATE), fresh=True)


async def _write(
    call: Call[Any, Any], record: RepositorySecret, *, upsert: bool, what: str
) -> RepositorySecret:
    _checked(record)
    namespace = access.control_namespace(call.rt)
    name = secret_name(record.kind, record.url, record.project)
    manifest = secret_manifest(record, namespace, name)
    try:
        parse_repository_secret(manifest)
    except RepositorySecretError as e:
        raise BadRequest(f"{e.field}: {e.problem}") from None
    try:
        created = await call.rt.control_plane.create(manifest)
    except ClusterConflict:
        if not upsert:
            raise Conflict(
                f"{what} {record.url} is already registered (Secret {namespace}/{name}); update "
                "it with PUT, or POST with upsert=true"
            ) from None
        current = await call.rt.control_plane.get("v1", "Secret", name, namespace=namespace)
        current["data"] = secret_data(record)
        current.setdefault("metadata", {}).setdefault("labels", {})[TYPE_LABEL] = record.kind.value
        created = await call.rt.control_plane.replace(current)
    logger.info(
        "api.repository_written", kind=record.kind.value, repo=record.url,
        project=record.project, secret=f"{namespace}/{name}", principal=call.principal.name,
    )  # fmt: skip
    return parse_repository_secret(created)


def _kept(record: RepositorySecret, stored: RepositorySecret) -> RepositorySecret:
    """`record` with each secret field left empty taken from what is stored."""
    keep = {f: getattr(stored.creds, f) for f in _FILLED_ON_UPDATE if not getattr(record.creds, f)}
    return replace(record, creds=replace(record.creds, **keep))


def _upsert(call: Call[Any, Any]) -> bool:
    return call.request.query.get("upsert", "").lower() in ("true", "1")


async def create_repository(call: Call[None, Repository]) -> RepositoryView:
    if not call.body.repo:
        raise BadRequest("repo: is required (the repository URL)")
    record = call.body.record()
    await _may(call, names.CREATE, record)
    written = await _write(call, record, upsert=_upsert(call), what="repository")
    return await _view(call, written, await _secrets(call, RepoKind.TEMPLATE), fresh=True)


async def update_repository(call: Call[None, Repository]) -> RepositoryView:
    stored = await _find(call, call.path("repo"))
    record = call.body.record()
    if not call.body.repo:
        record = RepositorySecret("", RepoKind.REPOSITORY, stored.url, record.type, record.name,
                                  record.project, record.creds)  # fmt: skip
    if not same_repository(_checked(stored).parsed, _checked(record).parsed):
        raise BadRequest(f"repo: {record.url!r} does not match the path's repository")
    await _may(call, names.UPDATE, stored)
    if record.project != stored.project:
        raise BadRequest("project: a repository cannot move between projects; delete and add it")
    written = await _write(call, _kept(record, stored), upsert=True, what="repository")
    return await _view(call, written, await _secrets(call, RepoKind.TEMPLATE), fresh=True)


async def _delete(call: Call[Any, Any], record: RepositorySecret) -> None:
    namespace, name = record.secret.split("/", 1)
    await call.rt.control_plane.delete("v1", "Secret", name, namespace, missing_ok=True)
    logger.info(
        "api.repository_deleted", kind=record.kind.value, repo=record.url,
        secret=record.secret, principal=call.principal.name,
    )  # fmt: skip


async def delete_repository(call: Call[None, None]) -> Result:
    record = await _find(call, call.path("repo"))
    await _may(call, names.DELETE, record)
    await _delete(call, record)
    return Result("", f"repository {record.url} deleted")


async def list_repocreds(call: Call[None, None]) -> RepoCredsList:
    records = sorted(await _secrets(call, RepoKind.TEMPLATE), key=lambda r: r.url)
    return RepoCredsList([RepoCredsView.of(r) for r in records if await _visible(call, r)])


async def _find_template(call: Call[Any, Any], url: str) -> RepositorySecret:
    wanted = url.rstrip("/")
    for record in await _secrets(call, RepoKind.TEMPLATE):
        if record.url.rstrip("/") == wanted and await _visible(call, record):
            return record
    raise NotFound(f"repository credential template {url} is not registered")


async def create_repocreds(call: Call[None, RepoCredsBody]) -> RepoCredsView:
    if not call.body.url:
        raise BadRequest("url: is required (the URL prefix the template is for)")
    record = call.body.record()
    await _may(call, names.CREATE, record)
    return RepoCredsView.of(await _write(call, record, upsert=_upsert(call), what="template"))


async def update_repocreds(call: Call[None, RepoCredsBody]) -> RepoCredsView:
    stored = await _find_template(call, call.path("url"))
    await _may(call, names.UPDATE, stored)
    record = call.body.record()
    if call.body.url and call.body.url.rstrip("/") != stored.url.rstrip("/"):
        raise BadRequest(f"url: {call.body.url!r} does not match the path's template")
    record = RepositorySecret("", RepoKind.TEMPLATE, stored.url, record.type, creds=record.creds)
    return RepoCredsView.of(await _write(call, _kept(record, stored), upsert=True, what="template"))


async def delete_repocreds(call: Call[None, None]) -> Result:
    record = await _find_template(call, call.path("url"))
    await _may(call, names.DELETE, record)
    await _delete(call, record)
    return Result("", f"repository credential template {record.url} deleted")


TAG = "repositories"
BASE = "/api/v1/repositories"
CREDS = "/api/v1/repocreds"
_WRITE_ERRORS = (400, 403, 409, 413, 415, 422)
ROUTES = (
    Route("GET", BASE, list_repositories, "listRepositories",
          "Registered repositories with their connection state", TAG, response=RepositoryList),
    Route("POST", BASE, create_repository, "createRepository",
          "Register a repository (a repository Secret); ?upsert=true replaces", TAG,
          body=Repository, response=RepositoryView, status=201, errors=_WRITE_ERRORS),
    Route("GET", BASE + "/{repo}", get_repository, "getRepository",
          "A registered repository (URL percent-encoded)", TAG, response=RepositoryView,
          errors=(400, 404)),
    Route("PUT", BASE + "/{repo}", update_repository, "updateRepository",
          "Change a repository; secret fields left empty are kept", TAG, body=Repository,
          response=RepositoryView, errors=(*_WRITE_ERRORS, 404)),
    Route("DELETE", BASE + "/{repo}", delete_repository, "deleteRepository",
          "Delete a repository's Secret", TAG, response=Result, errors=(400, 403, 404)),
    Route("POST", BASE + "/{repo}/validate", validate_repository, "validateRepository",
          "Check the repository with its credentials (Git: ls-remote, Helm: index.yaml, "
          "OCI: /v2/): the connection state", TAG,
          response=ConnectionState, errors=(400, 404)),
    Route("GET", CREDS, list_repocreds, "listRepoCreds", "Credential templates", TAG,
          response=RepoCredsList),
    Route("POST", CREDS, create_repocreds, "createRepoCreds",
          "Register a credential template (a repo-creds Secret); ?upsert=true replaces", TAG,
          body=RepoCredsBody, response=RepoCredsView, status=201, errors=_WRITE_ERRORS),
    Route("PUT", CREDS + "/{url}", update_repocreds, "updateRepoCreds",
          "Change a template; secret fields left empty are kept", TAG, body=RepoCredsBody,
          response=RepoCredsView, errors=(*_WRITE_ERRORS, 404)),
    Route("DELETE", CREDS + "/{url}", delete_repocreds, "deleteRepoCreds",
          "Delete a credential template", TAG, response=Result, errors=(400, 403, 404)),
)  # fmt: skip
