"""Repository settings: where caches live, deadlines, size limits and what is allowed."""

from dataclasses import dataclass, field
from pathlib import Path

from app.repo.helm_settings import HelmSettings

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class RepoSettings:
    """How the repository layer fetches, caches and renders. Defaults suit production."""

    cache_dir: Path
    """Directory for bare repository caches and per-render work dirs (created 0700)."""

    allow_local: bool = False
    """Accept local paths and `file://` URLs. Off by default, so an Application cannot read
    the render host's disk; `sluice up` turns it on for its example repository."""

    network_timeout: float = 60.0
    """Deadline in seconds for one ls-remote or fetch; the process is killed after it."""

    local_timeout: float = 30.0
    """Deadline in seconds for one local git command (ls-tree, cat-file, checkout, diff)."""

    shallow: bool = True
    """Fetch only the wanted commit (depth 1) rather than its history. History is fetched
    only when a short SHA has to be resolved."""

    git_parallelism: int = 8
    """Most git processes run at once by this process (renders of many apps queue)."""

    max_fetch_bytes: int = 1024 * MiB
    """Largest pack one fetch may download; a bigger fetch is killed and reported."""

    max_refs_bytes: int = 32 * MiB
    """Largest ls-remote answer accepted (repositories with huge numbers of refs)."""

    max_tree_entries: int = 200_000
    """Most files, links and submodules one commit may contain (guards against tree bombs)."""

    max_tree_bytes: int = 2048 * MiB
    """Largest total file size of one commit that may be checked out into a work dir."""

    tool_timeout: float = 90.0
    """Deadline in seconds for one render tool run (`kustomize build`); it is killed after
    it (Argo CD's `ARGOCD_EXEC_TIMEOUT`, default 90 s)."""

    max_render_memory: int = 512 * MiB
    """Most resident memory one render child (Jsonnet evaluator, plugin command, with its
    children) may use; past it the process group is killed and the render fails. Half of
    the render Deployment's 1 GiB limit, so a runaway child is stopped before the
    container (and every render in it) is OOM-killed."""

    plugins_dir: Path | None = None
    """Directory of Config Management Plugins, one subdirectory per plugin holding its
    `plugin.yaml` (Argo CD's sidecar layout, plugins/registry.py); None: no plugins."""

    max_manifest_bytes: int = 10 * MiB
    """Combined size of the manifest files of one directory source, checked before any is
    read (Argo CD's `reposerver.max.combined.directory.manifests.size`, default 10M)."""

    max_lfs_object_bytes: int = 100 * MiB
    """Largest Git LFS object fetched for a repository with `enableLfs` (its pointer's
    size is checked first, and a download growing past it is stopped)."""

    max_lfs_bytes: int = 512 * MiB
    """Most Git LFS content one render or checkout may fetch in all."""

    max_symlink_hops: int = 16
    """Most symlinks followed while resolving one path; a longer chain is an error."""

    include_hidden_directories: bool = False
    """Render manifests inside directories whose name starts with `.` (Argo CD's
    `reposerver.include.hidden.directories`)."""

    ssh_known_hosts: str = ""
    """Host keys in `known_hosts` format; ssh refuses hosts not listed here unless a
    credential says `insecure_ignore_host_key`."""

    tree_cache_entries: int = 64
    """How many commits' file listings (already checked for symlinks) stay in memory."""

    render_cache_bytes: int = 256 * MiB
    """Memory for rendered directory sources, shared by every app with the same
    (repository, commit, path, directory options)."""

    helm: HelmSettings = field(default_factory=HelmSettings)
    """Helm sources: render memory, archive and index caps, remote value files."""
