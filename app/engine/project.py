"""AppProject checks: may this app deploy from that repo, to that destination, that kind?

The project is a security boundary (docs/threats.md, "project escape"): every target object is
checked against it, in compare and in sync, and each check returns a `Permission` whose
message is Argo CD's wording, so users see the same text in status, events and the CLI.

- The app's namespace: an Application outside the control-plane namespace may use a
  project only if one of the project's `sourceNamespaces` globs matches its namespace
  (Argo CD's IsAppNamespacePermitted; a `!` pattern grants nothing). Every worker asks
  this before anything else, so an Application written straight to the cluster cannot
  borrow a project's rights.
- Source repos: globs over normalized repository URLs (`*` does not cross `/`, `**`
  does; the lone pattern `*` matches every repo). A pattern starting with `!` denies: a
  repo matching any deny pattern is refused even if another pattern allows it.
- Destinations: a destination entry matches when its server (or cluster name) and its
  namespace both match (globs, `!` negation); any deny entry that rejects the destination
  refuses it.
- Group/kind: cluster-scoped kinds must be in `clusterResourceWhitelist` (empty: none) and
  not in `clusterResourceBlacklist`; namespaced kinds must be in
  `namespaceResourceWhitelist` (empty or absent: all) and not in
  `namespaceResourceBlacklist`. Group and kind are globs; `""` is the core group.
- One object (`resource_permitted`): its group/kind, then, for a namespaced object with a
  namespace, that namespace on the app's destination cluster. Compare (the resource is
  Unknown) and sync (the task is invalid) ask this one function.
"""

import fnmatch
import re
from dataclasses import dataclass
from functools import lru_cache

from app.model.app_spec import ApplicationDestination
from app.model.project import AppProject, GroupKindSpec
from app.model.resource import ResourceKey


@dataclass(frozen=True, slots=True)
class Permission:
    """The outcome of a check; `message` says why not, in Argo CD's words."""

    allowed: bool
    message: str = ""


ALLOWED = Permission(True)


def _is_deny(pattern: str) -> bool:
    return pattern.startswith("!")


@lru_cache(maxsize=1024)
def _compile_glob(pattern: str, separator: str) -> re.Pattern[str]:
    parts: list[str] = []
    i = 0
    not_sep = f"[^{re.escape(separator)}]" if separator else "."
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i):
            parts.append(".*")
            i += 2
            continue
        if char == "*":
            parts.append(f"{not_sep}*")
        elif char == "?":
            parts.append(not_sep)
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                parts.append(re.escape(char))
            else:
                body = pattern[i + 1 : end]
                negate = body.startswith("!")
                body = (body[1:] if negate else body).replace("\\", "\\\\").replace("^", "\\^")
                parts.append("[" + ("^" if negate else "") + body + "]")
                i = end
        else:
            parts.append(re.escape(char))
        i += 1
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def glob_match(pattern: str, value: str, *, separator: str = "", negation: bool = True) -> bool:
    """Argo CD's globMatch: `!` negates (when allowed), a lone `*` matches anything."""
    if negation and _is_deny(pattern):
        return not glob_match(pattern[1:], value, separator=separator, negation=False)
    if pattern == "*":
        return True
    return _compile_glob(pattern, separator).match(value) is not None


def glob_regex(pattern: str) -> str:
    """The regular expression `glob_match(pattern, value, negation=False)` applies."""
    return ".*" if pattern == "*" else _compile_glob(pattern, "").pattern


def normalize_repo_url(url: str) -> str:
    """A repo URL in the form projects compare: lower case, no `.git`, no trailing `/`,
    scp-style `git@host:org/repo` spelled `ssh://git@host/org/repo`."""
    text = url.strip().lower()
    scp = re.match(r"^([\w.\-]+@[\w.\-]+):(?!//)(.*)$", text)
    if scp:
        text = f"ssh://{scp.group(1)}/{scp.group(2)}"
    text = text.rstrip("/")
    return text.removesuffix(".git")


def app_namespace_permitted(
    project: AppProject, name: str, namespace: str, *, control_namespace: str
) -> Permission:
    """Whether the Application `name` in `namespace` may use the project (its
    `sourceNamespaces`)."""
    if namespace in ("", control_namespace) or any(
        glob_match(pattern, namespace, negation=False) for pattern in project.spec.source_namespaces
    ):
        return ALLOWED
    return Permission(
        False,
        f"application '{name}' in namespace '{namespace}' is not allowed to use project "
        f"{project.name}; add the namespace to the project's sourceNamespaces",
    )


def source_permitted(project: AppProject, repo_url: str) -> Permission:
    """Whether `repo_url` is one of the project's source repos (deny patterns win)."""
    source = normalize_repo_url(repo_url)
    matched = False
    for pattern in project.spec.source_repos:
        deny = _is_deny(pattern)
        normalized = normalize_repo_url(pattern[1:] if deny else pattern)
        if glob_match(("!" if deny else "") + normalized, source, separator="/"):
            matched = True
        elif deny:
            matched = False
            break
    if matched:
        return ALLOWED
    return Permission(
        False, f"application repo {repo_url} is not permitted in project '{project.name}'"
    )


def destination_permitted(
    project: AppProject, *, server: str = "", name: str = "", namespace: str = ""
) -> Permission:
    """Whether a destination (server URL and/or cluster name, namespace) is allowed."""
    any_matched = False
    denied = False
    for item in project.spec.destinations:
        name_ok = bool(name) and glob_match(item.name, name)
        server_ok = bool(server) and glob_match(item.server, server)
        namespace_ok = glob_match(item.namespace, namespace)
        if (server_ok or name_ok) and namespace_ok:
            any_matched = True
        elif (
            (not name_ok and _is_deny(item.name))
            or (not server_ok and _is_deny(item.server))
            or (not namespace_ok and _is_deny(item.namespace))
        ):
            denied = True
    if any_matched and not denied:
        return ALLOWED
    where = f"server '{server}'" if server else f"name '{name}'"
    return Permission(
        False,
        f"application destination {where} and namespace '{namespace}' do not match any of "
        f"the allowed destinations in project '{project.name}'",
    )


@dataclass(frozen=True, slots=True)
class DestinationCluster:
    """The cluster an app's destination resolves to, as the project check needs it."""

    name: str
    server: str
    project: str = ""
    """Its cluster Secret's `project` ("" for an unscoped cluster and the control plane)."""
    secret: str = ""
    """The cluster Secret's name ("" for the control plane)."""


PERMIT_ONLY_SCOPED = "permitOnlyProjectScopedClusters"


def cluster_permitted(project: AppProject, cluster: DestinationCluster) -> Permission:
    """Whether the project's apps may deploy to `cluster`: not when the cluster is scoped
    to another project, nor an unscoped one when the project sets
    `permitOnlyProjectScopedClusters`."""
    scoped = cluster.project
    where = f"cluster '{cluster.name or cluster.server}'"
    if scoped and scoped != project.name:
        return Permission(
            False,
            f"{where} is scoped to project '{scoped}' by cluster Secret {cluster.secret}; "
            f"applications of project '{project.name}' may not deploy to it (deploy to a "
            f"cluster of project '{project.name}' or an unscoped one)",
        )
    if project.spec.extra.get(PERMIT_ONLY_SCOPED) is True and scoped != project.name:
        return Permission(
            False,
            f"project '{project.name}' sets {PERMIT_ONLY_SCOPED} and {where} is not scoped "
            f"to it; set the cluster Secret's project to '{project.name}'",
        )
    return ALLOWED


def namespace_permitted(
    project: AppProject, namespace: str, *, server: str = "", name: str = ""
) -> Permission:
    """Whether a namespaced target may live in `namespace` on the app's destination cluster."""
    if destination_permitted(project, server=server, name=name, namespace=namespace).allowed:
        return ALLOWED
    return Permission(False, f"namespace {namespace} is not permitted in project '{project.name}'")


def _in_list(group: str, kind: str, entries: list[GroupKindSpec]) -> bool:
    return any(
        fnmatch.fnmatchcase(kind, e.kind) and fnmatch.fnmatchcase(group, e.group) for e in entries
    )


def group_kind_permitted(
    project: AppProject, group: str, kind: str, *, namespaced: bool
) -> Permission:
    """Whether the project allows objects of group/kind (allow and deny lists, globs)."""
    spec = project.spec
    if namespaced:
        allowed = not spec.namespace_resource_whitelist or _in_list(
            group, kind, spec.namespace_resource_whitelist
        )
        denied = _in_list(group, kind, spec.namespace_resource_blacklist)
    else:
        allowed = _in_list(group, kind, spec.cluster_resource_whitelist)
        denied = _in_list(group, kind, spec.cluster_resource_blacklist)
    if allowed and not denied:
        return ALLOWED
    return Permission(False, f"resource {group}:{kind} is not permitted in project {project.name}")


def resource_permitted(
    project: AppProject, key: ResourceKey, *, namespaced: bool, destination: ApplicationDestination
) -> Permission:
    """Whether the project allows the object `key` (of a `namespaced` kind or not) on the
    app's `destination`: its group/kind, then its namespace on that cluster."""
    allowed = group_kind_permitted(project, key.group, key.kind, namespaced=namespaced)
    if not allowed.allowed or not namespaced or not key.namespace:
        return allowed
    return namespace_permitted(
        project, key.namespace, server=destination.server, name=destination.name
    )
