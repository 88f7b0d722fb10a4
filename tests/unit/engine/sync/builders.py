"""Small builders for sync tests: Applications, operations, manifests, plans."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from app.engine.sync import PlanInput, ResourceScope, SyncPlan, plan_sync
from app.model.app_spec import RetryStrategy
from app.model.application import Application
from app.model.operation import (
    Operation,
    OperationInitiator,
    SyncOperation,
    SyncOperationResource,
    SyncStrategySpec,
)
from app.model.resource import GroupKind, KubeObject, ResourceKey
from tests.unit.engine.sync.fake_cluster import T0

REVISION = "0123456789abcdef0123456789abcdef01234567"
NAMESPACE = "shop"
CLUSTER_KINDS = {
    "Namespace",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleBinding",
    "StorageClass",
    "PersistentVolume",
    "APIService",
    "IngressClass",
    "PodSecurityPolicy",
}
API_VERSIONS = {
    "Deployment": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "ReplicaSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "Ingress": "networking.k8s.io/v1",
    "IngressClass": "networking.k8s.io/v1",
    "NetworkPolicy": "networking.k8s.io/v1",
    "CustomResourceDefinition": "apiextensions.k8s.io/v1",
    "ClusterRole": "rbac.authorization.k8s.io/v1",
    "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
    "Role": "rbac.authorization.k8s.io/v1",
    "RoleBinding": "rbac.authorization.k8s.io/v1",
    "HorizontalPodAutoscaler": "autoscaling/v2",
    "PodDisruptionBudget": "policy/v1",
    "StorageClass": "storage.k8s.io/v1",
    "APIService": "apiregistration.k8s.io/v1",
}


def app(
    *,
    sync_options: Sequence[str] = (),
    extra_policy: Mapping[str, Any] | None = None,
    conditions: Sequence[Mapping[str, str]] = (),
) -> Application:
    policy: dict[str, Any] = {"syncOptions": list(sync_options), **(extra_policy or {})}
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop", "namespace": "sluice"},
            "spec": {
                "project": "default",
                "source": {"repoURL": "https://git.example/shop.git", "path": "deploy"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": NAMESPACE},
                "syncPolicy": policy,
            },
            "status": {"conditions": list(conditions)},
        }
    )


def operation(
    *,
    prune: bool = True,
    dry_run: bool = False,
    strategy: str = "hook",
    resources: Sequence[Mapping[str, str]] = (),
    retry: RetryStrategy | None = None,
    sync_options: Sequence[str] = (),
    force: bool = False,
) -> Operation:
    chosen = {"force": True} if force else {}
    return Operation(
        sync=SyncOperation(
            revision=REVISION,
            prune=prune,
            dry_run=dry_run,
            sync_strategy=SyncStrategySpec(
                apply=chosen if strategy == "apply" else None,
                hook=chosen if strategy == "hook" else None,
            ),
            resources=[SyncOperationResource(**r) for r in resources],
            sync_options=list(sync_options),
        ),
        initiated_by=OperationInitiator(username="alice"),
        retry=retry,
    )


def obj(
    kind: str,
    name: str,
    *,
    namespace: str | None = None,
    wave: int | str | None = None,
    hook: str | None = None,
    policy: str | None = None,
    options: str | None = None,
    annotations: Mapping[str, str] | None = None,
    generate_name: str | None = None,
    api_version: str | None = None,
    spec: Mapping[str, Any] | None = None,
) -> KubeObject:
    ann: dict[str, str] = dict(annotations or {})
    if wave is not None:
        ann["argocd.argoproj.io/sync-wave"] = str(wave)
    if hook is not None:
        ann["argocd.argoproj.io/hook"] = hook
    if policy is not None:
        ann["argocd.argoproj.io/hook-delete-policy"] = policy
    if options is not None:
        ann["argocd.argoproj.io/sync-options"] = options
    meta: dict[str, Any] = {"annotations": ann}
    if generate_name is not None:
        meta["generateName"] = generate_name
    else:
        meta["name"] = name
    if namespace is not None:
        meta["namespace"] = namespace
    out: KubeObject = {
        "apiVersion": api_version or API_VERSIONS.get(kind, "v1"),
        "kind": kind,
        "metadata": meta,
    }
    if spec is not None:
        out["spec"] = dict(spec)
    return out


def live_of(*objects: KubeObject) -> dict[ResourceKey, KubeObject]:
    """Live copies keyed as the cluster would have them (namespaced kinds get `shop`)."""
    out: dict[ResourceKey, KubeObject] = {}
    for i, o in enumerate(objects):
        copy_ = {**o, "metadata": {**o["metadata"], "uid": f"live-{i}"}}
        if o["kind"] not in CLUSTER_KINDS:
            copy_["metadata"].setdefault("namespace", NAMESPACE)
        out[ResourceKey.of(copy_)] = copy_
    return out


def scopes(gk: GroupKind) -> ResourceScope | None:
    """Discovery for tests: every built-in kind is served; `example.com` kinds are not."""
    if gk.group.endswith("example.com"):
        return None
    return ResourceScope.CLUSTER if gk.kind in CLUSTER_KINDS else ResourceScope.NAMESPACED


def plan(
    targets: Sequence[KubeObject],
    *,
    live: Mapping[ResourceKey, KubeObject] | None = None,
    application: Application | None = None,
    op: Operation | None = None,
    started_at: datetime = T0,
    **kwargs: Any,
) -> SyncPlan:
    return plan_sync(
        PlanInput(
            app=application or app(),
            operation=op or operation(),
            revision=REVISION,
            started_at=started_at,
            targets=list(targets),
            live=dict(live or {}),
            api=kwargs.pop("api", scopes),
            **kwargs,
        )
    )
