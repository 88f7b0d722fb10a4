"""Diff: whether applying the target would change the live object, and what it would change.

Argo CD does not compare the target with the live object field by field: the cluster adds
defaults, status and bookkeeping no manifest mentions. It asks instead what the live
object would become if the target were applied, and compares that with the live object
(SEMANTICS §4.6-4.7):

- three-way (default): orig = the live object's last-applied configuration, else the
  target itself (two-way); predicted live = live + the strategic patch orig -> target
  (JSON merge patch for custom resources), computed by `app.engine.merge` exactly as
  `kubectl apply` computes what it sends; Modified iff predicted live != live. Fields
  only the cluster sets never show.
- server-side (ServerSideApply / ServerSideDiff): predicted live = a server-side apply of
  the target by field manager `sluice` onto the live object (fields the target sets take
  its values; fields Sluice applied before and no longer does are removed), or, when the
  caller ran a server dry-run apply, that result.
- live missing -> Modified; target missing -> not Modified (the resource requires
  pruning instead, decided by the compare engine).

Inputs are normalized objects (`app.engine.normalize`); the result keeps normalized live
and predicted live so that `render` can show a unified YAML diff with Secrets masked.
"""

from app.engine.diff.render import render_diff
from app.engine.diff.resource import DiffMode, DiffResult, diff_resource

__all__ = ["DiffMode", "DiffResult", "diff_resource", "render_diff"]
