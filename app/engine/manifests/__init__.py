"""Manifests: turning rendered text into Kubernetes objects, safely.

This package decides which bytes become objects Sluice will compare and apply, and
refuses everything else with an error a user can act on (file, document index, line,
field). Rendered output is untrusted input: it comes from Git repositories, Helm charts
and plugins. So every limit is enforced before the expensive step it guards (size before
parsing, document count while streaming, alias expansion and nesting depth before
constructing Python objects), and a YAML bomb fails in milliseconds with bounded memory.

Accepted: multi-document YAML (1.1, as Kubernetes reads it) and JSON; `kind: List` (and
any `*List` kind with `items`) flattened into its items; empty documents skipped.
Rejected: duplicate mapping keys, documents that are not mappings, documents without
apiVersion, kind or metadata.name (metadata.generateName is accepted for hooks only).
"""

from app.engine.manifests.limits import ManifestLimits
from app.engine.manifests.loading import load_manifests, parse_manifests

__all__ = ["ManifestLimits", "load_manifests", "parse_manifests"]
