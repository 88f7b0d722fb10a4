"""External Secrets Operator (external-secrets.io), every kind from its `Ready` condition.

- ExternalSecret, PushSecret: Ready True once the secret is synced (SecretSynced,
  Synced); False with the provider's error (SecretSyncedError, Errored) is Degraded.
- SecretStore, ClusterSecretStore: Ready False when the provider cannot be reached or
  its configuration is invalid (ValidationFailed, InvalidProviderConfig).
- ClusterExternalSecret: Degraded while `status.failedNamespaces` is not empty (the
  ExternalSecret could not be created there), whatever its Ready condition says.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    return conditions.by_condition(obj, "Ready", waiting="Waiting for the first sync")


def store(obj: KubeObject) -> HealthStatus:
    return conditions.by_condition(obj, "Ready", waiting="Waiting for the store to be validated")


def cluster_external_secret(obj: KubeObject) -> HealthStatus:
    failed = fields.items(obj, "status.failedNamespaces")
    if failed:
        names = ", ".join(
            str(f.get("namespace")) if isinstance(f, dict) else str(f) for f in failed[:10]
        )
        return HealthStatus(HealthStatusCode.DEGRADED, f"failed in namespace(s) {names}")
    return health(obj)
