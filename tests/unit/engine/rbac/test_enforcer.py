"""The RBAC decision on its own: Argo CD's model over policy lines, no server."""

import pytest

from app.engine.rbac.enforcer import Caller, Enforcer
from app.engine.rbac.policy import RbacConfigError, parse_rbac_config
from app.engine.rbac.project_roles import project_policy
from app.model.project import AppProject

POLICY = """
p, alice, applications, sync, team-a/*, allow
p, alice, applications, get, team-a/*, allow
p, alice, applications, get, team-a/secret, deny
g, bob, role:team-a
p, role:team-a, applications, *, team-a/*, allow
p, org:ops, clusters, get, *, allow
"""


def enforcer(**data: str) -> Enforcer:
    return Enforcer(parse_rbac_config({"policy.csv": POLICY, **data}, origin="test"))


@pytest.mark.parametrize(
    ("subject", "claims", "asked", "allowed"),
    [
        ("alice", {}, ("applications", "sync", "team-a/web"), True),
        ("alice", {}, ("applications", "sync", "team-b/web"), False),
        ("alice", {}, ("applications", "get", "team-a/secret"), False),
        ("alice", {}, ("applications", "delete", "team-a/web"), False),
        ("bob", {}, ("applications", "delete", "team-a/web"), True),
        ("bob", {}, ("applications", "delete", "team-b/web"), False),
        ("carol", {"groups": ["org:ops"]}, ("clusters", "get", "https://k8s"), True),
        ("carol", {"groups": "org:ops"}, ("clusters", "get", "https://k8s"), True),
        ("carol", {"email": "org:ops"}, ("clusters", "get", "https://k8s"), False),
        ("admin-ish", {}, ("applications", "get", "x/y"), False),
    ],
)
def test_policy_table(
    subject: str, claims: dict[str, object], asked: tuple[str, str, str], allowed: bool
) -> None:
    assert enforcer().allows(Caller(subject, claims), *asked) is allowed


def test_builtin_admin_and_readonly() -> None:
    e = Enforcer(
        parse_rbac_config(
            {"policy.csv": "g, root, role:admin\ng, viewer, role:readonly"}, origin="t"
        )
    )
    assert e.allows(Caller("root"), "applications", "delete/apps/Deployment/ns/web", "p/app")
    assert e.allows(Caller("viewer"), "applications", "get", "p/app")
    assert not e.allows(Caller("viewer"), "applications", "sync", "p/app")


def test_default_role_cannot_be_denied() -> None:
    e = enforcer(**{"policy.default": "role:readonly"})
    assert e.allows(Caller("alice"), "applications", "get", "team-a/secret")
    assert e.allows(Caller("nobody"), "projects", "get", "anything")
    assert not e.allows(Caller("nobody"), "projects", "delete", "anything")


def test_regex_mode_matches_whole_values_and_keeps_builtin_globs() -> None:
    e = Enforcer(
        parse_rbac_config(
            {
                "policy.matchMode": "regex",
                "policy.csv": "p, dev, applications, (get|sync), team-[ab]/.*, allow\n"
                "g, root, role:admin",
            },
            origin="t",
        )
    )
    assert e.allows(Caller("dev"), "applications", "sync", "team-b/web")
    assert not e.allows(Caller("dev"), "applications", "sync", "xteam-a/web")
    assert not e.allows(Caller("dev"), "applications", "delete", "team-a/web")
    assert e.allows(Caller("root"), "applications", "delete", "team-c/web")


def test_scopes_choose_the_group_claims() -> None:
    e = enforcer(scopes="[email]")
    assert e.allows(Caller("carol", {"email": "org:ops"}), "clusters", "get", "https://k8s")
    assert not e.allows(Caller("carol", {"groups": ["org:ops"]}), "clusters", "get", "https://k8s")


def test_bad_lines_refuse_the_map_naming_each() -> None:
    with pytest.raises(RbacConfigError) as e:
        parse_rbac_config(
            {
                "policy.csv": "p, a, applications, get\nx, y\n",
                "policy.extra.csv": "p, a, applications, get, p/*, maybe",
                "policy.matchMode": "fuzzy",
            },
            origin="ConfigMap sluice/argocd-rbac-cm",
        )
    text = str(e.value)
    assert "policy.csv line 1" in text and "policy.csv line 2" in text
    assert "policy.extra.csv line 1" in text and "policy.matchMode" in text


def test_invalid_regex_is_refused_in_regex_mode() -> None:
    with pytest.raises(RbacConfigError, match="not a regular expression"):
        parse_rbac_config(
            {"policy.matchMode": "regex", "policy.csv": "p, a, b, c, *, allow"}, origin="t"
        )


def _project(*policies: str, groups: tuple[str, ...] = ()) -> AppProject:
    return AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "team-a"},
            "spec": {"roles": [{"name": "ci", "policies": list(policies), "groups": list(groups)}]},
        }
    )


def test_project_role_is_confined_to_its_project() -> None:
    project = _project(
        "p, proj:team-a:ci, applications, sync, team-a/*, allow",
        "p, proj:team-a:ci, applications, delete, team-b/*, allow",
        "p, proj:team-a:ci, projects, update, team-a, allow",
        "p, someone-else, applications, get, team-a/*, allow",
        groups=("org:deployers",),
    )
    e = enforcer()
    policy = project_policy(project, e.config.match_mode)
    assert len(policy.problems) == 3
    ci = Caller("proj:team-a:ci")
    assert e.allows(ci, "applications", "sync", "team-a/web", policy)
    assert e.allows(ci, "projects", "get", "team-a", policy)
    assert not e.allows(ci, "applications", "get", "team-a/web", policy)
    assert not e.allows(ci, "projects", "update", "team-a", policy)
    other = project_policy(
        _project().__class__.from_dict(
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "AppProject",
                "metadata": {"name": "team-b"},
                "spec": {},
            }
        ),
        e.config.match_mode,
    )
    assert not e.allows(ci, "applications", "delete", "team-b/web", other)
    deployer = Caller("dave", {"groups": ["org:deployers"]})
    assert e.allows(deployer, "applications", "sync", "team-a/web", policy)


def test_lines_are_chosen_per_resource_and_action_with_wildcards_and_denies_kept_to_theirs() -> (
    None
):
    e = Enforcer(
        parse_rbac_config(
            {
                "policy.csv": "p, ops, *, get, *, allow\n"
                "p, ops, clusters, get, https://secret*, deny\n"
                "p, ops, app*, sync, team-a/*, allow\n"
                "p, ops, applications, *, team-c/*, allow\n"
                "p, ops, applications, delete*, team-c/prod, deny\n"
            },
            origin="t",
        )
    )
    ops = Caller("ops")
    for _ in range(2):  # the second round is answered from what the first decided
        assert e.allows(ops, "applications", "get", "team-b/web")
        assert e.allows(ops, "clusters", "get", "https://k8s")
        assert not e.allows(ops, "clusters", "get", "https://secret.example")
        assert e.allows(ops, "repositories", "get", "https://secret.example")
        assert e.allows(ops, "applications", "sync", "team-a/web")
        assert not e.allows(ops, "applicationsets", "sync", "team-b/web")
        assert not e.allows(ops, "clusters", "sync", "team-a/web")
        assert e.allows(ops, "applications", "delete", "team-c/dev")
        assert e.allows(ops, "applications", "update", "team-c/prod")
        assert not e.allows(ops, "applications", "delete", "team-c/prod")
        assert not e.allows(ops, "applications", "delete/apps/Deployment/ns/web", "team-c/prod")
