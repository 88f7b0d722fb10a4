"""The merge rules of Kubernetes' built-in kinds: the one table every merge reads.

Taken from the Kubernetes API types (`patchStrategy`/`patchMergeKey` struct tags,
`+listType`/`+listMapKey`/`+mapType`/`+structType` markers, as published in the
OpenAPI as `x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`,
`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`).
Only fields that do not merge the default way are listed; every other map merges key by
key and every other list is atomic (replaced and owned whole).

Strategic merge patch exists only for these built-in kinds: for any other kind (custom
resources) `kubectl apply` and the API server speak JSON merge patch, and
`supports_strategic_merge` says so. Server-side apply works for every kind; kinds not
listed get typed metadata and untyped content (maps granular, lists atomic), which is
what the API server does for a custom resource whose schema declares no list types.

Versions of a kind share one entry: the strategies of the fields listed here did not
change between the versions Kubernetes still serves.
"""

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.jsonvalue import MISSING
from app.engine.merge.schema import ListType, Node, PatchStrategy


def struct(
    fields: Mapping[str, Node] | None = None,
    *,
    atomic: bool = False,
    replace: bool = False,
    retain_keys: bool = False,
    zero: Any = MISSING,
) -> Node:
    """An object field. `atomic`: owned whole by server-side apply; `replace`: replaced
    whole by strategic merge; `zero`: its value in Go's zero object ({} for a struct)."""
    return Node(
        fields=dict(fields or {}),
        atomic=atomic,
        strategy=PatchStrategy.REPLACE if replace else PatchStrategy.DEFAULT,
        retain_keys=retain_keys,
        zero=zero,
    )


def merge_list(
    *keys: str,
    item: Node | None = None,
    patch_key: str = "",
    retain_keys: bool = False,
    defaults: Mapping[str, Any] | None = None,
    zero: Any = MISSING,
) -> Node:
    """A list of objects merged by key: strategic merge by `patch_key` (the first key
    unless given), server-side apply by all `keys` (`+listType=map`)."""
    return Node(
        item=item,
        list_type=ListType.MAP,
        keys=keys,
        key_defaults=dict(defaults or {}),
        strategy=PatchStrategy.MERGE,
        merge_key=patch_key or keys[0],
        retain_keys=retain_keys,
        zero=zero,
    )


def keyed_list(*keys: str, item: Node | None = None) -> Node:
    """`+listType=map` without a patch strategy: strategic merge replaces it."""
    return Node(item=item, list_type=ListType.MAP, keys=keys)


def set_list() -> Node:
    """A list of scalars merged by value by both strategic merge and server-side apply."""
    return Node(list_type=ListType.SET, strategy=PatchStrategy.MERGE)


def atomic_merge_list(patch_key: str) -> Node:
    """Atomic for server-side apply, yet merged by `patch_key` by strategic merge."""
    return Node(strategy=PatchStrategy.MERGE, merge_key=patch_key)


def with_zero(node: Node, zero: Any) -> Node:
    """The same rules at a place where Go's zero object holds `zero` (or nothing)."""
    return dataclasses.replace(node, zero=zero)


ATOMIC: Final = struct(atomic=True)
"""LabelSelector, LocalObjectReference, ObjectReference, the *KeySelector refs, RoleRef."""
CONDITIONS: Final = merge_list("type")

OBJECT_META: Final = struct(
    {
        "ownerReferences": merge_list("uid", item=ATOMIC),
        "finalizers": set_list(),
        "creationTimestamp": Node(zero=None),
    },
    zero={},
)

ENV_VAR: Final = struct(
    {
        "valueFrom": struct(
            {
                "fieldRef": ATOMIC,
                "resourceFieldRef": ATOMIC,
                "configMapKeyRef": ATOMIC,
                "secretKeyRef": ATOMIC,
            }
        )
    }
)
CONTAINER: Final = struct(
    {
        "ports": merge_list("containerPort", "protocol", defaults={"protocol": "TCP"}),
        "env": merge_list("name", item=ENV_VAR),
        "volumeMounts": merge_list("mountPath"),
        "volumeDevices": merge_list("devicePath"),
        "resources": struct({"claims": keyed_list("name")}),
    }
)
POD_SPEC: Final = struct(
    {
        "containers": merge_list("name", item=CONTAINER, zero=None),
        "initContainers": merge_list("name", item=CONTAINER),
        "ephemeralContainers": merge_list("name", item=CONTAINER),
        "volumes": merge_list("name", retain_keys=True),
        "imagePullSecrets": merge_list("name", item=ATOMIC),
        "hostAliases": merge_list("ip"),
        "topologySpreadConstraints": merge_list(
            "topologyKey", "whenUnsatisfiable", item=struct({"labelSelector": ATOMIC})
        ),
        "schedulingGates": merge_list("name"),
        "resourceClaims": merge_list("name", retain_keys=True),
        "nodeSelector": ATOMIC,
        "affinity": struct(
            {"nodeAffinity": struct({"requiredDuringSchedulingIgnoredDuringExecution": ATOMIC})}
        ),
    },
    zero={},
)
POD_STATUS: Final = struct(
    {
        "conditions": CONDITIONS,
        "podIPs": merge_list("ip"),
        "hostIPs": merge_list("ip"),
        "resourceClaimStatuses": merge_list("name", retain_keys=True),
    },
    zero={},
)
POD_TEMPLATE: Final = struct({"metadata": OBJECT_META, "spec": POD_SPEC}, zero={})

WORKLOAD_STATUS: Final = struct({"conditions": CONDITIONS}, zero={})
JOB_SPEC: Final = struct({"selector": ATOMIC, "template": POD_TEMPLATE}, zero={})
JOB_STATUS: Final = struct({"conditions": atomic_merge_list("type")}, zero={})


def kind(spec: Node | None = None, status: Node | None = None, **fields: Node) -> Node:
    """The root of a kind: typed metadata plus the given spec, status and other fields."""
    children: dict[str, Node] = {"metadata": OBJECT_META, **fields}
    if spec is not None:
        children["spec"] = spec
    if status is not None:
        children["status"] = status
    return struct(children)


OBJECT: Final = kind()
"""Any kind without special fields: metadata rules only."""

_DEPLOYMENT: Final = kind(
    spec=struct(
        {
            "selector": ATOMIC,
            "template": POD_TEMPLATE,
            "strategy": struct(retain_keys=True, zero={}),
        },
        zero={},
    ),
    status=WORKLOAD_STATUS,
)
_REPLICA_SET: Final = kind(
    spec=struct({"selector": ATOMIC, "template": POD_TEMPLATE}, zero={}), status=WORKLOAD_STATUS
)
_WITH_UPDATE_STRATEGY: Final = kind(
    spec=struct(
        {"selector": ATOMIC, "template": POD_TEMPLATE, "updateStrategy": struct(zero={})},
        zero={},
    ),
    status=WORKLOAD_STATUS,
)
_SERVICE: Final = kind(
    spec=struct(
        {
            "ports": merge_list("port", "protocol", defaults={"protocol": "TCP"}),
            "selector": ATOMIC,
        },
        zero={},
    ),
    status=struct({"loadBalancer": struct(zero={}), "conditions": CONDITIONS}, zero={}),
)
_INGRESS: Final = kind(
    spec=struct(zero={}), status=struct({"loadBalancer": struct(zero={})}, zero={})
)
_NETWORK_POLICY: Final = kind(spec=struct({"podSelector": ATOMIC}, zero={}))
_WEBHOOKS: Final = kind(
    webhooks=merge_list(
        "name",
        item=struct(
            {
                "matchConditions": merge_list("name"),
                "namespaceSelector": ATOMIC,
                "objectSelector": ATOMIC,
            }
        ),
    )
)
_WITH_CONDITIONS: Final = kind(status=WORKLOAD_STATUS)

KINDS: Final[Mapping[tuple[str, str], Node]] = {
    ("", "Pod"): kind(spec=POD_SPEC, status=POD_STATUS),
    ("", "PodTemplate"): kind(template=POD_TEMPLATE),
    ("", "ReplicationController"): kind(
        spec=struct({"selector": ATOMIC, "template": with_zero(POD_TEMPLATE, MISSING)}, zero={}),
        status=WORKLOAD_STATUS,
    ),
    ("", "Service"): _SERVICE,
    ("", "ServiceAccount"): kind(secrets=merge_list("name", item=ATOMIC)),
    ("", "Namespace"): kind(spec=struct(zero={}), status=WORKLOAD_STATUS),
    ("", "Node"): kind(
        spec=struct({"podCIDRs": set_list()}, zero={}),
        status=struct({"conditions": CONDITIONS, "addresses": merge_list("type")}, zero={}),
    ),
    ("", "PersistentVolumeClaim"): kind(
        spec=struct({"selector": ATOMIC, "resources": struct(zero={})}, zero={}),
        status=WORKLOAD_STATUS,
    ),
    ("", "PersistentVolume"): kind(
        spec=struct({"claimRef": ATOMIC, "nodeAffinity": struct({"required": ATOMIC})}, zero={}),
        status=struct(zero={}),
    ),
    ("", "ConfigMap"): OBJECT,
    ("", "Secret"): OBJECT,
    ("", "Endpoints"): OBJECT,
    ("", "Event"): OBJECT,
    ("", "LimitRange"): kind(spec=struct(zero={})),
    ("", "ResourceQuota"): kind(spec=struct(zero={}), status=struct(zero={})),
    ("", "Binding"): OBJECT,
    ("", "ComponentStatus"): OBJECT,
    ("apps", "Deployment"): _DEPLOYMENT,
    ("apps", "ReplicaSet"): _REPLICA_SET,
    ("apps", "StatefulSet"): _WITH_UPDATE_STRATEGY,
    ("apps", "DaemonSet"): _WITH_UPDATE_STRATEGY,
    ("apps", "ControllerRevision"): OBJECT,
    ("extensions", "Deployment"): _DEPLOYMENT,
    ("extensions", "ReplicaSet"): _REPLICA_SET,
    ("extensions", "DaemonSet"): _WITH_UPDATE_STRATEGY,
    ("extensions", "Ingress"): _INGRESS,
    ("extensions", "NetworkPolicy"): _NETWORK_POLICY,
    ("batch", "Job"): kind(spec=JOB_SPEC, status=JOB_STATUS),
    ("batch", "CronJob"): kind(
        spec=struct(
            {"jobTemplate": struct({"metadata": OBJECT_META, "spec": JOB_SPEC}, zero={})},
            zero={},
        ),
        status=struct(zero={}),
    ),
    ("autoscaling", "HorizontalPodAutoscaler"): kind(
        spec=struct({"scaleTargetRef": struct(zero={})}, zero={}), status=WORKLOAD_STATUS
    ),
    ("policy", "PodDisruptionBudget"): kind(
        spec=struct({"selector": struct(atomic=True, replace=True)}, zero={}),
        status=WORKLOAD_STATUS,
    ),
    ("policy", "Eviction"): OBJECT,
    ("networking.k8s.io", "Ingress"): _INGRESS,
    ("networking.k8s.io", "IngressClass"): OBJECT,
    ("networking.k8s.io", "NetworkPolicy"): _NETWORK_POLICY,
    ("networking.k8s.io", "IPAddress"): OBJECT,
    ("networking.k8s.io", "ServiceCIDR"): _WITH_CONDITIONS,
    ("discovery.k8s.io", "EndpointSlice"): OBJECT,
    ("rbac.authorization.k8s.io", "Role"): OBJECT,
    ("rbac.authorization.k8s.io", "ClusterRole"): OBJECT,
    ("rbac.authorization.k8s.io", "RoleBinding"): kind(roleRef=ATOMIC),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): kind(roleRef=ATOMIC),
    ("storage.k8s.io", "StorageClass"): OBJECT,
    ("storage.k8s.io", "CSIDriver"): OBJECT,
    ("storage.k8s.io", "CSINode"): kind(spec=struct({"drivers": merge_list("name")}, zero={})),
    ("storage.k8s.io", "CSIStorageCapacity"): OBJECT,
    ("storage.k8s.io", "VolumeAttachment"): OBJECT,
    ("storage.k8s.io", "VolumeAttributesClass"): OBJECT,
    ("scheduling.k8s.io", "PriorityClass"): OBJECT,
    ("coordination.k8s.io", "Lease"): OBJECT,
    ("events.k8s.io", "Event"): OBJECT,
    ("node.k8s.io", "RuntimeClass"): OBJECT,
    ("certificates.k8s.io", "CertificateSigningRequest"): OBJECT,
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): _WEBHOOKS,
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): _WEBHOOKS,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): kind(
        spec=struct(
            {"matchConditions": merge_list("name"), "variables": merge_list("name")}, zero={}
        ),
        status=WORKLOAD_STATUS,
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): OBJECT,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): kind(
        spec=struct(zero={}), status=WORKLOAD_STATUS
    ),
    ("apiregistration.k8s.io", "APIService"): kind(spec=struct(zero={}), status=WORKLOAD_STATUS),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): _WITH_CONDITIONS,
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): _WITH_CONDITIONS,
}


def root_for(gvk: GroupVersionKind) -> Node:
    """The merge rules of a kind; custom resources get metadata rules only."""
    return KINDS.get((gvk.group, gvk.kind), OBJECT)


def supports_strategic_merge(gvk: GroupVersionKind) -> bool:
    """Whether the kind is built in: strategic merge patch is refused for other kinds."""
    return (gvk.group, gvk.kind) in KINDS
