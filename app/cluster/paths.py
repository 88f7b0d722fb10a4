"""REST paths of objects and collections, built only from names that are safe path segments.

A name or namespace comes from a manifest, so it is checked before it becomes part of a
URL: the API server itself rejects `.`, `..`, `/` and `%` in names, and letting them
through would address a different endpoint than the one intended.
"""

from urllib.parse import quote

from app.cluster.errors import Invalid, Target
from app.cluster.resources import ResourceType

MAX_NAME_CHARS = 253
"""The longest object name Kubernetes accepts (a DNS subdomain)."""


def check_segment(value: str, what: str, target: Target) -> str:
    """`value` if it can be used as one URL path segment, else an Invalid naming `what`."""
    problem = ""
    if not value:
        problem = f"{what} is empty"
    elif value in {".", ".."}:
        problem = f"{what} {value!r} is not allowed"
    elif "/" in value or "%" in value:
        problem = f"{what} {value!r} may not contain '/' or '%'"
    elif len(value) > MAX_NAME_CHARS:
        problem = f"{what} is longer than {MAX_NAME_CHARS} characters"
    elif any(ord(c) < 0x21 or ord(c) == 0x7F for c in value):
        problem = f"{what} {value!r} contains whitespace or control characters"
    if problem:
        raise Invalid(problem, target=target, hint="fix the manifest")
    return value


def require_namespace(rt: ResourceType, namespace: str, target: Target) -> None:
    """An Invalid if `rt` is namespaced and no namespace is given."""
    if rt.namespaced and not namespace:
        raise Invalid(
            f"metadata.namespace is empty, but {rt.kind} is a namespaced kind",
            target=target,
            hint="set the namespace in the manifest or the Application's destination",
        )


def collection_path(rt: ResourceType, namespace: str, target: Target) -> str:
    """`/apis/<g>/<v>[/namespaces/<ns>]/<resource>`; all namespaces when `namespace` is empty."""
    base = f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}"
    if rt.namespaced and namespace:
        ns = quote(check_segment(namespace, "metadata.namespace", target), safe="")
        return f"{base}/namespaces/{ns}/{rt.resource}"
    return f"{base}/{rt.resource}"


def object_path(
    rt: ResourceType, namespace: str, name: str, target: Target, subresource: str = ""
) -> str:
    """The path of one object (or of its `subresource`, e.g. `status`)."""
    require_namespace(rt, namespace, target)
    path = collection_path(rt, namespace, target)
    path += "/" + quote(check_segment(name, "metadata.name", target), safe="")
    if subresource:
        if subresource not in rt.subresources:
            raise Invalid(
                f"{rt.resource} has no {subresource!r} subresource on this server",
                target=target,
            )
        path += "/" + subresource
    return path
