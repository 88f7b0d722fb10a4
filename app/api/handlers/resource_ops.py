"""One app's resources: its manifests, a resource patched or deleted, pod logs.

- `…/manifests?source=git|live`: the desired objects of the last comparison (the cached
  render at its revisions), or the live objects the app manages; Secrets masked.
- `POST …/resource` (a patch) and `DELETE …/resource`: one object of the app's resource
  tree (a managed object or one it owns), addressed by group, kind, namespace and name.
  RBAC: `applications, update/<group>/<kind>/<namespace>/<name>` (or `delete/...`) on
  the app, as Argo CD's fine-grained actions; the project must permit the kind and
  namespace. An object outside the tree is 404, like an app the caller may not see.
- `…/logs`: what the cluster serves as the log of the app's pods (all of them, or the
  pods of one resource of the tree); RBAC `logs, get` on the app.
"""

import json
from dataclasses import dataclass, field
from typing import Any

import yaml

from app import log
from app.api import access, authz
from app.api.errors import BadRequest, Conflict, Forbidden, NotFound
from app.api.handlers.diff import desired
from app.api.routes import Call, Route
from app.api.shapes import NAME_MAX, Result
from app.cluster.cluster import Cluster
from app.cluster.errors import Invalid
from app.cluster.options import PatchType
from app.engine import project as rules
from app.engine.rbac import names
from app.engine.redact import mask_secret, redact_text
from app.engine.resource_tree import TreeNode
from app.model.application import Application
from app.model.resource import KubeObject
from app.model.sync import Propagation
from app.runtime.clusters import UnknownDestination

logger = log.get("api")

MAX_PATCH = 256 * 1024
MAX_LOG_BYTES = 1 << 20
MAX_PODS = 50


@dataclass
class ManifestsQuery:
    source: str = field(
        default="git",
        metadata={"doc": "`git` (desired) or `live`", "pattern": "^(git|live)$", "max_length": 4},
    )
    app_namespace: str = field(
        default="", metadata={"doc": "namespace of the Application", "max_length": 63}
    )


@dataclass
class Manifests:
    revisions: list[str]
    manifests: list[str] = field(metadata={"doc": "each object as YAML, Secrets masked"})


@dataclass
class ResourceQuery:
    """One object of the app's resource tree."""

    kind: str = field(metadata={"doc": "the object's kind", "max_length": NAME_MAX})
    resource_name: str = field(metadata={"doc": "the object's name", "max_length": NAME_MAX})
    group: str = field(default="", metadata={"doc": "API group; empty for core", "max_length": 253})
    namespace: str = field(
        default="", metadata={"doc": "empty for cluster-scoped", "max_length": 63}
    )
    app_namespace: str = field(
        default="", metadata={"doc": "namespace of the Application", "max_length": 63}
    )
    force: bool = field(default=False, metadata={"doc": "delete: without waiting (background)"})
    orphan: bool = field(default=False, metadata={"doc": "delete: leave the dependents"})


@dataclass
class PatchRequest:
    patch: str = field(metadata={"doc": "the patch, as JSON text", "max_length": MAX_PATCH})
    patch_type: str = field(
        default="merge",
        metadata={
            "doc": "`merge`, `json` or `strategic`",
            "pattern": "^(merge|json|strategic)$",
            "max_length": 9,
        },
    )


@dataclass
class LogsQuery:
    kind: str = field(
        default="", metadata={"doc": "only the pods of this resource", "max_length": NAME_MAX}
    )
    resource_name: str = field(default="", metadata={"max_length": NAME_MAX})
    group: str = field(default="", metadata={"max_length": 253})
    namespace: str = field(default="", metadata={"max_length": 63})
    container: str = field(default="", metadata={"max_length": NAME_MAX})
    tail_lines: int = field(
        default=0,
        metadata={"doc": "the last lines of each log; 0: all", "minimum": 0, "maximum": 100_000},
    )
    app_namespace: str = field(default="", metadata={"max_length": 63})


@dataclass
class PodLog:
    pod: str
    namespace: str
    container: str
    content: str


@dataclass
class Logs:
    items: list[PodLog]


def _yaml(obj: KubeObject) -> str:
    return yaml.safe_dump(mask_secret(obj), sort_keys=False)


def _cluster(call: Call[Any, Any], app: Application) -> Cluster:
    try:
        return call.rt.clusters.resolve(app.spec.destination)
    except UnknownDestination as e:
        raise Conflict(str(e)) from None


async def manifests(call: Call[ManifestsQuery, None]) -> Manifests:
    ref, app = await access.named_app(call, names.GET)
    if call.query.source == "git":
        revisions, objects = await desired(call.rt, ref, app)
        return Manifests(revisions, [_yaml(o) for o in objects])
    live = await call.rt.live.read(ref)
    if not live.warm:
        raise Conflict(f"the live state of application {ref} is not known yet: {live.reason}")
    return Manifests([], [_yaml(o) for o in live.objects.values()])


def _api_version(node: TreeNode) -> str:
    group, version = node.get("group", ""), node.get("version", "")
    return f"{group}/{version}" if group else version


async def tree_node(call: Call[Any, Any], app: Application) -> TreeNode:
    """The node of `app`'s resource tree that the query's group, kind, namespace and
    resource_name name (the resource and the resource-action routes share it)."""
    q = call.query
    for node in await call.rt.tree.load(app.ref) or []:
        if (
            node.get("kind") == q.kind
            and node.get("name") == q.resource_name
            and node.get("group", "") == q.group
            and node.get("namespace", "") == q.namespace
        ):
            return node
    what = f"{q.group}/{q.kind}".lstrip("/")
    where = f"{q.namespace}/{q.resource_name}" if q.namespace else q.resource_name
    raise NotFound(f"{what} {where} is not a resource of application {app.ref}")


async def _writable(call: Call[ResourceQuery, Any], verb: str) -> tuple[Application, TreeNode]:
    """The app and the tree node a write names, once RBAC and the project allow it."""
    _, app = await access.named_app(call, names.GET)
    node = await tree_node(call, app)
    q = call.query
    action = names.resource_action(verb, q.group, q.kind, q.namespace, q.resource_name)
    await authz.require(call, names.APPLICATIONS, action, access.app_object(call, app))
    project = await authz.load_project(call.rt, app.spec.project or "default")
    if project is None:
        raise Conflict(f"project {app.spec.project!r} of application {app.ref} does not exist")
    permission = rules.group_kind_permitted(project, q.group, q.kind, namespaced=bool(q.namespace))
    if permission.allowed and q.namespace:
        dest = app.spec.destination
        permission = rules.namespace_permitted(
            project, q.namespace, server=dest.server, name=dest.name
        )
    if not permission.allowed:
        raise Forbidden(f"{q.kind} {q.resource_name}: {permission.message}")
    return app, node


async def patch_resource(call: Call[ResourceQuery, PatchRequest]) -> Result:
    app, node = await _writable(call, names.UPDATE)
    try:
        patch = json.loads(call.body.patch)
    except ValueError as e:
        raise BadRequest(f"patch: not JSON ({e})") from None
    kind = {"merge": PatchType.MERGE, "json": PatchType.JSON, "strategic": PatchType.STRATEGIC}
    if not isinstance(patch, list if call.body.patch_type == "json" else dict):
        raise BadRequest(
            f"patch: a {call.body.patch_type} patch must be a JSON "
            + ("list" if call.body.patch_type == "json" else "object")
        )
    try:
        await _cluster(call, app).patch(
            _api_version(node),
            node["kind"],
            node["name"],
            patch,
            namespace=node.get("namespace", ""),
            patch_type=kind[call.body.patch_type],
        )
    except Invalid as e:
        raise BadRequest(f"the cluster refused the patch: {redact_text(str(e))}") from None
    logger.info(
        "api.resource_patched",
        app=str(app.ref),
        kind=node["kind"],
        name=node["name"],
        namespace=node.get("namespace", ""),
        principal=call.principal.name,
    )
    return Result(str(app.ref), f"{node['kind']} {node['name']} patched")


async def delete_resource(call: Call[ResourceQuery, None]) -> Result:
    app, node = await _writable(call, names.DELETE)
    q = call.query
    propagation = (
        Propagation.ORPHAN
        if q.orphan
        else Propagation.BACKGROUND
        if q.force
        else Propagation.FOREGROUND
    )
    await _cluster(call, app).delete(
        _api_version(node),
        node["kind"],
        node["name"],
        node.get("namespace", ""),
        propagation=propagation,
        missing_ok=True,
    )
    logger.info(
        "api.resource_deleted",
        app=str(app.ref),
        kind=node["kind"],
        name=node["name"],
        namespace=node.get("namespace", ""),
        propagation=propagation.value,
        principal=call.principal.name,
    )
    return Result(str(app.ref), f"{node['kind']} {node['name']} deleted")


def _pods(tree: list[TreeNode], under: TreeNode | None) -> list[TreeNode]:
    """The pods of the tree, or those `under` owns (directly or through others)."""
    pods = [n for n in tree if n.get("kind") == "Pod" and n.get("group", "") == ""]
    if under is None or under.get("kind") == "Pod":
        return [under] if under is not None else pods
    owned = {under.get("uid", "")}
    changed = True
    while changed:
        changed = False
        for node in tree:
            parents = {p.get("uid", "") for p in node.get("parentRefs") or []}
            if node.get("uid") not in owned and parents & owned:
                owned.add(node.get("uid", ""))
                changed = True
    return [p for p in pods if p.get("uid") in owned]


async def pod_logs(call: Call[LogsQuery, None]) -> Logs:
    _, app = await access.named_app(call, names.GET)
    await authz.require(call, names.LOGS, names.GET, access.app_object(call, app))
    q = call.query
    tree = list(await call.rt.tree.load(app.ref) or [])
    under = None
    if q.kind:
        under = next(
            (
                n
                for n in tree
                if n.get("kind") == q.kind
                and n.get("name") == q.resource_name
                and n.get("group", "") == q.group
                and n.get("namespace", "") == q.namespace
            ),
            None,
        )
        if under is None:
            raise NotFound(f"{q.kind} {q.resource_name} is not a resource of application {app.ref}")
    cluster = _cluster(call, app)
    items = []
    for pod in _pods(tree, under)[:MAX_PODS]:
        text = await cluster.pod_log(
            pod.get("namespace", ""), pod["name"], container=q.container, tail_lines=q.tail_lines
        )
        items.append(
            PodLog(
                pod["name"],
                pod.get("namespace", ""),
                q.container,
                redact_text(text[-MAX_LOG_BYTES:]),
            )
        )
    return Logs(items)


TAG = "applications"
BASE = "/api/v1/applications/{name}"
ROUTES = (
    Route(
        method="GET",
        path=BASE + "/manifests",
        handler=manifests,
        operation_id="getManifests",
        tag=TAG,
        query=ManifestsQuery,
        response=Manifests,
        summary="The app's desired (git) or live manifests, Secrets masked",
        errors=(400, 404, 409),
    ),
    Route(
        method="POST",
        path=BASE + "/resource",
        handler=patch_resource,
        operation_id="patchResource",
        tag=TAG,
        query=ResourceQuery,
        body=PatchRequest,
        response=Result,
        summary="Patch one object of the app's resource tree",
        errors=(400, 403, 404, 409, 413, 415),
    ),
    Route(
        method="DELETE",
        path=BASE + "/resource",
        handler=delete_resource,
        operation_id="deleteResource",
        tag=TAG,
        query=ResourceQuery,
        response=Result,
        summary="Delete one object of the app's resource tree",
        errors=(400, 403, 404, 409),
    ),
    Route(
        method="GET",
        path=BASE + "/logs",
        handler=pod_logs,
        operation_id="getPodLogs",
        tag=TAG,
        query=LogsQuery,
        response=Logs,
        summary="What the cluster serves as the log of the app's pods",
        errors=(400, 403, 404, 409),
    ),
)
