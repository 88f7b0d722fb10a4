"""The resources and actions of Argo CD's RBAC, and how objects are named in a policy.

Objects of the project-scoped resources (applications, applicationsets, logs, exec) are
`<project>/<app>`, or `<project>/<namespace>/<app>` for an app outside the control-plane
namespace (Argo CD's "apps in any namespace"). Other resources name their object
directly: a project by name, a cluster by server URL, a repository by URL (each with a
`<project>/` prefix when the cluster or repository belongs to a project), an account by
name.
"""

APPLICATIONS = "applications"
APPLICATIONSETS = "applicationsets"
PROJECTS = "projects"
REPOSITORIES = "repositories"
CLUSTERS = "clusters"
LOGS = "logs"
EXEC = "exec"
ACCOUNTS = "accounts"
CERTIFICATES = "certificates"
GPGKEYS = "gpgkeys"

RESOURCES = (
    APPLICATIONS,
    APPLICATIONSETS,
    PROJECTS,
    REPOSITORIES,
    CLUSTERS,
    LOGS,
    EXEC,
    ACCOUNTS,
    CERTIFICATES,
    GPGKEYS,
)

GET = "get"
CREATE = "create"
UPDATE = "update"
DELETE = "delete"
SYNC = "sync"
OVERRIDE = "override"
ACTION = "action"

PROJECT_SCOPED = frozenset({APPLICATIONS, APPLICATIONSETS, LOGS, EXEC})
"""Resources whose objects are always `<project>/...`."""
ROLE_RESOURCES = frozenset({APPLICATIONS, APPLICATIONSETS, REPOSITORIES, CLUSTERS, LOGS, EXEC})
"""Resources a project role's policies may grant (Argo CD's list)."""


def app_object(project: str, namespace: str, name: str, control_namespace: str) -> str:
    """An application's RBAC object: `project/name`, or `project/namespace/name`."""
    if namespace and namespace != control_namespace:
        return f"{project}/{namespace}/{name}"
    return f"{project}/{name}"


def scoped_object(project: str, name: str) -> str:
    """A cluster's or repository's object: `project/name` when it belongs to a project."""
    return f"{project}/{name}" if project else name


def resource_action(verb: str, group: str, kind: str, namespace: str, name: str) -> str:
    """Argo CD's fine-grained action on one resource of an app:
    `update/<group>/<kind>/<namespace>/<name>` (or `delete/...`)."""
    return f"{verb}/{group}/{kind}/{namespace}/{name}"


def lua_action(group: str, kind: str, action: str) -> str:
    """The action of running a resource action: `action/<group>/<kind>/<action>`."""
    return f"{ACTION}/{group}/{kind}/{action}"


def project_of(resource: str, obj: str) -> str:
    """The project a request is about, as Argo CD reads it from the object ("" if none)."""
    if resource == PROJECTS:
        return obj
    if resource in ROLE_RESOURCES:
        head, sep, _ = obj.partition("/")
        if sep and head and ":" not in head:
            return head
    return ""
