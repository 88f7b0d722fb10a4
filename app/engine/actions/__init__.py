"""Resource actions: what a user may do to one live object of an app, and the objects it
changes (Argo CD's resource actions).

What it decides, and why:
- which actions an object offers (`ActionCatalog.offered`): a Lua `discovery.lua` for its
  kind from configuration (`resource.customizations.actions.<group>_<kind>`, or the
  older `resource.customizations` YAML) or from an operator's directory
  (`<group>/<Kind>/actions/`), else Sluice's built-in actions (restart and scale of
  Deployments, StatefulSets and DaemonSets; pause/resume of Deployments; restart,
  resume and abort of Argo Rollouts). A Lua set replaces the built-ins for its kind,
  unless it says `mergeBuiltinActions: true`; then both are offered, Lua winning on a
  shared name.
- what running one does (`ActionCatalog.run`): the action's new version of the object
  (and, for Lua actions in Argo CD's newer form, objects to create), checked so an
  action cannot turn into a write to another object.

Pure: the caller reads the object, applies what comes back, and checks RBAC and the
project; the clock is passed in.
"""

from app.engine.actions.catalog import ActionCatalog
from app.engine.actions.lua import LuaActions, configured_actions, load_actions_tree
from app.engine.actions.merge_patch import merge_patch
from app.engine.actions.types import (
    ActionError,
    ActionParam,
    ImpactedResource,
    Operation,
    ResourceAction,
)

__all__ = [
    "ActionCatalog",
    "ActionError",
    "ActionParam",
    "ImpactedResource",
    "LuaActions",
    "Operation",
    "ResourceAction",
    "configured_actions",
    "load_actions_tree",
    "merge_patch",
]
