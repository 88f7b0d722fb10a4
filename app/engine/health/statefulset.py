"""StatefulSet health: kubectl's rollout status, as Argo CD reads it.

Note Argo CD's quirk, kept on purpose: with a RollingUpdate strategy that has a
`rollingUpdate` block (the API server always defaults one), the partition check decides
and the update/current revision comparison is never reached.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Progressing until the spec is observed and every replica is ready and updated."""
    observed = fields.integer(obj, "status.observedGeneration")
    if observed == 0 or fields.integer(obj, "metadata.generation") > observed:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, "Waiting for statefulset spec update to be observed..."
        )
    desired = fields.opt_integer(obj, "spec.replicas")
    ready = fields.integer(obj, "status.readyReplicas")
    if desired is not None and ready < desired:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, f"Waiting for {desired - ready} pods to be ready..."
        )
    strategy = fields.string(obj, "spec.updateStrategy.type")
    updated = fields.integer(obj, "status.updatedReplicas")
    if (
        strategy == "RollingUpdate"
        and fields.value(obj, "spec.updateStrategy.rollingUpdate") is not None
    ):
        partition = fields.opt_integer(obj, "spec.updateStrategy.rollingUpdate.partition")
        if desired is not None and partition is not None and updated < desired - partition:
            return HealthStatus(
                HealthStatusCode.PROGRESSING,
                "Waiting for partitioned roll out to finish: "
                f"{updated} out of {desired - partition} new pods have been updated...",
            )
        return HealthStatus(
            HealthStatusCode.HEALTHY,
            f"partitioned roll out complete: {updated} new pods have been updated...",
        )
    if strategy == "OnDelete":
        return HealthStatus(HealthStatusCode.HEALTHY, f"statefulset has {ready} ready pods")
    update_revision = fields.string(obj, "status.updateRevision")
    current_revision = fields.string(obj, "status.currentRevision")
    if update_revision != current_revision:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f"waiting for statefulset rolling update to complete {updated} pods "
            f"at revision {update_revision}...",
        )
    current = fields.integer(obj, "status.currentReplicas")
    return HealthStatus(
        HealthStatusCode.HEALTHY,
        f"statefulset rolling update complete {current} pods at revision {current_revision}...",
    )
