"""Crossplane and Upbound (every group under crossplane.io and upbound.io), from the
`Synced` and `Ready` conditions all managed resources, composite resources and claims
carry.

- `Synced` False: the last reconcile failed (bad credentials, a refused API call, an
  invalid composition) → Degraded with the error;
- `Ready` True → Healthy; False or Unknown (Creating, Deleting, Unavailable: the
  external resource is not usable yet) → Progressing;
- packages (pkg.crossplane.io Provider, Configuration, Function): `Healthy` False →
  Degraded, `Installed` not True → Progressing, else Healthy;
- kinds with no conditions by design (Composition, CompositionRevision,
  EnvironmentConfig, ProviderConfig, Usage...) are Healthy; a managed resource before
  its first reconcile is Progressing.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_PACKAGE_GROUP = "pkg.crossplane.io"
_WITHOUT_CONDITIONS = frozenset(
    {
        "Composition",
        "CompositionRevision",
        "EnvironmentConfig",
        "ProviderConfig",
        "ClusterProviderConfig",
        "ProviderConfigUsage",
        "Usage",
        "ClusterUsage",
        "DeploymentRuntimeConfig",
        "ControllerConfig",
        "ImageConfig",
    }
)


def _package(obj: KubeObject) -> HealthStatus:
    unhealthy = conditions.condition(obj, "Healthy")
    if unhealthy is not None and unhealthy.false:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(unhealthy))
    installed = conditions.condition(obj, "Installed")
    if installed is None or not installed.true:
        message = conditions.text(installed) if installed else "Waiting for the package to install"
        return HealthStatus(HealthStatusCode.PROGRESSING, message)
    if unhealthy is None or not unhealthy.true:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the package to be healthy")
    return HealthStatus(HealthStatusCode.HEALTHY, conditions.text(unhealthy))


def health(obj: KubeObject) -> HealthStatus:
    api_group = str(obj.get("apiVersion", "")).partition("/")[0]
    if api_group == _PACKAGE_GROUP:
        return _package(obj)
    found = fields.conditions(obj)
    if not found and str(obj.get("kind")) in _WITHOUT_CONDITIONS:
        return HealthStatus(HealthStatusCode.HEALTHY)
    synced = fields.find(found, "Synced")
    if synced is not None and synced.false:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(synced))
    ready = fields.find(found, "Ready")
    if ready is not None and ready.true:
        return HealthStatus(HealthStatusCode.HEALTHY, conditions.text(ready))
    if ready is not None:
        return HealthStatus(HealthStatusCode.PROGRESSING, conditions.text(ready))
    return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for Crossplane to reconcile it")
