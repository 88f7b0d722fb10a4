"""CloudNativePG and Strimzi."""

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

PG = "postgresql.cnpg.io/v1"
KAFKA = "kafka.strimzi.io/v1beta2"

CASES = params(
    Case(
        "pg-healthy",
        live(PG, "Cluster", status={"phase": "Cluster in healthy state"}),
        H,
        "Cluster in healthy state",
    ),
    Case(
        "pg-creating",
        live(
            PG,
            "Cluster",
            status={"phase": "Creating a new replica", "phaseReason": "Creating replica db-2"},
        ),
        P,
        "Creating a new replica: Creating replica db-2",
    ),
    Case(
        "pg-stuck",
        live(
            PG,
            "Cluster",
            status={
                "phase": "Unable to create required cluster objects",
                "phaseReason": "secret app-user not found",
            },
        ),
        D,
        "Unable to create required cluster objects: secret app-user not found",
    ),
    Case(
        "pg-hibernated",
        live(PG, "Cluster", annotations={"cnpg.io/hibernation": "on"}),
        S,
        "Cluster is hibernated",
    ),
    Case("pg-new", live(PG, "Cluster"), P, "Waiting for the operator"),
    Case(
        "kafka-ready",
        conditioned(
            KAFKA,
            "Kafka",
            ("Ready", "True", "", ""),
            ("Warning", "True", "DeprecatedFields", "x"),
            observedGeneration=1,
        ),
        H,
    ),
    Case(
        "kafka-creating",
        conditioned(
            KAFKA, "Kafka", ("NotReady", "True", "Creating", "Kafka cluster is being deployed")
        ),
        P,
        "Kafka cluster is being deployed",
    ),
    Case(
        "kafka-failed",
        conditioned(
            KAFKA,
            "Kafka",
            ("NotReady", "True", "InvalidResourceException", "Tiered storage requires KRaft"),
        ),
        D,
        "Tiered storage requires KRaft",
    ),
    Case(
        "topic-not-ready",
        conditioned(
            KAFKA, "KafkaTopic", ("Ready", "False", "KafkaError", "Invalid replication factor")
        ),
        D,
        "Invalid replication factor",
    ),
    Case(
        "user-paused", conditioned(KAFKA, "KafkaUser", ("ReconciliationPaused", "True", "", "")), S
    ),
    Case(
        "topic-stale",
        live(
            KAFKA,
            "KafkaTopic",
            generation=3,
            status={"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}]},
        ),
        P,
        "Waiting for the spec update to be observed",
    ),
)


@pytest.mark.parametrize("case", CASES)
def test_data_platforms(case: Case) -> None:
    assert_case(case)
