"""Sync options: `spec.syncPolicy.syncOptions` and the `argocd.argoproj.io/sync-options` CSV.

Argo CD matches option strings exactly (`Validate=false`, not `validate=False`), so do we.
An option Sluice does not know, a known key with a value it does not take, or an option
written where it has no effect (CreateNamespace on a resource) is kept, has no effect, and
is reported in `SyncOptions.problems` with where it was found and what to write instead.

Precedence, resolved by `OptionScopes`: a resource says more than the app. The resource's
explicit `ServerSideApply=false` or `Replace=false` overrides the app's `=true`; `Prune`
on the live object overrides the app's default; `Validate=false` or `PruneLast=true` at
either level wins.
"""

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.model.annotations import SYNC_OPTIONS
from app.model.resource import KubeObject, annotations
from app.model.sync import Propagation


class PruneMode(enum.Enum):
    """`Prune=`: delete extra objects (true), never (false), or after approval (confirm)."""

    ENABLED = "true"
    DISABLED = "false"
    CONFIRM = "confirm"


class DeleteMode(enum.Enum):
    """`Delete=`: what cascade deletion of the app does to a resource."""

    ENABLED = "true"
    DISABLED = "false"
    CONFIRM = "confirm"


class Scope(enum.Flag):
    """Where an option has an effect."""

    APP = enum.auto()
    RESOURCE = enum.auto()


_BOOL = ("true", "false")
_KNOWN: dict[str, tuple[tuple[str, ...], Scope]] = {
    "Validate": (_BOOL, Scope.APP | Scope.RESOURCE),
    "CreateNamespace": (_BOOL, Scope.APP),
    "ServerSideApply": (_BOOL, Scope.APP | Scope.RESOURCE),
    "Prune": (("true", "false", "confirm"), Scope.APP | Scope.RESOURCE),
    "PruneLast": (_BOOL, Scope.APP | Scope.RESOURCE),
    "Replace": (_BOOL, Scope.APP | Scope.RESOURCE),
    "Force": (_BOOL, Scope.RESOURCE),
    "ApplyOutOfSyncOnly": (_BOOL, Scope.APP),
    "PrunePropagationPolicy": (("foreground", "background", "orphan"), Scope.APP),
    "FailOnSharedResource": (_BOOL, Scope.APP),
    "RespectIgnoreDifferences": (_BOOL, Scope.APP),
    "Delete": (("true", "false", "confirm"), Scope.APP | Scope.RESOURCE),
    "SkipDryRunOnMissingResource": (_BOOL, Scope.APP | Scope.RESOURCE),
    "ClientSideApplyMigration": (_BOOL, Scope.APP | Scope.RESOURCE),
}
KNOWN_OPTIONS = tuple(_KNOWN)
"""Every option key Sluice acts on, in the order of SEMANTICS §3."""

_FIELD = {
    "Validate": "validate",
    "CreateNamespace": "create_namespace",
    "ServerSideApply": "server_side_apply",
    "Prune": "prune",
    "PruneLast": "prune_last",
    "Replace": "replace",
    "Force": "force",
    "ApplyOutOfSyncOnly": "apply_out_of_sync_only",
    "PrunePropagationPolicy": "prune_propagation_policy",
    "FailOnSharedResource": "fail_on_shared_resource",
    "RespectIgnoreDifferences": "respect_ignore_differences",
    "Delete": "delete",
    "SkipDryRunOnMissingResource": "skip_dry_run_on_missing_resource",
    "ClientSideApplyMigration": "client_side_apply_migration",
}
_ENUMS: dict[str, type[enum.Enum]] = {
    "Prune": PruneMode,
    "Delete": DeleteMode,
    "PrunePropagationPolicy": Propagation,
}


@dataclass(frozen=True, slots=True)
class SyncOptions:
    """The options set at one level; None means "not said here"."""

    validate: bool | None = None
    create_namespace: bool | None = None
    server_side_apply: bool | None = None
    prune: PruneMode | None = None
    prune_last: bool | None = None
    replace: bool | None = None
    force: bool | None = None
    apply_out_of_sync_only: bool | None = None
    prune_propagation_policy: Propagation | None = None
    fail_on_shared_resource: bool | None = None
    respect_ignore_differences: bool | None = None
    delete: DeleteMode | None = None
    skip_dry_run_on_missing_resource: bool | None = None
    client_side_apply_migration: bool | None = None
    unknown: tuple[str, ...] = ()
    """Options kept verbatim that Sluice does not act on."""
    problems: tuple[str, ...] = field(default=())
    """One sentence per ignored option: where it is, what is wrong, what to write."""

    @property
    def propagation(self) -> Propagation:
        """The prune propagation policy; Argo CD's default is foreground."""
        return self.prune_propagation_policy or Propagation.FOREGROUND


def parse_app_options(
    options: Sequence[str], where: str = "spec.syncPolicy.syncOptions"
) -> SyncOptions:
    """Parse an Application's (or an operation's) `syncOptions` list."""
    return _parse([(f"{where}[{i}]", text.strip()) for i, text in enumerate(options)], Scope.APP)


def parse_resource_options(obj: KubeObject | None, where: str = "") -> SyncOptions:
    """Parse the `argocd.argoproj.io/sync-options` CSV annotation of an object (or None)."""
    if obj is None:
        return SyncOptions()
    raw = annotations(obj).get(SYNC_OPTIONS, "")
    if not isinstance(raw, str) or not raw.strip():
        return SyncOptions()
    label = f"{where}: annotation {SYNC_OPTIONS}" if where else f"annotation {SYNC_OPTIONS}"
    return _parse([(label, item) for item in csv_values(raw)], Scope.RESOURCE)


def csv_values(text: str) -> list[str]:
    """Comma-separated values, trimmed, empty ones dropped, first occurrence kept."""
    seen: list[str] = []
    for item in text.split(","):
        value = item.strip()
        if value and value not in seen:
            seen.append(value)
    return seen


def _parse(items: list[tuple[str, str]], scope: Scope) -> SyncOptions:
    values: dict[str, Any] = {}
    unknown: list[str] = []
    problems: list[str] = []
    known = ", ".join(KNOWN_OPTIONS)
    for where, text in items:
        key, sep, value = text.partition("=")
        spec = _KNOWN.get(key)
        if not sep or spec is None:
            unknown.append(text)
            problems.append(
                f"{where}: unknown sync option {text!r} (kept, has no effect); "
                f"known options are {known}, written Key=value"
            )
            continue
        allowed, scopes = spec
        if value not in allowed:
            unknown.append(text)
            problems.append(
                f"{where}: sync option {text!r} has no effect; "
                f"{key} takes {' or '.join(allowed)} (exact spelling)"
            )
            continue
        if not scope & scopes:
            unknown.append(text)
            problems.append(f"{where}: sync option {text!r} has no effect here; {_moved(key)}")
            continue
        enum_type = _ENUMS.get(key)
        values[_FIELD[key]] = enum_type(value) if enum_type else value == "true"
    return SyncOptions(
        **values,
        unknown=tuple(unknown),
        problems=tuple(problems),
    )


def _moved(key: str) -> str:
    if key == "Force":
        return (
            "set Force=true in a resource's argocd.argoproj.io/sync-options annotation, "
            "or sync with the force flag"
        )
    return "set it in the Application's spec.syncPolicy.syncOptions"


@dataclass(frozen=True, slots=True)
class OptionScopes:
    """The options in force for one task: the app's, its target's and its live object's."""

    app: SyncOptions
    target: SyncOptions = SyncOptions()
    live: SyncOptions = SyncOptions()

    @property
    def server_side_apply(self) -> bool:
        """Resource `ServerSideApply=false` wins; else either level's `=true`."""
        if self.target.server_side_apply is False:
            return False
        return bool(self.app.server_side_apply or self.target.server_side_apply)

    @property
    def replace(self) -> bool:
        """Resource `Replace=false` wins; else the app's, the target's or the live's `=true`."""
        if self.target.replace is False:
            return False
        return bool(self.app.replace or self.target.replace or self.live.replace)

    @property
    def force(self) -> bool:
        """`Force=true` on the target or on the live object."""
        return bool(self.target.force or self.live.force)

    @property
    def validate(self) -> bool:
        """`Validate=false` at either level turns schema validation off."""
        return self.app.validate is not False and self.target.validate is not False

    @property
    def skip_dry_run_on_missing_resource(self) -> bool:
        return bool(
            self.app.skip_dry_run_on_missing_resource
            or self.target.skip_dry_run_on_missing_resource
        )

    @property
    def client_side_apply_migration(self) -> bool:
        """On unless the app or the resource says `ClientSideApplyMigration=false`
        (`app.engine.sync.csa_migration`)."""
        return (
            self.app.client_side_apply_migration is not False
            and self.target.client_side_apply_migration is not False
        )

    @property
    def prune(self) -> PruneMode:
        """The live object's `Prune=` overrides the app's; default: prune."""
        return self.live.prune or self.app.prune or PruneMode.ENABLED

    @property
    def prune_last(self) -> bool:
        return bool(self.app.prune_last or self.live.prune_last)
