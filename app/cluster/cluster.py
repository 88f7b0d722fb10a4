"""`Cluster`: one destination cluster's reads, writes and watches, as plain dicts.

Each call resolves the object's type through discovery, builds its path from checked
names, and sends one raw request (two for a client-side apply or a replace of a missing
object) under one deadline. Writes carry Sluice's field manager; `dry_run=True` asks the
server to compute the result and store nothing (`dryRun=All`). Writing a
CustomResourceDefinition drops the discovery cache, so its kinds resolve right after.
"""

import asyncio
import copy
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from types import TracebackType
from typing import Any

from app import log
from app.cluster import last_applied
from app.cluster.config import ClusterConfig
from app.cluster.discovery import Discovery
from app.cluster.errors import Invalid, NotFound, Target, error_for_exception
from app.cluster.library import ApiClient
from app.cluster.listing import list_objects
from app.cluster.options import (
    ApplyMode,
    FieldValidation,
    ObjectList,
    PatchType,
    Preconditions,
)
from app.cluster.paths import collection_path, object_path, require_namespace
from app.cluster.resources import ResourceType
from app.cluster.settings import FIELD_MANAGER, ClusterSettings
from app.cluster.transport import Transport, read_environment_once
from app.cluster.watching import Watch
from app.engine.merge import PatchError
from app.model.resource import GroupKind, KubeObject
from app.model.sync import Propagation

CRD = GroupKind("apiextensions.k8s.io", "CustomResourceDefinition")
Params = list[tuple[str, str]]
"""Query parameters (a module-level alias: inside `Cluster`, `list` is a method)."""
Operations = list[dict[str, Any]]
"""A JSON patch (RFC 6902): a list of operations."""


def _identity(obj: Any, verb: str) -> tuple[str, str, str, str]:
    """apiVersion, kind, namespace, name of a manifest, or Invalid saying what is missing."""
    if not isinstance(obj, dict):
        raise Invalid(f"expected an object (a map), got {type(obj).__name__}", target=Target(verb))
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    name, namespace = meta.get("name") or "", meta.get("namespace") or ""
    target = Target(verb, str(kind or ""), str(api_version or ""), str(namespace), str(name))
    for field, value in (("apiVersion", api_version), ("kind", kind)):
        if not isinstance(value, str) or not value:
            raise Invalid(f"{field} is missing or not a string", target=target)
    if not isinstance(name, str) or not isinstance(namespace, str):
        raise Invalid("metadata.name and metadata.namespace must be strings", target=target)
    return str(api_version), str(kind), namespace, name


def _dry_run(dry_run: bool) -> Params:
    return [("dryRun", "All")] if dry_run else []


def _write_query(
    field_manager: str, dry_run: bool, validation: FieldValidation | None = None
) -> Params:
    query = [("fieldManager", field_manager), *_dry_run(dry_run)]
    return [*query, ("fieldValidation", validation.value)] if validation else query


class Cluster:
    """One cluster, opened with `async with Cluster(config) as cluster:`.

    Every method takes `time_limit` (seconds, default `settings.request_timeout`): the
    deadline of the whole call, discovery included. Errors are `ClusterError`s.
    """

    def __init__(self, config: ClusterConfig, settings: ClusterSettings | None = None) -> None:
        self.config = config
        self.name = config.name
        self.settings = settings or ClusterSettings()
        self._log = log.get("cluster", cluster=self.name)
        self._api: Any = None
        self._transport: Transport | None = None
        self._discovery: Discovery | None = None

    async def __aenter__(self) -> "Cluster":
        configuration = copy.deepcopy(self.config.configuration)
        configuration.connection_pool_maxsize = 0
        self._api = ApiClient(configuration)
        self._api.user_agent = self.settings.user_agent
        read_environment_once(self._api)
        self._transport = Transport(self._api, self.settings, self.name, self.config.server)
        self._discovery = Discovery(self._transport, self.settings, self.name)
        self._log.debug("cluster.opened", server=self.config.server)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every connection; the Cluster cannot be used afterwards."""
        if self._api is not None:
            await self._api.close()
            self._api = self._transport = self._discovery = None

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            raise RuntimeError("the Cluster is not open: use `async with Cluster(config)`")
        return self._transport

    @property
    def discovery(self) -> Discovery:
        if self._discovery is None:
            raise RuntimeError("the Cluster is not open: use `async with Cluster(config)`")
        return self._discovery

    def invalidate(self) -> None:
        """Forget discovered resource types (a CRD appeared or went): reload on next use."""
        self.discovery.invalidate()

    @asynccontextmanager
    async def _deadline(self, target: Target, time_limit: float | None) -> AsyncIterator[None]:
        limit = self.settings.request_timeout if time_limit is None else time_limit
        try:
            async with asyncio.timeout(limit):
                yield
        except TimeoutError as e:
            raise error_for_exception(e, target, timeout=limit) from e

    def _target(self, verb: str, api_version: str, kind: str, namespace: str, name: str) -> Target:
        return Target(verb, kind, api_version, namespace, name, self.name)

    def _object_target(self, obj: Any, verb: str) -> Target:
        """The target of writing manifest `obj`; Invalid when it names no object."""
        return self._target(verb, *_identity(obj, verb))

    @asynccontextmanager
    async def _resolved(
        self, target: Target, time_limit: float | None
    ) -> AsyncIterator[ResourceType]:
        """Under the call's deadline: the resource type of the target's kind."""
        async with self._deadline(target, time_limit):
            yield await self.discovery.resolve(target.api_version, target.kind)

    async def resource(
        self, api_version: str, kind: str, *, time_limit: float | None = None
    ) -> ResourceType:
        """The served resource type of `kind` in `api_version` (UnknownKind if none)."""
        target = self._target("resolve", api_version, kind, "", "")
        async with self._deadline(target, time_limit):
            return await self.discovery.resolve(api_version, kind)

    async def preferred_resource(
        self, group_kind: GroupKind, *, time_limit: float | None = None
    ) -> ResourceType:
        """The resource type of `group_kind` in its group's preferred version."""
        target = self._target("resolve", group_kind.group, group_kind.kind, "", "")
        async with self._deadline(target, time_limit):
            return await self.discovery.resolve_group_kind(group_kind)

    async def resource_types(self, *, time_limit: float | None = None) -> list[ResourceType]:
        """Every served kind, once each, in its group's preferred version."""
        async with self._deadline(Target("discover", cluster=self.name), time_limit):
            return list((await self.discovery.index()).preferred())

    async def get(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str = "",
        *,
        subresource: str = "",
        time_limit: float | None = None,
    ) -> KubeObject:
        """The live object (NotFound if it does not exist)."""
        target = self._target("get", api_version, kind, namespace, name)
        async with self._resolved(target, time_limit) as rt:
            path = object_path(rt, namespace, name, target, subresource)
            obj: KubeObject = await self.transport.call("GET", path, target)
            return obj

    async def pod_log(
        self,
        namespace: str,
        name: str,
        *,
        container: str = "",
        tail_lines: int = 0,
        time_limit: float | None = None,
    ) -> str:
        """What the cluster serves as a pod's log (`GET .../pods/NAME/log`), as text."""
        target = self._target("get", "v1", "Pod", namespace, name)
        query: list[tuple[str, str]] = []
        if container:
            query.append(("container", container))
        if tail_lines:
            query.append(("tailLines", str(tail_lines)))
        async with self._resolved(target, time_limit) as rt:
            path = object_path(rt, namespace, name, target, "log")
            data: bytes = await self.transport.call(
                "GET", path, target, query=query, accept="text/plain", raw=True
            )
            return data.decode(errors="replace")

    async def list(
        self,
        api_version: str,
        kind: str,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        time_limit: float | None = None,
    ) -> ObjectList:
        """Every object of a kind (in `namespace`, or all) matching the selectors."""
        target = self._target("list", api_version, kind, namespace, "")
        async with self._resolved(target, time_limit) as rt:
            return await list_objects(
                self.transport,
                rt,
                target,
                namespace=namespace,
                label_selector=label_selector,
                field_selector=field_selector,
                page_size=self.settings.list_page_size,
            )

    def _after_write(self, rt: ResourceType, dry_run: bool) -> None:
        if rt.group_kind == CRD and not dry_run:
            self.discovery.invalidate()

    async def _post(
        self, rt: ResourceType, obj: KubeObject, target: Target, query: Params
    ) -> KubeObject:
        meta = obj.get("metadata") or {}
        if not meta.get("name") and not meta.get("generateName"):
            raise Invalid("metadata.name (or generateName) is empty", target=target)
        namespace = str(meta.get("namespace") or "")
        require_namespace(rt, namespace, target)
        path = collection_path(rt, namespace, target)
        created: KubeObject = await self.transport.call("POST", path, target, query=query, body=obj)
        return created

    async def create(
        self,
        obj: KubeObject,
        *,
        dry_run: bool = False,
        field_manager: str = FIELD_MANAGER,
        field_validation: FieldValidation | None = None,
        time_limit: float | None = None,
    ) -> KubeObject:
        """POST a new object (Conflict, reason AlreadyExists, if it exists); `generateName`
        works. Returns the object as stored (or as it would be, with `dry_run`)."""
        target = self._object_target(obj, "create")
        async with self._resolved(target, time_limit) as rt:
            query = _write_query(field_manager, dry_run, field_validation)
            created = await self._post(rt, obj, target, query)
            self._after_write(rt, dry_run)
            return created

    async def replace(
        self,
        obj: KubeObject,
        *,
        dry_run: bool = False,
        field_manager: str = FIELD_MANAGER,
        field_validation: FieldValidation | None = None,
        time_limit: float | None = None,
    ) -> KubeObject:
        """PUT the whole object (kubectl replace), creating it when it does not exist.

        A resourceVersion in `obj` makes it conditional (Conflict if the object changed).
        """
        target = self._object_target(obj, "replace")
        async with self._resolved(target, time_limit) as rt:
            path = object_path(rt, target.namespace, target.name, target)
            query = _write_query(field_manager, dry_run, field_validation)
            try:
                result: KubeObject = await self.transport.call(
                    "PUT", path, target, query=query, body=obj
                )
            except NotFound:
                self._log.info("cluster.replace_creates", target=str(target))
                result = await self._post(rt, obj, replace(target, verb="create"), query)
            self._after_write(rt, dry_run)
            return result

    async def replace_status(
        self, obj: KubeObject, *, dry_run: bool = False, time_limit: float | None = None
    ) -> KubeObject:
        """PUT the object's status subresource: only `status` changes, generation does not."""
        target = self._object_target(obj, "replace status")
        async with self._resolved(target, time_limit) as rt:
            path = object_path(rt, target.namespace, target.name, target, "status")
            result: KubeObject = await self.transport.call(
                "PUT", path, target, query=_dry_run(dry_run), body=obj
            )
            return result

    async def apply(
        self,
        obj: KubeObject,
        *,
        mode: ApplyMode = ApplyMode.SERVER_SIDE,
        force: bool = True,
        dry_run: bool = False,
        field_manager: str = FIELD_MANAGER,
        field_validation: FieldValidation | None = None,
        time_limit: float | None = None,
        migrate: bool = False,
    ) -> KubeObject:
        """Make the live object match `obj`, creating it if absent; returns the result.

        SERVER_SIDE: server-side apply as `field_manager`; `force` takes over fields other
        managers own (else Conflict naming them). CLIENT_SIDE: kubectl's apply: store `obj`
        in the last-applied annotation and send the three-way patch between the previous
        annotation, `obj` and the live object, so fields dropped from `obj` are removed;
        `migrate` (ClientSideApplyMigration) takes Argo CD's server-side fields as the
        previous annotation when there is none. `field_validation` goes with every write
        (None: the server's default).
        """
        target = self._object_target(obj, "apply")
        async with self._resolved(target, time_limit) as rt:
            path = object_path(rt, target.namespace, target.name, target)
            query = _write_query(field_manager, dry_run, field_validation)
            if mode is ApplyMode.SERVER_SIDE:
                result: KubeObject = await self.transport.call(
                    "PATCH",
                    path,
                    target,
                    query=[*query, ("force", "true")] if force else query,
                    body=obj,
                    content_type=PatchType.APPLY.value,
                )
            else:
                result = await self._client_side_apply(
                    rt, obj, path, target, query, migrate=migrate
                )
            self._after_write(rt, dry_run)
            return result

    async def _client_side_apply(
        self,
        rt: ResourceType,
        obj: KubeObject,
        path: str,
        target: Target,
        query: Params,
        *,
        migrate: bool,
    ) -> KubeObject:
        modified = last_applied.annotate(obj)
        try:
            current: KubeObject = await self.transport.call(
                "GET", path, replace(target, verb="get")
            )
        except NotFound:
            return await self._post(rt, modified, replace(target, verb="create"), query)
        try:
            patch, patch_type = last_applied.three_way_patch(modified, current, migrate=migrate)
        except PatchError as e:
            raise Invalid(f"cannot compute the apply patch: {e}", target=target) from e
        if not patch:
            self._log.debug("cluster.apply_unchanged", target=str(target))
            return current
        result: KubeObject = await self.transport.call(
            "PATCH", path, target, query=query, body=patch, content_type=patch_type.value
        )
        return result

    async def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        patch: KubeObject | Operations,
        *,
        namespace: str = "",
        patch_type: PatchType = PatchType.MERGE,
        subresource: str = "",
        dry_run: bool = False,
        field_manager: str = FIELD_MANAGER,
        time_limit: float | None = None,
    ) -> KubeObject:
        """PATCH an object (or its `subresource`, e.g. `status`); returns the result.

        `patch` is a list of operations for PatchType.JSON, else a partial object.
        """
        target = self._target("patch", api_version, kind, namespace, name)
        if (patch_type is PatchType.JSON) != isinstance(patch, list):
            shape = "a list of operations" if patch_type is PatchType.JSON else "an object"
            raise Invalid(f"a {patch_type.name} patch must be {shape}", target=target)
        async with self._resolved(target, time_limit) as rt:
            path = object_path(rt, namespace, name, target, subresource)
            query = _write_query(field_manager, dry_run)
            result: KubeObject = await self.transport.call(
                "PATCH", path, target, query=query, body=patch, content_type=patch_type.value
            )
            self._after_write(rt, dry_run)
            return result

    async def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str = "",
        *,
        propagation: Propagation = Propagation.BACKGROUND,
        preconditions: Preconditions | None = None,
        dry_run: bool = False,
        missing_ok: bool = False,
        time_limit: float | None = None,
    ) -> KubeObject | None:
        """Delete an object with `propagation` for its dependents.

        Returns the object while it is still there (finalizers or foreground deletion
        pending: it carries a deletionTimestamp), None when the server answered with a
        Status, and None for a missing object if `missing_ok` (else NotFound). With
        `preconditions`, only that uid/resourceVersion is deleted (else Conflict).
        """
        target = self._target("delete", api_version, kind, namespace, name)
        body: dict[str, Any] = {
            "kind": "DeleteOptions",
            "apiVersion": "v1",
            "propagationPolicy": propagation.policy,
        }
        if preconditions is not None:
            body["preconditions"] = {
                k: v
                for k, v in (
                    ("uid", preconditions.uid),
                    ("resourceVersion", preconditions.resource_version),
                )
                if v
            }
        if dry_run:
            body["dryRun"] = ["All"]
        async with self._deadline(target, time_limit):
            try:
                rt = await self.discovery.resolve(api_version, kind)
                path = object_path(rt, namespace, name, target)
                answer = await self.transport.call(
                    "DELETE", path, target, query=_dry_run(dry_run), body=body
                )
            except NotFound:
                if missing_ok:
                    return None
                raise
            self._after_write(rt, dry_run)
        if isinstance(answer, dict) and answer.get("kind") not in (None, "Status"):
            return answer
        return None

    def watch(
        self,
        api_version: str,
        kind: str,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
    ) -> Watch:
        """A resumable stream of changes; see `app.cluster.watching`.

        `async with cluster.watch("apps/v1", "Deployment") as events:` then
        `async for event in events:` yields WatchEvent and Synced values until cancelled.
        """
        target = self._target("watch", api_version, kind, namespace, "")
        return Watch(
            self.transport,
            self.discovery,
            self.settings,
            target,
            label_selector=label_selector,
            field_selector=field_selector,
        )
