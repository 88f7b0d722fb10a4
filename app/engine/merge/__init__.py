"""Kubernetes merge semantics: patches, kubectl's three-way apply, server-side apply.

This package decides what an object becomes when a patch or an applied configuration
meets it, exactly as the API server and kubectl decide, because three parts of Sluice
must agree with a real cluster to the byte: the local cluster's PATCH handling, the
engine's three-way diff (what `kubectl apply` would change), and ownership-based
normalization (`managedFieldsManagers`).

- JSON patch (RFC 6902) and JSON merge patch (RFC 7386), the latter also three-way as
  kubectl computes it for custom resources.
- Strategic merge patch for built-in kinds: lists merged by key, directives, and the
  three-way patch `kubectl apply` sends. Which field merges how is one table,
  `patch_strategies`, taken from the Kubernetes API types.
- Field ownership: `FieldSet` (managedFields' FieldsV1), server-side apply with
  conflicts, force and pruning of fields a manager stopped applying, and the Update
  entries every other write records. Sets of one object are keyed the way the API
  server keys them (`k:{"name":"web"}`, `v:"x"`), so sets read from a real cluster and
  sets computed here compare equal.

Everything is pure and works on JSON-shaped dicts. Results share unchanged subtrees with
their inputs (that is what makes a compare of 10,000 resources cheap: an unchanged
subtree is the same object, skipped by identity), so callers treat inputs and results as
read-only and copy before mutating. Bad input raises `PatchError` naming the field; the
inputs are never modified.
"""

from app.engine.merge.compare import Comparison, compare
from app.engine.merge.errors import ApplyConflict, Conflict, ManagedFieldsError, PatchError
from app.engine.merge.fieldset import FieldSet, fields_owned_by
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.json_patch import apply_json_patch
from app.engine.merge.merge_patch import (
    apply_merge_patch,
    create_merge_patch,
    create_three_way_merge_patch,
)
from app.engine.merge.patch_strategies import supports_strategic_merge
from app.engine.merge.server_side_apply import server_side_apply
from app.engine.merge.strategic_apply import apply_strategic_patch
from app.engine.merge.strategic_diff import create_three_way_strategic_patch
from app.engine.merge.update_ownership import record_update

__all__ = [
    "ApplyConflict",
    "Comparison",
    "Conflict",
    "FieldSet",
    "GroupVersionKind",
    "ManagedFieldsError",
    "PatchError",
    "apply_json_patch",
    "apply_merge_patch",
    "apply_strategic_patch",
    "compare",
    "create_merge_patch",
    "create_three_way_merge_patch",
    "create_three_way_strategic_patch",
    "fields_owned_by",
    "record_update",
    "server_side_apply",
    "supports_strategic_merge",
]
