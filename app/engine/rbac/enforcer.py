"""The decision: may this caller do this action on this object?

Argo CD's casbin model, evaluated by the `casbin` library:

    r = sub, res, act, obj            p = sub, res, act, obj, eft        g = _, _
    e = some(where (p.eft == allow)) && !some(where (p.eft == deny))
    m = g(r.sub, p.sub) && match(r.res, p.res) && match(r.act, p.act) && match(r.obj, p.obj)

`match` is Argo CD's glob (`*` matches any text, `/` included) or, with
`policy.matchMode: regex`, a regular expression that must match the whole value.

The order of checks is Argo CD's (`rbacpolicy.EnforceClaims`):

1. The default role (`policy.default`): if it allows, the answer is yes; a deny line for
   the caller cannot take that away.
2. A project role's subject asking about an object of its own project: that project's
   role policy decides (with the global lines); about another project's object: no.
3. The caller's subject, then each of its groups, each on its own: any that is allowed
   (with no deny among its own matching lines) makes it yes.

Lines of the request's project roles join the global lines for that request, as Argo
CD's runtime policy does, so a group listed in a role gets the role's grants. Casbin
enforcers are kept per project policy version (the global lines alone for requests that
are about no project) and, within it, per subject, resource and action with only the
lines that subject's roles, that resource and that action can match; a new policy
version builds new ones. The answers are kept too: an `Enforcer` is one version of the
policy, so the same request always gets the same answer from it.
"""

import re
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import casbin
from casbin.model import Model
from casbin.persist.adapter import Adapter

from app.engine.project import glob_match
from app.engine.rbac.builtin import builtin_rules
from app.engine.rbac.names import project_of
from app.engine.rbac.policy import MatchMode, RbacConfig, Rule
from app.engine.rbac.project_roles import ProjectPolicy, parse_role_subject

MODEL = """
[request_definition]
r = sub, res, act, obj

[policy_definition]
p = sub, res, act, obj, eft

[role_definition]
g = _, _

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = g(r.sub, p.sub) && patternMatch(r.res, p.res) && patternMatch(r.act, p.act) \
&& patternMatch(r.obj, p.obj)
"""
MAX_GROUPS = 256
"""Groups of one caller considered (claims are bounded before they get here)."""
CACHED_POLICIES = 2048
"""Enforcers kept (one per project policy version, and per subject, resource and action
within it)."""
CACHED_DECISIONS = 65_536
"""Answers kept, by project policy version, subject and request (a list of 1,000 apps asks
one per app, and asks again at every reload of the list)."""
_NOTHING = object()
"""Stands for an enforcer whose subject no line names: every answer is no."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asks: the RBAC subject and the token's claims (where groups come from)."""

    subject: str
    claims: Mapping[str, Any] = field(default_factory=dict)


def groups(claims: Mapping[str, Any], scopes: Sequence[str]) -> tuple[str, ...]:
    """The values of the claims `scopes` names (a string or a list of strings each)."""
    found: list[str] = []
    for scope in scopes:
        value = claims.get(scope)
        values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        found.extend(v for v in values if isinstance(v, str) and v and v not in found)
    return tuple(found[:MAX_GROUPS])


def _glob(value: str, pattern: str) -> bool:
    return glob_match(pattern, value, negation=False)


@lru_cache(maxsize=4096)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _full_regex(value: str, pattern: str) -> bool:
    return _regex(pattern).fullmatch(value) is not None


class _Rows(Adapter):  # type: ignore[misc]  # casbin ships no type hints
    """Policy lines handed to casbin as it asks for them (a read-only adapter)."""

    def __init__(self, rows: Iterable[tuple[str, ...]]) -> None:
        self._rows = list(rows)

    def load_policy(self, model: Any) -> None:
        for kind, *values in self._rows:
            model.add_policy(kind, kind, list(values))


class Enforcer:
    """One version of the policy in force: built-in, operator and generated lines."""

    def __init__(self, config: RbacConfig, generated: Sequence[Rule] = ()) -> None:
        self.config = config
        self._base = (*builtin_rules(), *config.rules, *generated)
        self._match = _full_regex if config.match_mode is MatchMode.REGEX else _glob
        self._enforcers: OrderedDict[str, Any] = OrderedDict()
        self._decisions: OrderedDict[tuple[str, ...], bool] = OrderedDict()

    def _rows(self, rules: Iterable[Rule]) -> list[tuple[str, ...]]:
        mode = self.config.match_mode
        return [(rule.kind, *rule.patterns(mode)) for rule in rules]

    def _build(self, rows: list[tuple[str, ...]]) -> Any:
        model = Model()
        model.load_model_from_text(MODEL)
        enforcer = casbin.Enforcer(model, _Rows(rows))
        enforcer.add_function("patternMatch", self._match)
        return enforcer

    def _cached(self, key: str, build: Any) -> Any:
        found = self._enforcers.get(key)
        if found is not None:
            self._enforcers.move_to_end(key)
            return found
        made = build()
        self._enforcers[key] = made
        if len(self._enforcers) > CACHED_POLICIES:
            self._enforcers.popitem(last=False)
        return made

    def _rules(self, project: ProjectPolicy | None) -> tuple[Rule, ...]:
        return self._base if project is None else (*self._base, *project.rules)

    def _enforcer(
        self, project_key: str, rules: tuple[Rule, ...], subject: str, resource: str, action: str
    ) -> Any:
        """A casbin enforcer holding every `g` line and the `p` lines of `subject` and the
        roles it holds (the only ones `g(r.sub, p.sub)` can match) whose resource and
        action match `resource` and `action`: the same decision as over every line, at a
        fraction of the matcher evaluations (a list of 1,000 apps asks 1,000 times).
        `_NOTHING` if no line grants or denies this subject that action on it."""
        full = self._cached(project_key, lambda: self._build(self._rows(rules)))
        mode = self.config.match_mode

        def build() -> Any:
            held = {subject, *full.get_implicit_roles_for_user(subject)}
            mine = [
                r
                for r in rules
                if r.kind == "g"
                or (
                    r.values[0] in held
                    and self._match(resource, r.patterns(mode)[1])
                    and self._match(action, r.patterns(mode)[2])
                )
            ]
            if not any(r.kind == "p" for r in mine):
                return _NOTHING
            return self._build(self._rows(mine))

        return self._cached(f"{project_key}\n{subject}\n{resource}\n{action}", build)

    def _enforce(self, project: ProjectPolicy | None, subject: str, *request: str) -> bool:
        project_key = f"{project.project}\n{project.key}" if project is not None else ""
        key = (project_key, subject, *request)
        found = self._decisions.get(key)
        if found is not None:
            self._decisions.move_to_end(key)
            return found
        enforcer = self._enforcer(project_key, self._rules(project), subject, *request[:2])
        decided = enforcer is not _NOTHING and bool(enforcer.enforce(subject, *request))
        self._decisions[key] = decided
        if len(self._decisions) > CACHED_DECISIONS:
            self._decisions.popitem(last=False)
        return decided

    def allows(
        self,
        caller: Caller,
        resource: str,
        action: str,
        obj: str,
        project: ProjectPolicy | None = None,
    ) -> bool:
        """Whether `caller` may do `action` on `resource` `obj`; `project` is the policy of
        the project the object belongs to (`names.project_of`), if it has one."""
        request = (resource, action, obj)
        default = self.config.default_role
        if default and self._enforce(project, default, *request):
            return True
        role = parse_role_subject(caller.subject)
        if role is not None and project is not None:
            return role[0] == project.project and self._enforce(project, caller.subject, *request)
        if self._enforce(project, caller.subject, *request):
            return True
        return any(
            self._enforce(project, group, *request)
            for group in groups(caller.claims, self.config.scopes)
        )

    def project_needed(self, resource: str, obj: str) -> str:
        """The project whose role policy a request about `obj` needs ("" for none)."""
        return project_of(resource, obj)
