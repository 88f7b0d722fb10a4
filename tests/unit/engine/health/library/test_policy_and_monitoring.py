"""Kyverno policies and the Prometheus Operator."""

import pytest

from tests.unit.engine.health.library.cases import (
    Case,
    D,
    H,
    P,
    S,
    assert_case,
    conditioned,
    live,
    params,
)

KY = "kyverno.io/v1"
MON = "monitoring.coreos.com/v1"

CASES = params(
    Case(
        "policy-ready",
        conditioned(KY, "ClusterPolicy", ("Ready", "True", "Succeeded", "Ready")),
        H,
        "Ready",
    ),
    Case(
        "policy-not-ready",
        conditioned(KY, "Policy", ("Ready", "False", "Failed", "the webhook is not configured")),
        D,
        "the webhook is not configured",
    ),
    Case("policy-legacy-ready", live(KY, "ClusterPolicy", status={"ready": True}), H),
    Case("policy-new", live(KY, "ClusterPolicy"), P, "Waiting for the policy to be ready"),
    Case(
        "prometheus-available",
        conditioned(
            MON, "Prometheus", ("Available", "True", "", ""), ("Reconciled", "True", "", "")
        ),
        H,
    ),
    Case(
        "prometheus-some-down",
        conditioned(
            MON,
            "Prometheus",
            ("Available", "Degraded", "SomePodsNotReady", "shard 0: 1/2 pods ready"),
        ),
        D,
        "shard 0: 1/2 pods ready",
    ),
    Case(
        "prometheus-starting",
        conditioned(
            MON, "Prometheus", ("Available", "False", "NoPodReady", "shard 0: 0/2 pods ready")
        ),
        P,
        "shard 0: 0/2 pods ready",
    ),
    Case(
        "alertmanager-not-reconciled",
        conditioned(
            MON,
            "Alertmanager",
            ("Reconciled", "False", "ReconciliationFailed", "invalid config secret"),
        ),
        D,
        "invalid config secret",
    ),
    Case(
        "alertmanager-paused",
        live(MON, "Alertmanager", spec={"paused": True}),
        S,
        "Reconciliation is paused",
    ),
    Case("alertmanager-new", live(MON, "Alertmanager"), P, "Waiting for the operator to deploy it"),
)


@pytest.mark.parametrize("case", CASES)
def test_policy_and_monitoring(case: Case) -> None:
    assert_case(case)
