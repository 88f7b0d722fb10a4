"""An AppProject's roles (`spec.roles`) as policy, and the tokens issued for them.

Each role `R` of project `P` is the subject `proj:P:R`. Its policy is what Argo CD
builds: `get` on the project itself, the role's own `policies` lines, and a `g` line
putting each of the role's `groups` in the role. Argo CD checks a role's lines when the
project is written through its API; Sluice checks them every time it reads the project,
because a project written with kubectl never went through that API: a line whose
subject is not the role, whose resource a role may not grant, or whose object lies
outside `P/` is dropped and reported (it never widens a role beyond its project).

A token issued for a role is listed in `spec.roles[].jwtTokens` (and, as Argo CD also
keeps it, `status.jwtTokensByRole`) by its `iat`, `exp` and `id` (`jti`); a presented
token whose `jti` (or, without one, `iat`) is not listed is revoked.
"""

from dataclasses import dataclass
from typing import Any

from app.engine.rbac import names as n
from app.engine.rbac.policy import MatchMode, Rule, allow, member, parse_line
from app.model.project import AppProject, JWTToken, ProjectRole

SUBJECT_PREFIX = "proj:"


def role_subject(project: str, role: str) -> str:
    return f"{SUBJECT_PREFIX}{project}:{role}"


def parse_role_subject(subject: str) -> tuple[str, str] | None:
    """(project, role) of a `proj:<project>:<role>` subject, else None."""
    if not subject.startswith(SUBJECT_PREFIX):
        return None
    project, sep, role = subject[len(SUBJECT_PREFIX) :].partition(":")
    if not sep or not project or not role or ":" in role:
        return None
    return project, role


@dataclass(frozen=True, slots=True)
class ProjectPolicy:
    """A project's role policies, ready for the enforcer; `key` identifies the version."""

    project: str
    rules: tuple[Rule, ...]
    problems: tuple[str, ...]
    key: str


def _check(rule: Rule, project: str, subject: str) -> str:
    if rule.kind != "p":
        return "only `p` lines may be given; groups go in the role's `groups`"
    sub, res, _act, obj, _eft = rule.values
    if sub != subject:
        return f"the subject must be {subject!r}"
    if res not in n.ROLE_RESOURCES:
        return f"a project role may not grant {res!r}"
    if not obj.startswith(f"{project}/"):
        return f"the object must start with {project + '/'!r}"
    return ""


def _role_rules(
    project: str, index: int, role: ProjectRole, mode: MatchMode
) -> tuple[list[Rule], list[str]]:
    subject = role_subject(project, role.name)
    rules = [allow(subject, n.PROJECTS, n.GET, project)]
    problems: list[str] = []
    for i, line in enumerate(role.policies):
        where = f"AppProject {project} spec.roles[{index}].policies[{i}]"
        rule, problem = parse_line(line, mode)
        if rule is not None and not problem:
            problem = _check(rule, project, subject)
        if problem:
            problems.append(f"{where}: {problem}; the line is ignored")
        elif rule is not None:
            rules.append(rule)
    rules.extend(member(group, subject) for group in role.groups if group)
    return rules, problems


def project_policy(project: AppProject, mode: MatchMode) -> ProjectPolicy:
    rules: list[Rule] = []
    problems: list[str] = []
    for index, role in enumerate(project.spec.roles):
        if not role.name:
            problems.append(f"AppProject {project.name} spec.roles[{index}]: a role needs a name")
            continue
        found, bad = _role_rules(project.name, index, role, mode)
        rules.extend(found)
        problems.extend(bad)
    key = "\n".join(f"{r.kind}|{'|'.join(r.values)}" for r in rules)
    return ProjectPolicy(project.name, tuple(rules), tuple(problems), key)


def find_role(project: AppProject, name: str) -> ProjectRole | None:
    return next((r for r in project.spec.roles if r.name == name), None)


def _status_tokens(project: AppProject, role: str) -> list[JWTToken]:
    by_role: Any = project.status.get("jwtTokensByRole")
    entry = by_role.get(role) if isinstance(by_role, dict) else None
    items = entry.get("items") if isinstance(entry, dict) else None
    found = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("iat"), int):
            found.append(
                JWTToken(
                    iat=item["iat"], exp=int(item.get("exp") or 0), id=str(item.get("id") or "")
                )
            )
    return found


def issued_token(project: AppProject, role: str, issued_at: int, token_id: str) -> JWTToken | None:
    """The role's record of a token (by `jti`, else by `iat`); None when revoked."""
    found = find_role(project, role)
    if found is None:
        return None
    for tokens in (found.jwt_tokens, _status_tokens(project, role)):
        if token_id:
            match = next((t for t in tokens if t.id == token_id), None)
        else:
            match = next((t for t in tokens if t.iat == issued_at), None)
        if match is not None:
            return match
    return None
