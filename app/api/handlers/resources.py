"""Per-resource reads for the web UI: manifests, diffs and Kubernetes events.

- `…/managed-resources`: every resource of the app's last comparison (re-run as the diff
  route runs it): its live manifest, its desired manifest, and for a resource a sync
  would change the unified diff and side-by-side rows (ignored fields and normalizations
  applied, Secret values masked everywhere, consistently on both sides).
- `…/resource`: the live manifest of one object of the app's resource tree (a managed
  object or one it owns: a ReplicaSet, a Pod), Secret values masked.
- `…/resource/events`: the core/v1 Events of one object of the tree, newest last.

An object outside the app's tree is answered 404 like an app the token may not see: the
tree is the boundary, so an app's reader learns nothing about the rest of its cluster.
"""

from dataclasses import dataclass, field

from app.api import access
from app.api.errors import Conflict, NotFound
from app.api.handlers.diff import current_comparison
from app.api.routes import Call, Route
from app.api.shapes import NAME_MAX, AppQuery
from app.cluster.cluster import Cluster
from app.engine.compare import ResourceComparison
from app.engine.diff.render import render_diff, yaml_lines
from app.engine.diff.side_by_side import DiffRow, side_by_side
from app.engine.rbac import names
from app.engine.redact import mask_secret, mask_secret_pair, redact_text
from app.engine.resource_tree import TreeNode
from app.model.resource import KubeObject
from app.runtime.clusters import UnknownDestination

MAX_EVENTS = 100
"""Events returned for one object (the newest)."""


def _text(obj: KubeObject | None) -> str:
    return "".join(yaml_lines(obj))


@dataclass
class SideBySideRow:
    tag: str = field(metadata={"doc": "equal, replace, delete, insert or skip"})
    left_line: int
    left: str
    right_line: int
    right: str


@dataclass
class ManagedResource:
    group: str
    version: str
    kind: str
    namespace: str
    name: str
    status: str = field(metadata={"doc": "sync status; empty for hooks and skipped objects"})
    health: str
    health_message: str
    hook: bool
    requires_pruning: bool
    sync_wave: int
    live_state: str = field(metadata={"doc": "the live object as YAML (Secrets masked)"})
    target_state: str = field(metadata={"doc": "the desired object as YAML (Secrets masked)"})
    diff: str = field(metadata={"doc": "unified diff, live above, target below"})
    side_by_side: list[SideBySideRow]


@dataclass
class ManagedResources:
    app: str
    revisions: list[str]
    items: list[ManagedResource]


def _rows(rows: list[DiffRow]) -> list[SideBySideRow]:
    return [SideBySideRow(r.tag, r.left_line, r.left, r.right_line, r.right) for r in rows]


def _managed(r: ResourceComparison) -> ManagedResource:
    live, target = mask_secret_pair(r.live, r.target)
    if r.modified:
        diff, rows = r.diff, side_by_side(r.normalized_live, r.predicted_live)
    elif r.requires_pruning:
        diff, rows = (
            render_diff(r.key, r.normalized_live, None),
            side_by_side(r.normalized_live, None),
        )
    else:
        diff, rows = "", []
    return ManagedResource(
        group=r.key.group,
        version=r.version,
        kind=r.key.kind,
        namespace=r.key.namespace,
        name=r.key.name,
        status=r.status.value if r.status is not None else "",
        health=r.health.status.value if r.health is not None else "",
        health_message=r.health.message if r.health is not None else "",
        hook=r.hook,
        requires_pruning=r.requires_pruning,
        sync_wave=r.sync_wave,
        live_state=_text(live),
        target_state=_text(target),
        diff=diff,
        side_by_side=_rows(rows),
    )


async def managed_resources(call: Call[AppQuery, None]) -> ManagedResources:
    found = await current_comparison(call)
    items = [_managed(r) for r in found.result.resources]
    return ManagedResources(str(found.ref), found.revisions, items)


@dataclass
class ResourceQuery:
    """One object of the app's resource tree (as its node names it)."""

    kind: str = field(metadata={"doc": "the object's kind", "max_length": NAME_MAX})
    resource_name: str = field(metadata={"doc": "the object's name", "max_length": NAME_MAX})
    group: str = field(default="", metadata={"doc": "API group; empty for core", "max_length": 253})
    version: str = field(default="", metadata={"doc": "API version, e.g. v1", "max_length": 63})
    namespace: str = field(
        default="", metadata={"doc": "empty for cluster-scoped", "max_length": 63}
    )
    app_namespace: str = field(
        default="",
        metadata={
            "doc": "namespace of the Application; default the control plane's",
            "max_length": 63,
        },
    )


@dataclass
class LiveResource:
    manifest: str = field(metadata={"doc": "the live object as YAML (Secret values masked)"})
    health: str
    health_message: str


@dataclass
class ResourceEvent:
    type: str
    reason: str
    message: str
    count: int
    first_timestamp: str
    last_timestamp: str
    source: str


@dataclass
class ResourceEvents:
    items: list[ResourceEvent]


async def _tree_node(call: Call[ResourceQuery, None]) -> tuple[Cluster, TreeNode]:
    ref, app = await access.named_app(call, names.GET)
    q = call.query
    for node in await call.rt.tree.load(ref) or []:
        if (
            node.get("kind") == q.kind
            and node.get("name") == q.resource_name
            and node.get("group", "") == q.group
            and node.get("namespace", "") == q.namespace
        ):
            try:
                cluster = call.rt.clusters.resolve(app.spec.destination)
            except UnknownDestination as e:
                raise Conflict(str(e)) from None
            return cluster, node
    what = f"{q.group}/{q.kind}".lstrip("/")
    where = f"{q.namespace}/{q.resource_name}" if q.namespace else q.resource_name
    raise NotFound(f"{what} {where} is not in the resource tree of application {ref}")


def _api_version(node: TreeNode) -> str:
    group, version = node.get("group", ""), node.get("version", "")
    return f"{group}/{version}" if group else version


async def live_resource(call: Call[ResourceQuery, None]) -> LiveResource:
    cluster, node = await _tree_node(call)
    obj = await cluster.get(
        _api_version(node), node["kind"], node["name"], node.get("namespace", "")
    )
    health = node.get("health") or {}
    return LiveResource(
        _text(mask_secret(obj)), health.get("status", ""), health.get("message", "")
    )


def _event(obj: KubeObject) -> ResourceEvent:
    source = obj.get("source") if isinstance(obj.get("source"), dict) else {}
    count = obj.get("count")
    return ResourceEvent(
        type=str(obj.get("type") or ""),
        reason=str(obj.get("reason") or ""),
        message=redact_text(str(obj.get("message") or "")),
        count=count if isinstance(count, int) else 1,
        first_timestamp=str(obj.get("firstTimestamp") or obj.get("eventTime") or ""),
        last_timestamp=str(obj.get("lastTimestamp") or obj.get("eventTime") or ""),
        source=str((source or {}).get("component") or obj.get("reportingComponent") or ""),
    )


async def resource_events(call: Call[ResourceQuery, None]) -> ResourceEvents:
    cluster, node = await _tree_node(call)
    selector = f"involvedObject.kind={node['kind']},involvedObject.name={node['name']}"
    found = await cluster.list(
        "v1", "Event", namespace=node.get("namespace", ""), field_selector=selector
    )
    uid = node.get("uid", "")
    items = [
        _event(e)
        for e in found.items
        if not uid or (e.get("involvedObject") or {}).get("uid", uid) == uid
    ]
    items.sort(key=lambda e: e.last_timestamp)
    return ResourceEvents(items[-MAX_EVENTS:])


TAG = "applications"
BASE = "/api/v1/applications/{name}"
ROUTES = (
    Route(
        method="GET",
        path=BASE + "/managed-resources",
        handler=managed_resources,
        operation_id="getManagedResources",
        summary="Every resource of the last comparison: live and desired manifests and diffs",
        tag=TAG,
        query=AppQuery,
        response=ManagedResources,
        errors=(400, 404, 409, 503),
    ),
    Route(
        method="GET",
        path=BASE + "/resource",
        handler=live_resource,
        operation_id="getResource",
        summary="The live manifest of one object of the app's resource tree",
        tag=TAG,
        query=ResourceQuery,
        response=LiveResource,
        errors=(400, 404, 409, 503),
    ),
    Route(
        method="GET",
        path=BASE + "/resource/events",
        handler=resource_events,
        operation_id="getResourceEvents",
        summary="The Kubernetes events of one object of the app's resource tree",
        tag=TAG,
        query=ResourceQuery,
        response=ResourceEvents,
        errors=(400, 404, 409, 503),
    ),
)
