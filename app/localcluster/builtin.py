"""The built-in types the local cluster serves from start, spelled as Kubernetes 1.32 does.

Short names, categories, subresources and which types keep `metadata.generation` follow
the real API server, because kubectl and Sluice both read them from discovery.
"""

from app.localcluster.resources import ResourceType, ScalePaths

_POD_FIELDS = (
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
)
_EVENT_FIELDS = (
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
)


def _t(
    api_version: str,
    kind: str,
    plural: str,
    *,
    cluster: bool = False,
    short: tuple[str, ...] = (),
    in_all: bool = False,
    status: bool = False,
    scale: bool = False,
    log: bool = False,
    generation: bool = True,
    fields: tuple[str, ...] = (),
) -> ResourceType:
    group, _, version = api_version.rpartition("/")
    subresources = (("status",) if status else ()) + (("scale",) if scale else ())
    return ResourceType(
        group=group,
        version=version,
        kind=kind,
        plural=plural,
        singular=kind.lower(),
        namespaced=not cluster,
        short_names=short,
        categories=("all",) if in_all else (),
        subresources=subresources + (("log",) if log else ()),
        generation=generation,
        field_selectors=fields,
        scale=ScalePaths() if scale else None,
    )


BUILTIN_TYPES: tuple[ResourceType, ...] = (
    _t("v1", "Namespace", "namespaces", cluster=True, short=("ns",),
          status=True, generation=False, fields=("status.phase",)),
    _t("v1", "ConfigMap", "configmaps", short=("cm",), generation=False),
    _t("v1", "Secret", "secrets", generation=False, fields=("type",)),
    _t("v1", "Service", "services", short=("svc",), in_all=True,
          status=True, generation=False),
    _t("v1", "ServiceAccount", "serviceaccounts", short=("sa",), generation=False),
    _t("v1", "Pod", "pods", short=("po",), in_all=True, status=True, log=True,
          generation=False, fields=_POD_FIELDS),
    _t("v1", "PersistentVolumeClaim", "persistentvolumeclaims", short=("pvc",),
          status=True, generation=False),
    _t("v1", "PersistentVolume", "persistentvolumes", cluster=True, short=("pv",),
          status=True, generation=False),
    _t("v1", "Endpoints", "endpoints", short=("ep",), generation=False),
    _t("v1", "Event", "events", short=("ev",), generation=False,
          fields=_EVENT_FIELDS),
    _t("v1", "LimitRange", "limitranges", short=("limits",), generation=False),
    _t("v1", "ResourceQuota", "resourcequotas", short=("quota",), status=True,
          generation=False),
    _t("apps/v1", "Deployment", "deployments", short=("deploy",),
             in_all=True, status=True, scale=True),
    _t("apps/v1", "ReplicaSet", "replicasets", short=("rs",),
             in_all=True, status=True, scale=True),
    _t("apps/v1", "StatefulSet", "statefulsets", short=("sts",),
             in_all=True, status=True, scale=True),
    _t("apps/v1", "DaemonSet", "daemonsets", short=("ds",),
             in_all=True, status=True),
    _t("batch/v1", "Job", "jobs", in_all=True, status=True),
    _t("batch/v1", "CronJob", "cronjobs", short=("cj",), in_all=True,
             status=True),
    _t("networking.k8s.io/v1", "Ingress", "ingresses", short=("ing",),
             status=True),
    _t("networking.k8s.io/v1", "IngressClass", "ingressclasses", cluster=True),
    _t("networking.k8s.io/v1", "NetworkPolicy", "networkpolicies",
             short=("netpol",)),
    _t("rbac.authorization.k8s.io/v1", "Role", "roles", generation=False),
    _t("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles",
             cluster=True, generation=False),
    _t("rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings",
             generation=False),
    _t("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "clusterrolebindings",
             cluster=True, generation=False),
    _t("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets",
             short=("pdb",), status=True),
    _t("autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers",
             short=("hpa",), in_all=True, status=True),
    _t("apiextensions.k8s.io/v1", "CustomResourceDefinition",
             "customresourcedefinitions", cluster=True, short=("crd", "crds"),
             status=True),
    _t("storage.k8s.io/v1", "StorageClass", "storageclasses", cluster=True,
             short=("sc",), generation=False),
    _t("coordination.k8s.io/v1", "Lease", "leases", generation=False),
)  # fmt: skip
