"""PVC, Service, Ingress, APIService, HPA, CRD and child Application health (SEMANTICS §5)."""

import json
from typing import Any

import pytest

from app.engine.health import apiservice, application, crd, hpa, ingress, pvc, service
from app.model.errors import SpecError
from app.model.health import HealthStatus, HealthStatusCode
from tests.unit.engine.health.objects import condition, live

H, S, P, M, D, U = (
    HealthStatusCode.HEALTHY,
    HealthStatusCode.SUSPENDED,
    HealthStatusCode.PROGRESSING,
    HealthStatusCode.MISSING,
    HealthStatusCode.DEGRADED,
    HealthStatusCode.UNKNOWN,
)


@pytest.mark.parametrize(
    ("phase", "expected"),
    [
        pytest.param("Bound", H, id="bound-is-healthy"),
        pytest.param("Pending", P, id="pending-is-progressing"),
        pytest.param("Lost", D, id="lost-is-degraded"),
        pytest.param(None, U, id="no-phase-is-unknown"),
    ],
)
def test_pvc(phase: str | None, expected: HealthStatusCode) -> None:
    status = {"phase": phase} if phase else {}
    assert pvc.health(live("v1", "PersistentVolumeClaim", status=status)) == HealthStatus(expected)


LB_ADDRESS = {"loadBalancer": {"ingress": [{"ip": "203.0.113.10"}]}}


@pytest.mark.parametrize(
    ("spec", "status", "expected"),
    [
        pytest.param({"type": "ClusterIP"}, {}, H, id="cluster-ip-is-healthy"),
        pytest.param({}, None, H, id="default-type-is-healthy"),
        pytest.param(
            {"type": "LoadBalancer"}, {"loadBalancer": {}}, P, id="load-balancer-without-address"
        ),
        pytest.param({"type": "LoadBalancer"}, LB_ADDRESS, H, id="load-balancer-with-address"),
    ],
)
def test_service(spec: dict[str, Any], status: Any, expected: HealthStatusCode) -> None:
    assert service.health(live("v1", "Service", spec=spec, status=status)) == HealthStatus(expected)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param(LB_ADDRESS, H, id="address-published-is-healthy"),
        pytest.param({"loadBalancer": {"ingress": []}}, P, id="empty-address-list-is-progressing"),
        pytest.param(None, P, id="no-status-is-progressing"),
    ],
)
def test_ingress(status: Any, expected: HealthStatusCode) -> None:
    obj = live("networking.k8s.io/v1", "Ingress", status=status)
    assert ingress.health(obj) == HealthStatus(expected)


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        pytest.param(
            [condition("Available", "True", "Local", "Local APIServices are always available")],
            HealthStatus(H, "Local: Local APIServices are always available"),
            id="available-true-is-healthy",
        ),
        pytest.param(
            [condition("Available", "False", "FailedDiscoveryCheck", "no response from 10.0.0.9")],
            HealthStatus(P, "FailedDiscoveryCheck: no response from 10.0.0.9"),
            id="available-false-is-progressing",
        ),
        pytest.param([], HealthStatus(P, "Waiting to be processed"), id="no-condition-is-waiting"),
    ],
)
def test_apiservice(conditions: list[Any], expected: HealthStatus) -> None:
    obj = live("apiregistration.k8s.io/v1", "APIService", status={"conditions": conditions})
    assert apiservice.health(obj) == expected


ABLE = condition("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
LIMITED = condition("ScalingLimited", "True", "TooFewReplicas", "the desired count is below min")
NOT_LIMITED = condition("ScalingLimited", "False", "DesiredWithinRange", "within range")
NO_METRIC = condition(
    "ScalingActive", "False", "FailedGetResourceMetric", "unable to get metrics for cpu"
)
NO_OBJECT_METRIC = condition(
    "ScalingActive", "False", "FailedGetObjectMetric", "unable to get metric sessions"
)
NO_SCALE = condition("AbleToScale", "False", "FailedGetScale", "deployments/web not found")


def hpa_v2(*conditions: dict[str, str]) -> dict[str, Any]:
    return live(
        "autoscaling/v2", "HorizontalPodAutoscaler", status={"conditions": list(conditions)}
    )


def hpa_v1(annotation: str | None) -> dict[str, Any]:
    notes = None if annotation is None else {hpa.V1_CONDITIONS: annotation}
    return live("autoscaling/v1", "HorizontalPodAutoscaler", annotations=notes, status={})


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            hpa_v2(ABLE), HealthStatus(H, ABLE["message"]), id="v2-able-to-scale-is-healthy"
        ),
        pytest.param(
            hpa_v2(NOT_LIMITED, LIMITED),
            HealthStatus(H, LIMITED["message"]),
            id="v2-scaling-limited-true-is-healthy",
        ),
        pytest.param(
            hpa_v2(NO_SCALE), HealthStatus(D, NO_SCALE["message"]), id="v2-failed-get-scale"
        ),
        pytest.param(
            hpa_v2(ABLE, NO_METRIC),
            HealthStatus(D, NO_METRIC["message"]),
            id="v2-metric-failure-wins-over-an-earlier-healthy-condition",
        ),
        pytest.param(
            hpa_v2(NOT_LIMITED),
            HealthStatus(P, "Waiting to Autoscale"),
            id="v2-nothing-decisive-is-waiting",
        ),
        pytest.param(
            hpa_v1(json.dumps([ABLE])),
            HealthStatus(H, ABLE["message"]),
            id="v1-conditions-annotation-healthy",
        ),
        pytest.param(
            hpa_v1(json.dumps([ABLE, NO_OBJECT_METRIC])),
            HealthStatus(D, NO_OBJECT_METRIC["message"]),
            id="v1-conditions-annotation-object-metric-failure",
        ),
        pytest.param(
            hpa_v1(None), HealthStatus(P, "Waiting to Autoscale"), id="v1-without-annotation"
        ),
        pytest.param(
            hpa_v1("[]"), HealthStatus(P, "Waiting to Autoscale"), id="v1-empty-annotation"
        ),
    ],
)
def test_hpa(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert hpa.health(obj) == expected


def test_hpa_v1_annotation_that_is_not_json_names_the_annotation() -> None:
    with pytest.raises(SpecError) as raised:
        hpa.health(hpa_v1("[{not json"))
    assert raised.value.field == f"metadata.annotations.{hpa.V1_CONDITIONS}"
    assert "is not valid JSON" in raised.value.problem


def a_crd(*conditions: dict[str, str]) -> dict[str, Any]:
    return live(
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        name="examples.example.io",
        status={"conditions": list(conditions)},
    )


NAMES_OK = condition("NamesAccepted", "True", "NoConflicts", "no conflicts found")
ESTABLISHED = condition("Established", "True", "InitialNamesAccepted", "the initial names...")


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            a_crd(),
            HealthStatus(P, "Status conditions not found"),
            id="no-conditions-is-progressing",
        ),
        pytest.param(
            a_crd(NAMES_OK, ESTABLISHED, condition("Terminating", "True", "", "deleting objects")),
            HealthStatus(P, "CRD is being terminated: deleting objects"),
            id="terminating-is-progressing",
        ),
        pytest.param(
            a_crd(condition("NamesAccepted", "False", "", '"examples" is already in use')),
            HealthStatus(D, 'CRD names have not been accepted: "examples" is already in use'),
            id="names-not-accepted-is-degraded",
        ),
        pytest.param(
            a_crd(NAMES_OK, condition("Established", "False", "Installing", "installing")),
            HealthStatus(P, "CRD is not established: installing"),
            id="not-established-yet-is-progressing",
        ),
        pytest.param(
            a_crd(NAMES_OK),
            HealthStatus(P, "CRD is not established: no Established condition"),
            id="no-established-condition-is-progressing",
        ),
        pytest.param(
            a_crd(
                NAMES_OK,
                ESTABLISHED,
                condition("NonStructuralSchema", "True", "", "spec.versions[0].schema: Required"),
            ),
            HealthStatus(D, "Schema violations found: spec.versions[0].schema: Required"),
            id="non-structural-schema-is-degraded",
        ),
        pytest.param(
            a_crd(NAMES_OK, ESTABLISHED),
            HealthStatus(H, "CRD is healthy"),
            id="established-is-healthy",
        ),
    ],
)
def test_crd(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert crd.health(obj) == expected


def child_app(health: dict[str, str] | None) -> dict[str, Any]:
    status = {"health": health} if health is not None else {}
    return live("argoproj.io/v1alpha1", "Application", name="payments", status=status)


@pytest.mark.parametrize(
    ("health", "expected"),
    [
        pytest.param(
            {"status": "Healthy"}, HealthStatus(H), id="child-health-is-the-childs-status"
        ),
        pytest.param(
            {"status": "Degraded", "message": "Caused by apps/Deployment:pay/api"},
            HealthStatus(D, "Caused by apps/Deployment:pay/api"),
            id="child-message-is-kept",
        ),
        pytest.param({"status": "Missing"}, HealthStatus(M), id="child-missing-stays-missing"),
        pytest.param(
            None,
            HealthStatus(P, "Waiting for the application to be reconciled"),
            id="child-not-reconciled-yet-is-progressing",
        ),
    ],
)
def test_child_application(health: dict[str, str] | None, expected: HealthStatus) -> None:
    assert application.health(child_app(health)) == expected


def test_child_application_with_an_invalid_status_is_unknown_and_says_so() -> None:
    result = application.health(child_app({"status": "Great"}))
    assert result.status is U
    assert "'Great' is not a health status" in result.message
