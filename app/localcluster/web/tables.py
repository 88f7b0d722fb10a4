"""`Table` responses for `kubectl get` (Accept: application/json;as=Table;g=meta.k8s.io).

Built-in types get the columns kubectl users know (READY, STATUS, UP-TO-DATE ...);
custom resources get their CRD's additionalPrinterColumns; anything else NAME and AGE.
Ages are rendered as kubectl renders them ("45s", "3m12s", "5h", "12d").
"""

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from app.localcluster.resources import GroupResource, PrinterColumn, ResourceType
from app.localcluster.strategies import lookup
from app.model.resource import KubeObject
from app.model.timestamps import parse_time

Cell = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type: str
    cell: Callable[[KubeObject], Cell]
    priority: int = 0
    format: str = ""


def human_duration(seconds: float) -> str:
    """kubectl's HumanDuration."""
    if seconds < -1:
        return "<invalid>"
    s = max(int(seconds), 0)
    minutes, hours, days = s // 60, s // 3600, s // 86400
    if s < 120:
        return f"{s}s"
    if minutes < 10:
        return f"{minutes}m{s % 60}s" if s % 60 else f"{minutes}m"
    if hours < 3:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 192:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    if days < 730:
        return f"{days}d"
    years = days // 365
    if years < 8:
        return f"{years}y{days % 365}d" if days % 365 else f"{years}y"
    return f"{years}y"


def age_of(stamp: Any) -> str:
    if not isinstance(stamp, str) or not stamp:
        return "<unknown>"
    try:
        then = parse_time(stamp, default_zone=UTC).timestamp()
    except ValueError:
        return "<unknown>"
    return human_duration(time.time() - then)


def _age(obj: KubeObject) -> Cell:
    return age_of(obj["metadata"].get("creationTimestamp"))


def _name(obj: KubeObject) -> Cell:
    return str(obj["metadata"].get("name", ""))


def _get(path: str, default: Cell = 0) -> Callable[[KubeObject], Cell]:
    def cell(obj: KubeObject) -> Cell:
        value = lookup(obj, path)
        return default if value is None else value

    return cell


def _ratio(ready: str, total: str) -> Callable[[KubeObject], Cell]:
    def cell(obj: KubeObject) -> Cell:
        return f"{lookup(obj, ready) or 0}/{lookup(obj, total) or 0}"

    return cell


def _pod_ready(obj: KubeObject) -> Cell:
    statuses = lookup(obj, "status.containerStatuses") or []
    containers = lookup(obj, "spec.containers") or []
    return f"{sum(1 for s in statuses if s.get('ready'))}/{len(containers)}"


def _pod_status(obj: KubeObject) -> Cell:
    if obj["metadata"].get("deletionTimestamp"):
        return "Terminating"
    for status in lookup(obj, "status.containerStatuses") or []:
        state = status.get("state") or {}
        for detail in (state.get("waiting"), state.get("terminated")):
            if detail and detail.get("reason"):
                return str(detail["reason"])
    return str(lookup(obj, "status.phase") or "Pending")


def _restarts(obj: KubeObject) -> Cell:
    return sum(
        int(s.get("restartCount") or 0) for s in lookup(obj, "status.containerStatuses") or []
    )


def _count(path: str) -> Callable[[KubeObject], Cell]:
    def cell(obj: KubeObject) -> Cell:
        value = lookup(obj, path)
        return len(value) if isinstance(value, dict | list) else 0

    return cell


def _ports(obj: KubeObject) -> Cell:
    ports = lookup(obj, "spec.ports") or []
    shown = []
    for port in ports:
        node_port = f":{port['nodePort']}" if port.get("nodePort") else ""
        shown.append(f"{port.get('port')}{node_port}/{port.get('protocol', 'TCP')}")
    text = ",".join(shown)
    return text or "<none>"


def _external_ip(obj: KubeObject) -> Cell:
    ingress = lookup(obj, "status.loadBalancer.ingress") or []
    addresses = [i.get("ip") or i.get("hostname") for i in ingress]
    if addresses:
        return ",".join(a for a in addresses if a)
    return "<pending>" if lookup(obj, "spec.type") == "LoadBalancer" else "<none>"


def _job_status(obj: KubeObject) -> Cell:
    for condition in lookup(obj, "status.conditions") or []:
        if condition.get("status") == "True" and condition.get("type") in (
            "Complete",
            "Failed",
            "Suspended",
        ):
            return str(condition["type"])
    return "Running"


def _hosts(obj: KubeObject) -> Cell:
    hosts = [r.get("host") for r in lookup(obj, "spec.rules") or [] if r.get("host")]
    return ",".join(hosts) or "*"


def _last_seen(obj: KubeObject) -> Cell:
    """kubectl's LAST SEEN: the last time, and `(xN over D)` for a repeated event."""
    last = lookup(obj, "lastTimestamp") or lookup(obj, "eventTime")
    count = int(lookup(obj, "count") or 1)
    if count > 1:
        first = lookup(obj, "firstTimestamp") or last
        return f"{age_of(last)} (x{count} over {age_of(first)})"
    return age_of(last)


def _involved(obj: KubeObject) -> Cell:
    kind = str(lookup(obj, "involvedObject.kind") or "").lower()
    return f"{kind}/{lookup(obj, 'involvedObject.name') or ''}"


def _event_source(obj: KubeObject) -> Cell:
    component = lookup(obj, "source.component") or lookup(obj, "reportingComponent") or ""
    host = lookup(obj, "source.host")
    return f"{component}, {host}" if host else str(component)


def _hpa_reference(obj: KubeObject) -> Cell:
    return f"{lookup(obj, 'spec.scaleTargetRef.kind')}/{lookup(obj, 'spec.scaleTargetRef.name')}"


def _hpa_targets(obj: KubeObject) -> Cell:
    shown = []
    for metric in lookup(obj, "spec.metrics") or ():
        resource = metric.get("resource") if isinstance(metric, dict) else None
        if not isinstance(resource, dict):
            shown.append("<unknown>/<unknown>")
            continue
        target = resource.get("target") or {}
        wanted = target.get("averageUtilization")
        goal = f"{wanted}%" if wanted is not None else str(target.get("averageValue", "<unset>"))
        shown.append(f"{resource.get('name')}: <unknown>/{goal}")
    return ", ".join(shown) or "<none>"


def _last_schedule(obj: KubeObject) -> Cell:
    stamp = lookup(obj, "status.lastScheduleTime")
    return age_of(stamp) if stamp else "<none>"


_NAME = Column("Name", "string", _name, format="name")
_AGE = Column("Age", "string", _age)

_COLUMNS: dict[GroupResource, tuple[Column, ...]] = {
    GroupResource("", "pods"): (
        _NAME,
        Column("Ready", "string", _pod_ready),
        Column("Status", "string", _pod_status),
        Column("Restarts", "integer", _restarts),
        _AGE,
        Column("IP", "string", _get("status.podIP", "<none>"), priority=1),
    ),
    GroupResource("apps", "deployments"): (
        _NAME,
        Column("Ready", "string", _ratio("status.readyReplicas", "spec.replicas")),
        Column("Up-to-date", "integer", _get("status.updatedReplicas")),
        Column("Available", "integer", _get("status.availableReplicas")),
        _AGE,
    ),
    GroupResource("apps", "replicasets"): (
        _NAME,
        Column("Desired", "integer", _get("spec.replicas")),
        Column("Current", "integer", _get("status.replicas")),
        Column("Ready", "integer", _get("status.readyReplicas")),
        _AGE,
    ),
    GroupResource("apps", "statefulsets"): (
        _NAME,
        Column("Ready", "string", _ratio("status.readyReplicas", "spec.replicas")),
        _AGE,
    ),
    GroupResource("apps", "daemonsets"): (
        _NAME,
        Column("Desired", "integer", _get("status.desiredNumberScheduled")),
        Column("Current", "integer", _get("status.currentNumberScheduled")),
        Column("Ready", "integer", _get("status.numberReady")),
        Column("Up-to-date", "integer", _get("status.updatedNumberScheduled")),
        Column("Available", "integer", _get("status.numberAvailable")),
        _AGE,
    ),
    GroupResource("", "services"): (
        _NAME,
        Column("Type", "string", _get("spec.type", "ClusterIP")),
        Column("Cluster-IP", "string", _get("spec.clusterIP", "<none>")),
        Column("External-IP", "string", _external_ip),
        Column("Port(s)", "string", _ports),
        _AGE,
    ),
    GroupResource("", "namespaces"): (
        _NAME,
        Column("Status", "string", _get("status.phase", "")),
        _AGE,
    ),
    GroupResource("", "configmaps"): (_NAME, Column("Data", "integer", _count("data")), _AGE),
    GroupResource("", "secrets"): (
        _NAME,
        Column("Type", "string", _get("type", "Opaque")),
        Column("Data", "integer", _count("data")),
        _AGE,
    ),
    GroupResource("batch", "jobs"): (
        _NAME,
        Column("Status", "string", _job_status),
        Column("Completions", "string", _ratio("status.succeeded", "spec.completions")),
        _AGE,
    ),
    GroupResource("", "persistentvolumeclaims"): (
        _NAME,
        Column("Status", "string", _get("status.phase", "")),
        Column("Volume", "string", _get("spec.volumeName", "")),
        _AGE,
    ),
    GroupResource("networking.k8s.io", "ingresses"): (
        _NAME,
        Column("Class", "string", _get("spec.ingressClassName", "<none>")),
        Column("Hosts", "string", _hosts),
        Column("Address", "string", _external_ip),
        _AGE,
    ),
    GroupResource("", "events"): (
        Column("Last Seen", "string", _last_seen),
        Column("Type", "string", _get("type", "")),
        Column("Reason", "string", _get("reason", "")),
        Column("Object", "string", _involved),
        Column("Message", "string", _get("message", "")),
        Column("Subobject", "string", _get("involvedObject.fieldPath", ""), priority=1),
        Column("Source", "string", _event_source, priority=1),
        Column("First Seen", "string", lambda o: age_of(lookup(o, "firstTimestamp")), priority=1),
        Column("Count", "integer", _get("count", 1), priority=1),
        Column("Name", "string", _name, priority=1),
    ),
    GroupResource("autoscaling", "horizontalpodautoscalers"): (
        _NAME,
        Column("Reference", "string", _hpa_reference),
        Column("Targets", "string", _hpa_targets),
        Column("MinPods", "string", _get("spec.minReplicas", 1)),
        Column("MaxPods", "integer", _get("spec.maxReplicas")),
        Column("Replicas", "integer", _get("status.currentReplicas")),
        _AGE,
    ),
    GroupResource("batch", "cronjobs"): (
        _NAME,
        Column("Schedule", "string", _get("spec.schedule", "")),
        Column("Timezone", "string", _get("spec.timeZone", "<none>")),
        Column("Suspend", "boolean", _get("spec.suspend", False)),
        Column("Active", "integer", _count("status.active")),
        Column("Last Schedule", "string", _last_schedule),
        _AGE,
    ),
    GroupResource("apiextensions.k8s.io", "customresourcedefinitions"): (
        _NAME,
        Column("Created At", "date", _get("metadata.creationTimestamp", "")),
    ),
}


def _json_path(path: str) -> Callable[[KubeObject], Cell]:
    """A CRD printer column's simple JSONPath (`.status.sync.status`, `.spec.items[0].x`)."""
    steps: list[str | int] = []
    for part in path.strip().lstrip(".").split("."):
        name, _, index = part.partition("[")
        if name:
            steps.append(name)
        if index.rstrip("]").isdigit():
            steps.append(int(index.rstrip("]")))

    def cell(obj: KubeObject) -> Cell:
        node: Any = obj
        for step in steps:
            if isinstance(step, int):
                node = node[step] if isinstance(node, list) and step < len(node) else None
            else:
                node = node.get(step) if isinstance(node, dict) else None
        if isinstance(node, dict | list):
            return str(node)
        return node  # type: ignore[no-any-return]

    return cell


def _printer_column(column: PrinterColumn) -> Column:
    read = _json_path(column.json_path)
    if column.type == "date":
        return Column(column.name, "string", lambda o: age_of(read(o)), column.priority)
    return Column(column.name, column.type, read, column.priority, column.format)


def columns_for(rt: ResourceType) -> tuple[Column, ...]:
    if rt.printer_columns:
        return (_NAME, *(_printer_column(c) for c in rt.printer_columns))
    return _COLUMNS.get(rt.group_resource, (_NAME, _AGE))


def _row_object(obj: KubeObject, include: str) -> dict[str, Any] | None:
    if include == "None":
        return None
    if include == "Object":
        return obj
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": obj["metadata"],
    }


def table(
    rt: ResourceType,
    items: list[KubeObject],
    resource_version: str,
    include: str,
    continue_token: str = "",
) -> dict[str, Any]:
    """A meta.k8s.io/v1 Table of `items` with the columns of `rt`."""
    columns = columns_for(rt)
    rows = []
    for obj in items:
        row: dict[str, Any] = {"cells": [c.cell(obj) for c in columns]}
        embedded = _row_object(obj, include)
        if embedded is not None:
            row["object"] = embedded
        rows.append(row)
    metadata: dict[str, Any] = {"resourceVersion": resource_version}
    if continue_token:
        metadata["continue"] = continue_token
    return {
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
        "columnDefinitions": [
            {
                "name": c.name,
                "type": c.type,
                "format": c.format,
                "description": c.name,
                "priority": c.priority,
            }
            for c in columns
        ],
        "rows": rows,
    }
