"""The two roles every policy starts with, as Argo CD defines them.

`role:readonly` may get every resource; `role:admin` may do everything `role:readonly`
may, and create, change and delete every resource, sync, override and run actions on
every application. Both are written as globs, so they mean the same in regex mode.
"""

from app.engine.rbac import names as n
from app.engine.rbac.policy import Rule, allow, member

READONLY = "role:readonly"
ADMIN = "role:admin"

_EVERY_APP = "*/*"
_READABLE = (
    (n.APPLICATIONS, _EVERY_APP),
    (n.APPLICATIONSETS, _EVERY_APP),
    (n.CERTIFICATES, "*"),
    (n.CLUSTERS, "*"),
    (n.REPOSITORIES, "*"),
    (n.PROJECTS, "*"),
    (n.ACCOUNTS, "*"),
    (n.GPGKEYS, "*"),
    (n.LOGS, _EVERY_APP),
)
_ADMIN_ACTIONS = (
    (
        n.APPLICATIONS,
        (n.CREATE, n.UPDATE, "update/*", n.DELETE, "delete/*", n.SYNC, n.OVERRIDE, "action/*"),
        _EVERY_APP,
    ),
    (n.APPLICATIONSETS, (n.GET, n.CREATE, n.UPDATE, n.DELETE), _EVERY_APP),
    (n.CERTIFICATES, (n.CREATE, n.UPDATE, n.DELETE), "*"),
    (n.CLUSTERS, (n.CREATE, n.UPDATE, n.DELETE), "*"),
    (n.REPOSITORIES, (n.CREATE, n.UPDATE, n.DELETE), "*"),
    (n.PROJECTS, (n.CREATE, n.UPDATE, n.DELETE), "*"),
    (n.ACCOUNTS, (n.UPDATE,), "*"),
    (n.GPGKEYS, (n.CREATE, n.DELETE), "*"),
    (n.EXEC, (n.CREATE,), _EVERY_APP),
)


def builtin_rules() -> tuple[Rule, ...]:
    readable = [allow(READONLY, resource, n.GET, obj) for resource, obj in _READABLE]
    admin = [
        allow(ADMIN, resource, action, obj)
        for resource, actions, obj in _ADMIN_ACTIONS
        for action in actions
    ]
    return (*readable, *admin, member(ADMIN, READONLY))
