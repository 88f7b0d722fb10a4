"""`assess`: the order of SEMANTICS §5 (deletion, custom Lua, built-in, none) and its dispatch."""

import sys
from typing import Any

import pytest

from app.engine.health import BUILTIN_CHECKS, HealthCustomizations, assess
from app.engine.health.lua_sandbox import compile_check
from app.model.annotations import HOOK_FINALIZER
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import GroupKind, split_api_version
from tests.unit.engine.health.objects import condition, live

PENDING_DELETION = HealthStatus(HealthStatusCode.PROGRESSING, "Pending deletion")
COMPLETE_JOB_STATUS = {"conditions": [condition("Complete", "True", "", "done")]}
BUILTIN_ONLY = HealthCustomizations()


def healthy_deployment(**meta: Any) -> dict[str, Any]:
    return live(
        "apps/v1",
        "Deployment",
        spec={"replicas": 1},
        status={
            "observedGeneration": 1,
            "replicas": 1,
            "updatedReplicas": 1,
            "availableReplicas": 1,
        },
        **meta,
    )


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            healthy_deployment(deleted=True),
            PENDING_DELETION,
            id="deletion-timestamp-is-pending-deletion-before-any-check",
        ),
        pytest.param(
            live("v1", "ConfigMap", deleted=True),
            PENDING_DELETION,
            id="deletion-applies-to-kinds-without-health",
        ),
        pytest.param(
            live(
                "batch/v1",
                "Job",
                deleted=True,
                finalizers=[HOOK_FINALIZER],
                status=COMPLETE_JOB_STATUS,
            ),
            HealthStatus(HealthStatusCode.HEALTHY, "done"),
            id="deleted-hook-held-by-the-hook-finalizer-is-judged-on-its-result",
        ),
        pytest.param(
            live(
                "batch/v1",
                "Job",
                deleted=True,
                finalizers=["foregroundDeletion"],
                status=COMPLETE_JOB_STATUS,
            ),
            PENDING_DELETION,
            id="other-finalizers-do-not-exempt-from-pending-deletion",
        ),
        pytest.param(
            healthy_deployment(), HealthStatus(HealthStatusCode.HEALTHY), id="built-in-check"
        ),
        pytest.param(
            live("apps/v1beta2", "Deployment", spec={"paused": True}),
            HealthStatus(HealthStatusCode.SUSPENDED, "Deployment is paused"),
            id="built-in-checks-match-any-api-version",
        ),
        pytest.param(live("v1", "ConfigMap"), None, id="kind-without-a-check-has-no-health"),
        pytest.param(
            live("example.com/v1", "Widget"), None, id="custom-resource-without-a-check-has-none"
        ),
    ],
)
def test_assess_order(obj: dict[str, Any], expected: HealthStatus | None) -> None:
    assert assess(obj) == expected


def test_custom_lua_check_decides_before_the_built_in_one() -> None:
    configured = HealthCustomizations.from_config(
        {"resource.customizations.health.apps_Deployment": 'return {status = "Degraded"}'}
    )
    assert assess(healthy_deployment(), customizations=configured) == HealthStatus(
        HealthStatusCode.DEGRADED
    )


def test_a_users_application_check_wins_over_the_built_in_one() -> None:
    """App of apps: teams bring Argo CD's documented argoproj.io_Application snippet."""
    script = (
        'hs = {status = "Progressing", message = "waiting for sync"}\n'
        'if obj.status ~= nil and obj.status.sync ~= nil and obj.status.sync.status == "Synced"'
        ' then hs.status = "Healthy" end\n'
        "return hs"
    )
    configured = HealthCustomizations.from_config(
        {"resource.customizations.health.argoproj.io_Application": script}
    )
    child = live(
        "argoproj.io/v1alpha1",
        "Application",
        status={"health": {"status": "Degraded"}, "sync": {"status": "Synced"}},
    )
    assert assess(child, customizations=BUILTIN_ONLY).status is HealthStatusCode.DEGRADED
    assert assess(child, customizations=configured) == HealthStatus(
        HealthStatusCode.HEALTHY, "waiting for sync"
    )


def test_failing_lua_check_is_unknown_without_falling_back_to_the_built_in() -> None:
    configured = HealthCustomizations.from_config(
        {"resource.customizations.health.apps_Deployment": "error('no')"}
    )
    result = assess(healthy_deployment(), customizations=configured)
    assert result is not None
    assert result.status is HealthStatusCode.UNKNOWN
    assert "resource.customizations.health.apps_Deployment failed at line 1: no" in result.message


def test_packaged_tree_is_the_default_and_can_be_left_out() -> None:
    certificate = live("cert-manager.io/v1", "Certificate")
    assert assess(certificate) == HealthStatus(
        HealthStatusCode.PROGRESSING, "Waiting for certificate"
    )
    assert assess(certificate, customizations=BUILTIN_ONLY) is None


def test_deletion_wins_even_over_a_custom_check() -> None:
    assert assess(live("cert-manager.io/v1", "Certificate", deleted=True)) == PENDING_DELETION


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        pytest.param(
            live("apps/v1", "Deployment", status={"observedGeneration": 1, "replicas": "three"}),
            "cannot assess Deployment web: status.replicas: expected an integer, got a string",
            id="wrong-type-field",
        ),
        pytest.param(
            live("v1", "Pod", status={"phase": "Failed", "containerStatuses": [{"state": []}]}),
            "cannot assess Pod web: status.containerStatuses[0].state: "
            "expected an object, got an array",
            id="wrong-type-nested-field",
        ),
        pytest.param(
            live("batch/v1", "Job", status={"conditions": [{"type": "Complete", "status": True}]}),
            "cannot assess Job web: status.conditions[0].status: expected a string, got a boolean",
            id="wrong-type-condition",
        ),
        pytest.param(
            live(
                "autoscaling/v1",
                "HorizontalPodAutoscaler",
                annotations={"autoscaling.alpha.kubernetes.io/conditions": "[{"},
            ),
            "cannot assess HorizontalPodAutoscaler web: "
            "metadata.annotations.autoscaling.alpha.kubernetes.io/conditions: is not valid JSON",
            id="undecodable-annotation",
        ),
    ],
)
def test_malformed_objects_are_unknown_naming_the_field(obj: dict[str, Any], message: str) -> None:
    result = assess(obj)
    assert result is not None
    assert result.status is HealthStatusCode.UNKNOWN
    assert result.message.startswith(message)


LIBRARY_MODULES = {
    "argo_rollouts",
    "argo_workflow",
    "cert_manager",
    "cloudnativepg",
    "cluster_api",
    "conditions",
    "cronjob",
    "external_secrets",
    "gateway_api",
    "keda",
    "kubevirt",
    "kyverno",
    "pdb",
    "prometheus_operator",
    "sealed_secrets",
    "strimzi",
    "tekton",
}
"""Modules of the custom-resource library (tests/unit/engine/health/library)."""

BUILT_IN_KINDS = [
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"),
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "PersistentVolumeClaim"),
    ("batch/v1", "Job"),
    ("networking.k8s.io/v1", "Ingress"),
    ("extensions/v1beta1", "Ingress"),
    ("apiregistration.k8s.io/v1", "APIService"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
    ("argoproj.io/v1alpha1", "Workflow"),
    ("argoproj.io/v1alpha1", "Application"),
]


@pytest.mark.parametrize(("api_version", "kind"), BUILT_IN_KINDS)
def test_every_built_in_kind_is_assessed(api_version: str, kind: str) -> None:
    assert assess(live(api_version, kind), customizations=BUILTIN_ONLY) is not None


def test_every_other_built_in_check_is_one_of_the_custom_resource_library() -> None:
    listed = {GroupKind(split_api_version(v)[0], k) for v, k in BUILT_IN_KINDS}
    assert listed <= set(BUILTIN_CHECKS)
    assert {
        module.__name__.rpartition(".")[2]
        for module in {
            sys.modules[BUILTIN_CHECKS[kind].__module__] for kind in set(BUILTIN_CHECKS) - listed
        }
    } == LIBRARY_MODULES


def test_a_resync_of_ten_thousand_objects_compiles_no_lua() -> None:
    """5,000 built-in and 5,000 Lua assessments: every Lua check was compiled once, before.

    What they cost is measured by `python -m bench health_resync`."""
    objects = [
        healthy_deployment(name=f"web-{i}") if i % 2 else live("cert-manager.io/v1", "Certificate")
        for i in range(10_000)
    ]
    assess(objects[0])
    compiled = compile_check.cache_info().misses
    results = [assess(obj) for obj in objects]
    assert compile_check.cache_info().misses == compiled
    assert results[1::2] == [HealthStatus(HealthStatusCode.HEALTHY)] * 5_000
    assert {r.status if r else None for r in results[::2]} == {HealthStatusCode.PROGRESSING}
