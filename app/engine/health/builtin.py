"""The built-in health checks, keyed by API group and kind (any version).

Two tables: `BUILTIN_CHECKS` by exact group and kind, then `BUILTIN_GROUP_CHECKS` by
group suffix, for projects whose kinds live in many groups (every Crossplane provider
has its own). `builtin_check` looks in that order.
"""

from collections.abc import Callable

from app.engine.health import (
    apiservice,
    application,
    argo_rollouts,
    argo_workflow,
    cert_manager,
    cloudnativepg,
    cluster_api,
    conditions,
    crd,
    cronjob,
    crossplane,
    daemonset,
    deployment,
    external_secrets,
    gateway_api,
    hpa,
    ingress,
    job,
    keda,
    kubevirt,
    kyverno,
    pdb,
    pod,
    prometheus_operator,
    pvc,
    replicaset,
    sealed_secrets,
    service,
    statefulset,
    strimzi,
    tekton,
)
from app.model.health import HealthStatus
from app.model.resource import GroupKind, KubeObject

HealthCheck = Callable[[KubeObject], HealthStatus]
"""A health check: the live object in, its health out."""


def _each(group: str, kinds: tuple[str, ...], check: HealthCheck) -> dict[GroupKind, HealthCheck]:
    return {GroupKind(group, kind): check for kind in kinds}


_CAPI = "cluster.x-k8s.io"
_GATEWAY = "gateway.networking.k8s.io"
_ROUTES = ("HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute")
_STRIMZI_KINDS = (
    "Kafka",
    "KafkaNodePool",
    "KafkaConnect",
    "KafkaConnector",
    "KafkaMirrorMaker2",
    "KafkaBridge",
    "KafkaTopic",
    "KafkaUser",
)

BUILTIN_CHECKS: dict[GroupKind, HealthCheck] = {
    GroupKind("apps", "Deployment"): deployment.health,
    GroupKind("apps", "StatefulSet"): statefulset.health,
    GroupKind("apps", "DaemonSet"): daemonset.health,
    GroupKind("apps", "ReplicaSet"): replicaset.health,
    GroupKind("", "Pod"): pod.health,
    GroupKind("", "Service"): service.health,
    GroupKind("", "PersistentVolumeClaim"): pvc.health,
    GroupKind("batch", "Job"): job.health,
    GroupKind("batch", "CronJob"): cronjob.health,
    GroupKind("policy", "PodDisruptionBudget"): pdb.health,
    GroupKind("networking.k8s.io", "Ingress"): ingress.health,
    GroupKind("extensions", "Ingress"): ingress.health,
    GroupKind("apiregistration.k8s.io", "APIService"): apiservice.health,
    GroupKind("autoscaling", "HorizontalPodAutoscaler"): hpa.health,
    GroupKind("apiextensions.k8s.io", "CustomResourceDefinition"): crd.health,
    GroupKind("argoproj.io", "Workflow"): argo_workflow.health,
    GroupKind("argoproj.io", "CronWorkflow"): argo_workflow.cron_workflow,
    GroupKind("argoproj.io", "AnalysisRun"): argo_rollouts.health,
    GroupKind("argoproj.io", "Experiment"): argo_rollouts.health,
    GroupKind("argoproj.io", "Application"): application.health,
    GroupKind("cert-manager.io", "CertificateRequest"): cert_manager.certificate_request,
    **_each("cert-manager.io", ("Issuer", "ClusterIssuer"), cert_manager.issuer),
    **_each("external-secrets.io", ("ExternalSecret", "PushSecret"), external_secrets.health),
    **_each("external-secrets.io", ("SecretStore", "ClusterSecretStore"), external_secrets.store),
    GroupKind("external-secrets.io", "ClusterExternalSecret"): (
        external_secrets.cluster_external_secret
    ),
    GroupKind("bitnami.com", "SealedSecret"): sealed_secrets.health,
    **_each("keda.sh", ("ScaledObject", "ScaledJob"), keda.health),
    **_each(
        "kyverno.io",
        ("ClusterPolicy", "Policy", "CleanupPolicy", "ClusterCleanupPolicy"),
        kyverno.health,
    ),
    **_each(
        "monitoring.coreos.com",
        ("Prometheus", "PrometheusAgent", "Alertmanager", "ThanosRuler"),
        prometheus_operator.health,
    ),
    GroupKind("postgresql.cnpg.io", "Cluster"): cloudnativepg.health,
    **_each("kafka.strimzi.io", _STRIMZI_KINDS, strimzi.health),
    **_each(
        "serving.knative.dev", ("Service", "Route", "Configuration", "Revision"), conditions.ready
    ),
    **_each("tekton.dev", ("PipelineRun", "TaskRun", "CustomRun"), tekton.health),
    GroupKind(_CAPI, "Cluster"): cluster_api.cluster,
    GroupKind(_CAPI, "Machine"): cluster_api.machine,
    **_each(_CAPI, ("MachineDeployment", "MachineSet"), cluster_api.machine_deployment),
    GroupKind("kubevirt.io", "VirtualMachine"): kubevirt.health,
    GroupKind(_GATEWAY, "Gateway"): gateway_api.gateway,
    **_each(_GATEWAY, _ROUTES, gateway_api.route),
}
"""Kinds with a built-in check. Kinds not listed (ConfigMap, Secret, most custom
resources) have no health unless a Lua check or a group check covers them."""

BUILTIN_GROUP_CHECKS: tuple[tuple[str, HealthCheck], ...] = (
    ("crossplane.io", crossplane.health),
    ("upbound.io", crossplane.health),
)
"""Group suffixes whose every kind has a check: a group matches when it is the suffix
or ends with `.` and the suffix (`s3.aws.upbound.io`)."""


def builtin_check(group_kind: GroupKind) -> HealthCheck | None:
    """The built-in check for a kind, or None when it has none."""
    exact = BUILTIN_CHECKS.get(group_kind)
    if exact is not None:
        return exact
    group = group_kind.group
    for suffix, check in BUILTIN_GROUP_CHECKS:
        if group == suffix or group.endswith("." + suffix):
            return check
    return None
