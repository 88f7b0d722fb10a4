"""cert-manager issuers and certificate requests (cert-manager.io; the Certificate check
is Lua, in resource_customizations).

- Issuer, ClusterIssuer: the `Ready` condition (False when the ACME account, CA secret
  or Vault cannot be used; cert-manager keeps retrying, so the message says why).
- CertificateRequest: `Ready` True once the certificate is signed; False with reason
  `Failed` (the issuer refused) or `Denied` (an approver refused: the `Denied`
  condition) is Degraded; `Pending` while the issuer works.
"""

from app.engine.health import conditions
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def issuer(obj: KubeObject) -> HealthStatus:
    return conditions.by_condition(obj, "Ready", waiting="Waiting for the issuer to be verified")


def certificate_request(obj: KubeObject) -> HealthStatus:
    for refused in ("Denied", "InvalidRequest"):
        found = conditions.condition(obj, refused)
        if found is not None and found.true:
            return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(found))
    ready = conditions.condition(obj, "Ready")
    if ready is None:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the request to be approved")
    if ready.true:
        return HealthStatus(HealthStatusCode.HEALTHY, conditions.text(ready))
    if ready.false and ready.reason in ("Failed", "Denied"):
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(ready))
    return HealthStatus(HealthStatusCode.PROGRESSING, conditions.text(ready))
