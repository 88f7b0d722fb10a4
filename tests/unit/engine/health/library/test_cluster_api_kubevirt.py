"""Cluster API and KubeVirt."""

import pytest

from tests.unit.engine.health.library.cases import (
    Case,
    D,
    H,
    P,
    S,
    U,
    assert_case,
    conditioned,
    live,
    params,
)

CAPI = "cluster.x-k8s.io/v1beta1"
KV = "kubevirt.io/v1"

CASES = params(
    Case(
        "cluster-provisioned",
        conditioned(
            CAPI, "Cluster", ("Ready", "True", "", ""), phase="Provisioned", observedGeneration=1
        ),
        H,
        "Provisioned",
    ),
    Case(
        "cluster-provisioning",
        live(CAPI, "Cluster", status={"phase": "Provisioning"}),
        P,
        "Provisioning",
    ),
    Case(
        "cluster-cp-not-ready",
        conditioned(
            CAPI, "Cluster", ("Ready", "False", "WaitingForControlPlane", ""), phase="Provisioned"
        ),
        P,
        "WaitingForControlPlane",
    ),
    Case(
        "cluster-failed",
        live(
            CAPI,
            "Cluster",
            status={"phase": "Failed", "failureMessage": "invalid infrastructure reference"},
        ),
        D,
        "invalid infrastructure reference",
    ),
    Case(
        "cluster-paused",
        live(CAPI, "Cluster", spec={"paused": True}),
        S,
        "Reconciliation is paused",
    ),
    Case("machine-running", live(CAPI, "Machine", status={"phase": "Running"}), H, "Running"),
    Case(
        "machine-waiting-node",
        live(CAPI, "Machine", status={"phase": "Provisioned"}),
        P,
        "Waiting for the node to join",
    ),
    Case(
        "machine-failed",
        live(CAPI, "Machine", status={"phase": "Failed", "failureReason": "CreateError"}),
        D,
        "CreateError",
    ),
    Case(
        "md-rolling",
        live(
            CAPI,
            "MachineDeployment",
            spec={"replicas": 3},
            status={"observedGeneration": 1, "updatedReplicas": 1, "availableReplicas": 3},
        ),
        P,
        "1 of 3 machines updated",
    ),
    Case(
        "md-healthy",
        live(
            CAPI,
            "MachineDeployment",
            spec={"replicas": 3},
            status={"observedGeneration": 1, "updatedReplicas": 3, "availableReplicas": 3},
        ),
        H,
        "3 of 3 machines available",
    ),
    Case(
        "md-paused",
        live(CAPI, "MachineDeployment", spec={"paused": True}),
        S,
        "Reconciliation is paused",
    ),
    Case(
        "vm-running",
        live(KV, "VirtualMachine", status={"printableStatus": "Running"}),
        H,
        "Running",
    ),
    Case(
        "vm-stopped",
        live(
            KV,
            "VirtualMachine",
            spec={"runStrategy": "Halted"},
            status={"printableStatus": "Stopped"},
        ),
        S,
        "Stopped",
    ),
    Case(
        "vm-starting",
        live(KV, "VirtualMachine", status={"printableStatus": "Starting"}),
        P,
        "Starting",
    ),
    Case(
        "vm-unschedulable",
        conditioned(
            KV,
            "VirtualMachine",
            ("Ready", "False", "Unschedulable", "0/3 nodes are available: Insufficient memory"),
            printableStatus="ErrorUnschedulable",
        ),
        D,
        "ErrorUnschedulable: 0/3 nodes are available: Insufficient memory",
    ),
    Case(
        "vm-odd",
        live(KV, "VirtualMachine", status={"printableStatus": "Levitating"}),
        U,
        "Levitating",
    ),
)


@pytest.mark.parametrize("case", CASES)
def test_cluster_api_and_kubevirt(case: Case) -> None:
    assert_case(case)
