"""Bitnami Sealed Secrets (bitnami.com SealedSecret): the controller reports whether it
could unseal the secret in the `Synced` condition (False: wrong key, wrong namespace or
name scope, or a Secret of the same name it does not own)."""

from app.engine.health import conditions
from app.model.health import HealthStatus
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    return conditions.by_condition(obj, "Synced", waiting="Waiting for the controller to unseal it")
