"""The fields the local cluster knows for its built-in kinds, for `fieldValidation`.

The real API server decodes a write into its Go type, so any field the type lacks is
"unknown". The local cluster has no Go types; this table gives, per kind, the top-level
fields of Kubernetes 1.32's type, ObjectMeta's fields, and the `spec` fields of the
workload and Service kinds. Below those levels nothing is checked (a `None` entry):
an unknown field deeper in a pod template goes unnoticed here, where a real cluster
would refuse it. A kind missing from the table is not checked at all.
"""

from collections.abc import Mapping

Fields = Mapping[str, "Fields | None"]
"""Known field names; each maps to the fields known below it (None: not checked)."""


def _names(*names: str) -> dict[str, None]:
    return dict.fromkeys(names)


OBJECT_META: Fields = _names(
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
)
"""Every field of metadata (ObjectMeta), for built-in kinds and custom resources alike."""

_POD_TEMPLATE_OWNER = ("selector", "template", "minReadySeconds")
_SPECS: dict[str, Fields] = {
    "Deployment": _names(
        *_POD_TEMPLATE_OWNER,
        "replicas",
        "strategy",
        "revisionHistoryLimit",
        "paused",
        "progressDeadlineSeconds",
    ),
    "ReplicaSet": _names(*_POD_TEMPLATE_OWNER, "replicas"),
    "StatefulSet": _names(
        *_POD_TEMPLATE_OWNER,
        "replicas",
        "volumeClaimTemplates",
        "serviceName",
        "podManagementPolicy",
        "updateStrategy",
        "revisionHistoryLimit",
        "persistentVolumeClaimRetentionPolicy",
        "ordinals",
    ),
    "DaemonSet": _names(*_POD_TEMPLATE_OWNER, "updateStrategy", "revisionHistoryLimit"),
    "Job": _names(
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "podFailurePolicy",
        "successPolicy",
        "backoffLimit",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
        "selector",
        "manualSelector",
        "template",
        "ttlSecondsAfterFinished",
        "completionMode",
        "suspend",
        "podReplacementPolicy",
        "managedBy",
    ),
    "CronJob": _names(
        "schedule",
        "timeZone",
        "startingDeadlineSeconds",
        "concurrencyPolicy",
        "suspend",
        "jobTemplate",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
    ),
    "Service": _names(
        "ports",
        "selector",
        "clusterIP",
        "clusterIPs",
        "type",
        "externalIPs",
        "sessionAffinity",
        "loadBalancerIP",
        "loadBalancerSourceRanges",
        "externalName",
        "externalTrafficPolicy",
        "healthCheckNodePort",
        "publishNotReadyAddresses",
        "sessionAffinityConfig",
        "ipFamilies",
        "ipFamilyPolicy",
        "allocateLoadBalancerNodePorts",
        "loadBalancerClass",
        "internalTrafficPolicy",
        "trafficDistribution",
    ),
}
_TOP_LEVEL: dict[str, tuple[str, ...]] = {
    "ConfigMap": ("data", "binaryData", "immutable"),
    "Secret": ("data", "stringData", "type", "immutable"),
    "ServiceAccount": ("secrets", "imagePullSecrets", "automountServiceAccountToken"),
    "Endpoints": ("subsets",),
    "Event": (
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "type",
        "eventTime",
        "series",
        "action",
        "related",
        "reportingComponent",
        "reportingInstance",
    ),
    "Role": ("rules",),
    "ClusterRole": ("rules", "aggregationRule"),
    "RoleBinding": ("subjects", "roleRef"),
    "ClusterRoleBinding": ("subjects", "roleRef"),
    "StorageClass": (
        "provisioner",
        "parameters",
        "reclaimPolicy",
        "mountOptions",
        "allowVolumeExpansion",
        "volumeBindingMode",
        "allowedTopologies",
    ),
    "LimitRange": ("spec",),
    "IngressClass": ("spec",),
    "NetworkPolicy": ("spec",),
    "Lease": ("spec",),
}
_SPEC_AND_STATUS = (
    "Namespace",
    "Service",
    "Pod",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "ResourceQuota",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "Ingress",
    "PodDisruptionBudget",
    "HorizontalPodAutoscaler",
    "CustomResourceDefinition",
)


def _kind_fields(kind: str) -> Fields:
    fields: dict[str, Fields | None] = {"apiVersion": None, "kind": None, "metadata": OBJECT_META}
    fields.update(_names(*_TOP_LEVEL.get(kind, ())))
    if kind in _SPEC_AND_STATUS:
        fields["spec"] = _SPECS.get(kind)
        fields["status"] = None
    return fields


BUILTIN_FIELDS: dict[str, Fields] = {
    kind: _kind_fields(kind) for kind in (*_TOP_LEVEL, *_SPEC_AND_STATUS)
}
"""Known fields by kind (the built-in kinds' names do not clash across groups)."""
