"""Per-type write rules: name syntax, defaults, initial status, validation, immutable fields.

These are the few rules of the real API server's type strategies that clients notice:
defaults that appear in every live object (replicas, Service clusterIP, Namespace
finalizers), the status a new object starts with, the checks whose failure users meet
in practice (a selector that does not match its template, a Deployment selector changed
after creation), and the name syntax per type. Everything else is accepted as sent.

Defaulting functions receive a candidate the write owns at the top level and copy any
nested dict they change, because nested values may still be shared with stored objects.
"""

import base64
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.localcluster.errors import Cause
from app.localcluster.resources import GroupResource
from app.model.resource import KubeObject

Defaulter = Callable[[KubeObject, KubeObject | None], None]
Validator = Callable[[KubeObject], list[Cause]]

_cluster_ips = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Strategy:
    name_rule: str = "subdomain"
    """How names are checked: subdomain, label, dns1035 or segment."""
    initial_status: dict[str, Any] | None = None
    """Status of a new object of a type with a status subresource (None: `{}`)."""
    defaults: Defaulter | None = None
    validate: Validator | None = None
    immutable: tuple[str, ...] = ()
    """Dotted paths that may not change once set."""


def own(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """`obj[key]` replaced by a private copy (created empty if absent), for changing it."""
    value = obj.get(key)
    copy = dict(value) if isinstance(value, dict) else {}
    obj[key] = copy
    return copy


def lookup(obj: Any, path: str) -> Any:
    """The value at a dotted path, or None."""
    node = obj
    for part in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _namespace_defaults(obj: KubeObject, old: KubeObject | None) -> None:
    meta = obj["metadata"]
    labels = dict(meta.get("labels") or {})
    labels["kubernetes.io/metadata.name"] = meta["name"]
    meta["labels"] = labels
    if old is None:
        spec = own(obj, "spec")
        spec.setdefault("finalizers", ["kubernetes"])


def _secret_defaults(obj: KubeObject, old: KubeObject | None) -> None:
    obj.setdefault("type", "Opaque")
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = own(obj, "data")
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


def _replicas_defaults(obj: KubeObject, old: KubeObject | None) -> None:
    spec = own(obj, "spec")
    spec.setdefault("replicas", 1)


def _deployment_defaults(obj: KubeObject, old: KubeObject | None) -> None:
    spec = own(obj, "spec")
    spec.setdefault("replicas", 1)
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    strategy = own(spec, "strategy")
    strategy.setdefault("type", "RollingUpdate")
    if strategy["type"] == "RollingUpdate":
        rolling = own(strategy, "rollingUpdate")
        rolling.setdefault("maxSurge", "25%")
        rolling.setdefault("maxUnavailable", "25%")


def _job_defaults(obj: KubeObject, old: KubeObject | None) -> None:
    spec = own(obj, "spec")
    spec.setdefault("completions", 1)
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    if old is None and not spec.get("manualSelector"):
        _job_selector(spec, str(obj["metadata"].get("uid")), str(obj["metadata"]["name"]))


def _job_selector(spec: dict[str, Any], uid: str, name: str) -> None:
    """The selector the Job API generates: its pods by the Job's uid (so `kubectl logs
    job/x` and the Job controller find exactly its pods), labels on the template to match."""
    spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    template = own(spec, "template")
    meta = own(template, "metadata")
    meta["labels"] = {
        **(meta.get("labels") or {}),
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }


def _service_defaults(obj: KubeObject, old: KubeObject | None) -> None:
    spec = own(obj, "spec")
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    if spec["type"] != "ExternalName" and not spec.get("clusterIP"):
        previous = lookup(old, "spec.clusterIP") if old is not None else None
        if previous:
            spec["clusterIP"] = previous
        else:
            n = next(_cluster_ips)
            spec["clusterIP"] = f"10.96.{(n >> 8) % 256}.{n % 256}"
    if spec.get("clusterIP") and not spec.get("clusterIPs"):
        spec["clusterIPs"] = [spec["clusterIP"]]
    ports = spec.get("ports")
    if isinstance(ports, list):
        spec["ports"] = [
            {"protocol": "TCP", "targetPort": p.get("port"), **p} if isinstance(p, dict) else p
            for p in ports
        ]


def _selector_matches_template(obj: KubeObject) -> list[Cause]:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return [Cause("FieldValueRequired", "Required value", "spec")]
    causes: list[Cause] = []
    selector = spec.get("selector")
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        causes.append(Cause("FieldValueRequired", "Required value", "spec.selector"))
    template = spec.get("template")
    if not isinstance(template, dict):
        causes.append(Cause("FieldValueRequired", "Required value", "spec.template"))
        return causes
    labels = lookup(template, "metadata.labels") or {}
    wanted = selector.get("matchLabels") if isinstance(selector, dict) else None
    if isinstance(wanted, dict) and any(labels.get(k) != v for k, v in wanted.items()):
        causes.append(
            Cause(
                "FieldValueInvalid",
                f"Invalid value: {labels!r}: `selector` does not match template `labels`",
                "spec.template.metadata.labels",
            )
        )
    causes.extend(_containers_causes(template.get("spec"), "spec.template.spec"))
    return causes


def _containers_causes(pod_spec: Any, path: str) -> list[Cause]:
    if not isinstance(pod_spec, dict):
        return [Cause("FieldValueRequired", "Required value", path)]
    containers = pod_spec.get("containers")
    if not isinstance(containers, list) or not containers:
        return [Cause("FieldValueRequired", "Required value", f"{path}.containers")]
    causes: list[Cause] = []
    for i, container in enumerate(containers):
        for required in ("name", "image"):
            if not isinstance(container, dict) or not container.get(required):
                causes.append(
                    Cause(
                        "FieldValueRequired", "Required value", f"{path}.containers[{i}].{required}"
                    )
                )
    return causes


def _pod_causes(obj: KubeObject) -> list[Cause]:
    return _containers_causes(obj.get("spec"), "spec")


def _job_causes(obj: KubeObject) -> list[Cause]:
    template = lookup(obj, "spec.template")
    if not isinstance(template, dict):
        return [Cause("FieldValueRequired", "Required value", "spec.template")]
    return _containers_causes(template.get("spec"), "spec.template.spec")


_WORKLOAD = Strategy(
    defaults=_replicas_defaults, validate=_selector_matches_template, immutable=("spec.selector",)
)
_RBAC = Strategy(name_rule="segment")

STRATEGIES: dict[GroupResource, Strategy] = {
    GroupResource("", "namespaces"): Strategy(
        name_rule="label", initial_status={"phase": "Active"}, defaults=_namespace_defaults
    ),
    GroupResource("", "pods"): Strategy(
        initial_status={"phase": "Pending", "qosClass": "BestEffort"}, validate=_pod_causes
    ),
    GroupResource("", "services"): Strategy(
        name_rule="dns1035",
        initial_status={"loadBalancer": {}},
        defaults=_service_defaults,
        immutable=("spec.clusterIP",),
    ),
    GroupResource("", "secrets"): Strategy(defaults=_secret_defaults),
    GroupResource("", "persistentvolumeclaims"): Strategy(initial_status={"phase": "Pending"}),
    GroupResource("", "persistentvolumes"): Strategy(initial_status={"phase": "Available"}),
    GroupResource("apps", "deployments"): Strategy(
        defaults=_deployment_defaults,
        validate=_selector_matches_template,
        immutable=("spec.selector",),
    ),
    GroupResource("apps", "replicasets"): _WORKLOAD,
    GroupResource("apps", "statefulsets"): _WORKLOAD,
    GroupResource("apps", "daemonsets"): Strategy(
        validate=_selector_matches_template, immutable=("spec.selector",)
    ),
    GroupResource("batch", "jobs"): Strategy(
        defaults=_job_defaults,
        validate=_job_causes,
        immutable=("spec.template", "spec.completions"),
    ),
    GroupResource("rbac.authorization.k8s.io", "roles"): _RBAC,
    GroupResource("rbac.authorization.k8s.io", "clusterroles"): _RBAC,
    GroupResource("rbac.authorization.k8s.io", "rolebindings"): _RBAC,
    GroupResource("rbac.authorization.k8s.io", "clusterrolebindings"): _RBAC,
}

DEFAULT = Strategy()


def strategy(resource: GroupResource) -> Strategy:
    return STRATEGIES.get(resource, DEFAULT)


def immutable_causes(rule: Strategy, old: KubeObject, new: KubeObject) -> list[Cause]:
    causes: list[Cause] = []
    for path in rule.immutable:
        before = lookup(old, path)
        if before is not None and lookup(new, path) != before:
            causes.append(Cause("FieldValueInvalid", "field is immutable", path))
    if old.get("immutable") is True:
        for key in ("data", "binaryData"):
            if old.get(key) != new.get(key):
                causes.append(Cause("Forbidden", "field is immutable when `immutable` is set", key))
    return causes
