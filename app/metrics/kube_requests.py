"""What one Kubernetes API request was, in the words of `argocd_app_k8s_request_total`.

Argo CD's transport wrapper labels a request by its verb (Get, List, Watch, Create, Update,
Patch, Delete), the resource it touched (the plural name in the URL: `deployments`) and
the namespace in the URL. This reads the same from a request's method, path and query:

    request_labels("GET", "/apis/apps/v1/namespaces/web/deployments/guestbook", ())
        -> RequestLabels(verb="Get", resource_kind="deployments", resource_namespace="web")

Paths that name no resource (discovery: `/api`, `/apis/apps/v1`, `/version`) have no
resource kind; their verb is still read from the method.
"""

from collections.abc import Sequence
from dataclasses import dataclass

_VERBS = {"POST": "Create", "PUT": "Update", "PATCH": "Patch", "DELETE": "Delete"}


@dataclass(frozen=True, slots=True)
class RequestLabels:
    verb: str
    resource_kind: str = ""
    resource_namespace: str = ""


def _resource_parts(path: str) -> list[str]:
    """The path after its group-version: `[namespaces, ns, kind, name, sub]` or shorter."""
    parts = [p for p in path.split("?", 1)[0].split("/") if p]
    if parts[:1] == ["api"]:
        return parts[2:]
    if parts[:1] == ["apis"]:
        return parts[3:]
    return []


def request_labels(method: str, path: str, query: Sequence[tuple[str, str]]) -> RequestLabels:
    """The verb, resource and namespace of one request (see the module docstring)."""
    rest = _resource_parts(path)
    namespace = ""
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    kind = rest[0] if rest else ""
    named = len(rest) >= 2
    upper = method.upper()
    if upper == "GET":
        if any(key == "watch" and value in ("1", "true") for key, value in query):
            verb = "Watch"
        else:
            verb = "Get" if named else "List"
    else:
        verb = _VERBS.get(upper, upper.title())
        if verb == "Delete" and not named:
            verb = "DeleteCollection"
    return RequestLabels(verb, kind, namespace)
