"""RBAC checks of a 1,000-app list: CPU seconds with the per-subject enforcers vs all lines.

What `GET /api/v1/applications` spends deciding which apps a caller may get: 1,000 apps
in 10 projects (each with a role), a policy of 20 roles and 20 group bindings, a caller
in two groups. `Enforcer.allows` (casbin over the lines the caller's roles can match) is
timed against one casbin enforcer over every line (the baseline: what it would cost
without the per-subject split); the ratio is what to compare between machines.
"""

import argparse
import time

import casbin
from casbin.model import Model

from app.engine.rbac.enforcer import MODEL, Caller, Enforcer, _Rows
from app.engine.rbac.policy import parse_rbac_config
from app.engine.rbac.project_roles import ProjectPolicy, project_policy
from app.model.project import AppProject

APPS = 1000
PROJECTS = 10


def _setup() -> tuple[Enforcer, dict[str, ProjectPolicy]]:
    lines = [f"p, role:team-{i}, applications, *, team-{i}/*, allow" for i in range(20)]
    lines += [f"g, org:team-{i}, role:team-{i}" for i in range(20)]
    config = parse_rbac_config({"policy.csv": "\n".join(lines)}, origin="bench")
    enforcer = Enforcer(config)
    policies = {}
    for p in range(PROJECTS):
        name = f"team-{p}"
        project = AppProject.from_dict(
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "AppProject",
                "metadata": {"name": name},
                "spec": {
                    "roles": [
                        {
                            "name": "ci",
                            "policies": [f"p, proj:{name}:ci, applications, sync, {name}/*, allow"],
                        }
                    ]
                },
            }
        )
        policies[name] = project_policy(project, config.match_mode)
    return enforcer, policies


def _timed(check: object) -> float:
    started = time.process_time()
    allowed = sum(bool(check(i)) for i in range(APPS))  # type: ignore[operator]
    assert allowed == APPS // PROJECTS * 2
    return time.process_time() - started


def main(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="bench rbac_list", description=__doc__).parse_args(argv)
    enforcer, policies = _setup()
    caller = Caller("alice", {"groups": ["org:team-3", "org:team-7"]})

    def split(i: int) -> bool:
        name = f"team-{i % PROJECTS}"
        return enforcer.allows(caller, "applications", "get", f"{name}/app-{i}", policies[name])

    whole = {}
    for name, policy in policies.items():
        model = Model()
        model.load_model_from_text(MODEL)
        rules = (*enforcer._base, *policy.rules)
        one = casbin.Enforcer(model, _Rows([(r.kind, *r.values) for r in rules]))
        one.add_function("patternMatch", enforcer._match)
        whole[name] = one

    def every_line(i: int) -> bool:
        name = f"team-{i % PROJECTS}"
        obj = f"{name}/app-{i}"
        return any(
            whole[name].enforce(s, "applications", "get", obj)
            for s in ("alice", "org:team-3", "org:team-7")
        )

    split(0)
    ours, baseline = _timed(split), _timed(every_line)
    print(
        f"{APPS} list checks: {ours:.3f} CPU s (every line in one enforcer: "
        f"{baseline:.3f} CPU s; ratio {baseline / ours:.1f}x)"
    )
    return 0
