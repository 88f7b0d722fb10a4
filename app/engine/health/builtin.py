"""The built-in health checks, keyed by API group and kind (any version)."""

from collections.abc import Callable

from app.engine.health import (
    apiservice,
    application,
    argo_workflow,
    crd,
    daemonset,
    deployment,
    hpa,
    ingress,
    job,
    pod,
    pvc,
    replicaset,
    service,
    statefulset,
)
from app.model.health import HealthStatus
from app.model.resource import GroupKind, KubeObject

HealthCheck = Callable[[KubeObject], HealthStatus]
"""A health check: the live object in, its health out."""

BUILTIN_CHECKS: dict[GroupKind, HealthCheck] = {
    GroupKind("apps", "Deployment"): deployment.health,
    GroupKind("apps", "StatefulSet"): statefulset.health,
    GroupKind("apps", "DaemonSet"): daemonset.health,
    GroupKind("apps", "ReplicaSet"): replicaset.health,
    GroupKind("", "Pod"): pod.health,
    GroupKind("", "Service"): service.health,
    GroupKind("", "PersistentVolumeClaim"): pvc.health,
    GroupKind("batch", "Job"): job.health,
    GroupKind("networking.k8s.io", "Ingress"): ingress.health,
    GroupKind("extensions", "Ingress"): ingress.health,
    GroupKind("apiregistration.k8s.io", "APIService"): apiservice.health,
    GroupKind("autoscaling", "HorizontalPodAutoscaler"): hpa.health,
    GroupKind("apiextensions.k8s.io", "CustomResourceDefinition"): crd.health,
    GroupKind("argoproj.io", "Workflow"): argo_workflow.health,
    GroupKind("argoproj.io", "Application"): application.health,
}
"""Kinds with a built-in check. Kinds not listed (ConfigMap, Secret, most custom
resources) have no health unless a Lua check covers them."""
