"""The source-spec hash: the part of the manifest cache key that is not (repo, commit).

Everything in `spec.source` that changes what a render produces goes in (repo URL by its
cache key, path as it resolves lexically, targetRevision with Argo CD's HEAD default,
directory options, and the Helm/Kustomize/plugin blocks and unknown fields for the
renderers to come); `name` does not (it labels the source in multi-source apps). Two
Applications with equal hashes at the same commit get the same manifests. The version
prefix lets a change to rendering invalidate every cached entry at once.

A render that sees the build environment (`${ARGOCD_APP_NAME}`… in Jsonnet variables, or
a declared plugin, which gets them all) depends on the app too: `uses_build_env` says so,
and the caller passes the app's instance name as `app_context`, so two apps never share
it. Every reader of the cache keys through `app.runtime.render_keys.source_key`.
"""

import hashlib
import json
import posixpath

from app.model import codec
from app.model.app_spec import ApplicationSource
from app.repo.revisions import normalize_revision
from app.repo.urls import cache_key

HASH_VERSION = "sluice-source-v1"


def normalize_source_path(path: str) -> str:
    """`apps/x`, `./apps/x/`, `/apps/x` → `apps/x`; the root is `.`."""
    cleaned = posixpath.normpath("/" + path.strip()).lstrip("/")
    return cleaned or "."


def uses_build_env(source: ApplicationSource) -> bool:
    """Whether the source's render may differ between apps (see the module docstring).

    Decided from the Application alone, so the render worker, the compare stage and the
    API compute the same key in any process, whatever plugins a host has."""
    if source.plugin is not None:
        return True
    return source.directory is not None and "$" in json.dumps(source.directory.jsonnet)


def source_hash(source: ApplicationSource, *, app_context: str = "") -> str:
    """Hex SHA-256 of the normalized source (and `app_context` when given); RepoURLError if
    repoURL does not parse."""
    data = codec.encode(source)
    data.pop("name", None)
    data["repoURL"] = cache_key(source.repo_url)
    data["path"] = normalize_source_path(source.path)
    data["targetRevision"] = normalize_revision(source.target_revision)
    if app_context:
        data["app"] = app_context
    blob = json.dumps([HASH_VERSION, data], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()
