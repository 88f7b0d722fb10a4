"""The per-resource diff: three-way or server-side (see the package docstring)."""

import enum
from dataclasses import dataclass

from app.engine.merge import (
    GroupVersionKind,
    apply_strategic_patch,
    create_three_way_strategic_patch,
    server_side_apply,
)
from app.model.resource import KubeObject

FIELD_MANAGER = "sluice"
_EPOCH = "1970-01-01T00:00:00Z"


class DiffMode(enum.Enum):
    """How a resource is compared."""

    THREE_WAY = "three-way"
    """Client-side apply semantics against the last-applied configuration (default)."""
    SERVER_SIDE = "server-side"
    """Server-side apply semantics: field ownership by the `sluice` manager."""


@dataclass(frozen=True, slots=True)
class DiffResult:
    """Whether the resource differs, with the two objects a human diff is drawn from."""

    modified: bool
    normalized_live: KubeObject | None
    predicted_live: KubeObject | None


def three_way(orig: KubeObject | None, target: KubeObject, live: KubeObject) -> DiffResult:
    """Predicted live = live + patch(orig -> target); Modified iff it differs from live."""
    gvk = GroupVersionKind.of(target)
    patch = create_three_way_strategic_patch(
        orig if orig is not None else target, target, live, gvk
    )
    if not patch:
        return DiffResult(False, live, live)
    predicted = apply_strategic_patch(live, patch, gvk)
    return DiffResult(predicted != live, live, predicted)


def server_side(target: KubeObject, raw_live: KubeObject) -> KubeObject:
    """The live object after `sluice` server-side applies `target` (forcing conflicts)."""
    return server_side_apply(
        raw_live,
        target,
        manager=FIELD_MANAGER,
        force=True,
        gvk=GroupVersionKind.of(target),
        now=_EPOCH,
    )


def diff_resource(
    target: KubeObject | None,
    live: KubeObject | None,
    *,
    orig: KubeObject | None = None,
    predicted_live: KubeObject | None = None,
) -> DiffResult:
    """Diff one normalized resource.

    Three-way by default, with `orig` the normalized last-applied configuration (None:
    two-way). For server-side mode pass `predicted_live`: the normalized result of
    `server_side(...)` or of a server dry-run apply.
    """
    if target is None:
        return DiffResult(False, live, None)
    if live is None:
        return DiffResult(True, None, target)
    if predicted_live is not None:
        return DiffResult(predicted_live != live, live, predicted_live)
    return three_way(orig, target, live)
