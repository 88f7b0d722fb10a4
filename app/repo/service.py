"""`Repositories`: the API the render worker, the poller and the webhook handler call.

One instance per process. It owns the cache directory, the git runner, the single-flight
tables and the in-memory caches, so that however many apps ask at the same moment there
is one ls-remote per repository, one fetch per (repository, commit), one listing and
symlink scan per commit, and one render per (repository, commit, path, directory options).
"""

import asyncio
import contextlib
import hashlib
import tempfile
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

from app import log
from app.metrics import GIT_FETCH_DURATION
from app.metrics.argocd import observe_git_request
from app.model.app_spec import ApplicationSource
from app.repo import lfs_files
from app.repo.access import Access, RepoAccess
from app.repo.cached_repo import CachedRepo
from app.repo.commit_info import CommitInfo, parse_commit
from app.repo.credentials import CredentialStore, RepoCredential
from app.repo.directory import DirectoryOptions, select_manifests
from app.repo.errors import (
    LimitExceeded,
    PathError,
    RenderError,
    RepoError,
    RepoURLError,
    RevisionError,
)
from app.repo.githubapp import GitHubApps
from app.repo.gitprocess import GitRunner
from app.repo.lfs_pointer import LfsLimits
from app.repo.lru import LRU
from app.repo.paths import resolve_path
from app.repo.refs import HEADS, TAGS, RefListing, parse_ls_remote
from app.repo.results import (
    DirectoryRender,
    ManifestFile,
    RepoStats,
    ResolvedRevision,
    decode_manifest,
)
from app.repo.revisions import (
    MAX_REVISION_LENGTH,
    is_full_sha,
    is_short_sha,
    match_revision,
    normalize_revision,
)
from app.repo.settings import RepoSettings
from app.repo.singleflight import SingleFlight
from app.repo.sourcetype import SourceType, source_type
from app.repo.symlinks import check_symlinks
from app.repo.tree import NodeKind, RepoTree
from app.repo.trust import RepoTrust
from app.repo.urls import RepoURL, cache_key, parse_repo_url
from app.repo.worktree import WorkTree, remove_tree

logger = log.get("repo")

ZERO_SHA = "0" * 40
_DEFAULT_PATTERNS = ("HEAD", HEADS + "*", TAGS + "*")
_RenderKey = tuple[str, str, str, DirectoryOptions, bool]


class Repositories:
    """Git repositories: resolve, fetch, list, render and check out, with sharing."""

    def __init__(self, settings: RepoSettings, credentials: Iterable[RepoCredential] = ()) -> None:
        self.settings = settings
        self.stats = RepoStats()
        self._root = settings.cache_dir
        self._work_root = self._root / "work"
        self.access = Access(
            RepoTrust(self._root / "home"), CredentialStore(credentials), GitHubApps()
        )
        """The credential path (credentials, trust, App tokens) every git command goes through."""
        self._runner = GitRunner(settings, self.access, self._root / "home")
        self._trust_lock = asyncio.Lock()
        """Trust updates run one at a time, in the order they were asked for."""
        self._prepared = False
        self._repos: dict[str, CachedRepo] = {}
        self._scratch = CachedRepo("scratch", self._root / "scratch.git", self._runner, settings)
        """An empty repository ls-remote runs in (isolated config, no cache for bad URLs)."""
        self._refs: SingleFlight[tuple[str, tuple[str, ...]], RefListing] = SingleFlight()
        self._fetches: SingleFlight[tuple[str, str], str] = SingleFlight()
        self._trees_loading: SingleFlight[tuple[str, str], RepoTree] = SingleFlight()
        self._renders: SingleFlight[tuple[_RenderKey, str], DirectoryRender] = SingleFlight()
        self._trees: LRU[tuple[str, str], RepoTree] = LRU(settings.tree_cache_entries)
        self._refused: LRU[tuple[str, str], RepoError] = LRU(settings.tree_cache_entries)
        self._rendered: LRU[_RenderKey, DirectoryRender] = LRU(
            settings.render_cache_bytes, lambda r: r.weight
        )
        self._lfs_limits = LfsLimits(settings.max_lfs_object_bytes, settings.max_lfs_bytes)

    def _prepare(self) -> None:
        if not self._prepared:
            for directory in (self._root, self._root / "repos", self._work_root):
                directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._runner.prepare()
            self._prepared = True

    def update_credentials(self, store: CredentialStore) -> None:
        """Put the repository Secrets and templates in `store` in force for the next command."""
        self.access.store = store

    async def update_trust(self, known_hosts: str, tls_certs: dict[str, str]) -> None:
        """Put new ssh host keys and per-server CA bundles in force for the next command."""

        def update() -> None:
            self._prepare()
            self.access.trust.update(known_hosts, tls_certs)

        async with self._trust_lock:
            await asyncio.to_thread(update)

    async def remote(
        self, repo_url: str, *, project: str = "", field: str = "source"
    ) -> RepoAccess:
        """How `repo_url` is reached for an app of `project`: the credential path other
        renderers (Helm, OCI, plugins) use for their own HTTP or git calls."""
        repo = self._parse(repo_url, field)
        return await self.access.for_url(repo, project, who=repo.display)

    async def checking_remote(
        self, repo_url: str, store: CredentialStore, *, project: str = ""
    ) -> RepoAccess:
        """How `repo_url` is reached with the credentials `store` gives it (not the ones in
        force): what a connection check of a repository Secret as written goes through."""
        repo = self._parse(repo_url, "repo")
        return await Access(self.access.trust, store, self.access.apps).for_url(
            repo, project, who=repo.display
        )

    async def validate(
        self, repo_url: str, store: CredentialStore, *, project: str = ""
    ) -> RefListing:
        """ls-remote `repo_url` with the credentials `store` gives it (not the ones in force,
        and nothing shared or cached): whether a repository Secret can be used as written."""
        remote = await self.checking_remote(repo_url, store, project=project)
        repo = remote.repo
        scratch = await self._ready(self._scratch)
        out = await self._runner.run(
            ["ls-remote", "--", repo.remote, *_DEFAULT_PATTERNS],
            git_dir=scratch.path,
            remote=remote,
            max_output=self.settings.max_refs_bytes,
            what=f"git ls-remote of {repo.display}",
        )
        return parse_ls_remote(out.decode("utf-8", "replace"), repo=repo.display)

    def cache_identity(self, repo_url: str, *, project: str = "", field: str = "source") -> str:
        """The name shared caches (refs, renders) file `repo_url` under for an app of
        `project`: the URL itself, or the URL marked with the project when a Secret scoped
        to it gives the credentials, so that project's reads are never served to another.
        CredentialError when a refused Secret claims the repository."""
        scope = self.access.scope(self._parse(repo_url, field), project)
        return f"{repo_url}#project={scope}" if scope else repo_url

    def has_credentials(self, repo_url: str, *, project: str = "", field: str = "source") -> bool:
        """Whether a repository Secret or template gives `repo_url` credentials for
        `project` (no network). CredentialError when a refused Secret claims it."""
        return self.access.store.for_url(self._parse(repo_url, field), project) is not None

    def _parse(self, url: str, field: str) -> RepoURL:
        repo = parse_repo_url(url, field=f"{field}.repoURL")
        if repo.is_local and not self.settings.allow_local:
            raise RepoURLError(
                f"{field}.repoURL: {repo.display} is a local repository, and local repositories "
                "are disabled on this server (RepoSettings.allow_local)"
            )
        return repo

    def _cache_of(self, repo: RepoURL, scope: str) -> CachedRepo:
        """The cache object for a repository as one credential scope sees it (no I/O:
        `_ready` creates it on disk). A project-scoped Secret's reads get their own cache,
        so nothing fetched with them is served to an app of another project."""
        key = cache_key(repo) + (f"#project={scope}" if scope else "")
        cached = self._repos.get(key)
        if cached is None:
            digest = hashlib.sha256(key.encode()).hexdigest()[:32]
            cached = CachedRepo(key, self._root / "repos" / digest, self._runner, self.settings)
            self._repos[key] = cached
        return cached

    async def _ready(self, cached: CachedRepo) -> CachedRepo:
        if not self._prepared:
            await asyncio.to_thread(self._prepare)
        await cached.ensure_created()
        return cached

    async def list_refs(
        self, repo_url: str, *, field: str = "source", project: str = ""
    ) -> RefListing:
        """HEAD, branches and tags (peeled), from one ls-remote shared by concurrent callers."""
        return await self._list(
            await self.remote(repo_url, project=project, field=field), _DEFAULT_PATTERNS
        )

    async def _list(self, remote: RepoAccess, patterns: tuple[str, ...]) -> RefListing:
        repo = remote.repo

        async def ls_remote() -> RefListing:
            scratch = await self._ready(self._scratch)
            self.stats.ls_remote += 1
            started = time.monotonic()
            try:
                with GIT_FETCH_DURATION.labels("ls_remote").time():
                    out = await self._runner.run(
                        ["ls-remote", "--", repo.remote, *patterns],
                        git_dir=scratch.path,
                        remote=remote,
                        max_output=self.settings.max_refs_bytes,
                        what=f"git ls-remote of {repo.display}",
                    )
            finally:
                observe_git_request(repo.display, "ls-remote", time.monotonic() - started)
            return parse_ls_remote(out.decode("utf-8", "replace"), repo=repo.display)

        return await self._refs.run((self._cache_of(repo, remote.scope).key, patterns), ls_remote)

    async def resolve(
        self, repo_url: str, revision: str, *, field: str = "source", project: str = ""
    ) -> ResolvedRevision:
        """The commit `revision` (an Application's targetRevision) names now (see revisions)."""
        remote = await self.remote(repo_url, project=project, field=field)
        repo = remote.repo
        rev = normalize_revision(revision)
        where = f"{field}.targetRevision"
        if len(rev) > MAX_REVISION_LENGTH or any(c in rev for c in "\0\n\r"):
            raise RevisionError(f"{where}: {rev[:40]!r}… is not a usable revision")
        if is_full_sha(rev):
            commit = await self._fetch(remote, rev.lower())
            return ResolvedRevision(rev, commit, "", f"commit {rev.lower()}")
        listing = await self._list(remote, _DEFAULT_PATTERNS)
        if rev.startswith("refs/") and not rev.startswith((HEADS, TAGS)):
            if rev.startswith("-") or any(c in rev for c in " *?[\\"):
                raise RevisionError(f"{where}: {rev!r} is not a valid ref name")
            listing = listing.merged(await self._list(remote, (rev,)))
        match = match_revision(listing, rev)
        if match is not None:
            logger.debug("resolved", repo=repo.display, revision=rev, commit=match.commit)
            return ResolvedRevision(rev, match.commit, match.ref, match.reason)
        if is_short_sha(rev):
            return await self._resolve_short(remote, rev, where)
        if rev == "HEAD":
            raise RevisionError(f"{where}: {repo.display} has no HEAD (is the repository empty?)")
        raise RevisionError(
            f"{where}: {rev!r} is not a branch, a tag, a semver constraint matching a tag, or a "
            f"commit of {repo.display}"
        )

    async def _resolve_short(self, remote: RepoAccess, prefix: str, where: str) -> ResolvedRevision:
        repo = remote.repo
        cached = await self._ready(self._cache_of(repo, remote.scope))
        commits = await cached.commits_with_prefix(prefix)
        if not commits:
            self.stats.history_fetch += 1
            await cached.fetch_history(remote)
            commits = await cached.commits_with_prefix(prefix)
        if len(commits) != 1:
            problem = "matches no commit" if not commits else f"matches {len(commits)} commits"
            raise RevisionError(f"{where}: {prefix!r} {problem} of {repo.display}; use more digits")
        cached.present.add(commits[0])
        return ResolvedRevision(prefix, commits[0], "", f"short commit SHA {prefix}")

    async def fetch(
        self, repo_url: str, commit: str, *, field: str = "source", project: str = ""
    ) -> str:
        """Make `commit` (a full SHA) present in the cache; returns it (tags peeled)."""
        if not is_full_sha(commit):
            raise RevisionError(f"{field}: {commit!r} is not a full commit SHA")
        remote = await self.remote(repo_url, project=project, field=field)
        return await self._fetch(remote, commit.lower())

    async def _fetch(self, remote: RepoAccess, commit: str) -> str:
        repo = remote.repo
        cached = self._cache_of(repo, remote.scope)
        if commit in cached.present:
            return commit

        async def fetch() -> str:
            await self._ready(cached)
            started = time.monotonic()
            with GIT_FETCH_DURATION.labels("fetch").time():
                found, fetched = await cached.fetch(remote, commit)
            if fetched:
                observe_git_request(repo.display, "fetch", time.monotonic() - started)
                self.stats.fetch += 1
                logger.info("fetched", repo=repo.display, commit=found)
            cached.present.add(found)
            return found

        return await self._fetches.run((cached.key, commit), fetch)

    async def _tree(self, cached: CachedRepo, repo: RepoURL, commit: str) -> RepoTree:
        """The commit's listing, symlink-scanned; a refused commit stays refused (immutable)."""
        key = (cached.key, commit)
        tree = self._trees.get(key)
        if tree is not None:
            return tree
        refused = self._refused.get(key)
        if refused is not None:
            raise refused.with_traceback(None)

        async def load() -> RepoTree:
            self.stats.tree_load += 1
            try:
                loaded = await cached.list_tree(commit, display=repo.display)
                check_symlinks(loaded, max_hops=self.settings.max_symlink_hops, repo=repo.display)
            except RepoError as e:
                if not e.transient:
                    self._refused.put(key, e)
                    logger.warning(
                        "commit refused", repo=repo.display, commit=commit, reason=str(e)
                    )
                raise
            self._trees.put(key, loaded)
            return loaded

        return await self._trees_loading.run(key, load)

    async def _app_dir(
        self, source: ApplicationSource, commit: str, field: str, project: str
    ) -> tuple[RepoAccess, CachedRepo, RepoTree, str, str]:
        """The fetched commit's listing and source.path resolved in it (a directory)."""
        remote, commit = await self._fetched(source.repo_url, commit, field, project)
        repo = remote.repo
        cached = self._cache_of(repo, remote.scope)
        tree = await self._tree(cached, repo, commit)
        hops = self.settings.max_symlink_hops
        app_dir = resolve_path(tree, source.path, field=f"{field}.path", max_hops=hops)
        kind = tree.kind(app_dir)
        if kind is not NodeKind.DIR:
            problem = "does not exist" if kind is None else f"is a {kind.value}, not a directory"
            raise PathError(
                f"{field}.path", f"{source.path!r} {problem} in {repo.display} at {commit[:12]}"
            )
        return remote, cached, tree, app_dir, commit

    async def _fetched(
        self, repo_url: str, commit: str, field: str, project: str
    ) -> tuple[RepoAccess, str]:
        if not is_full_sha(commit):
            raise RevisionError(f"{field}: {commit!r} is not a full commit SHA")
        remote = await self.remote(repo_url, project=project, field=field)
        return remote, await self._fetch(remote, commit.lower())

    async def app_listing(
        self, source: ApplicationSource, commit: str, *, field: str = "source", project: str = ""
    ) -> tuple[RepoTree, str]:
        """The commit's listing (symlink-scanned) and source.path resolved in it."""
        _, _, tree, app_dir, _ = await self._app_dir(source, commit, field, project)
        return tree, app_dir

    async def source_type_at(
        self, source: ApplicationSource, commit: str, *, field: str = "source", project: str = ""
    ) -> SourceType:
        """The source's type at `commit`: declared, else discovered from source.path's files."""
        _, _, tree, app_dir, _ = await self._app_dir(source, commit, field, project)
        return source_type(source, tree, app_dir, field=field)

    async def render_directory(
        self, source: ApplicationSource, commit: str, *, field: str = "source", project: str = ""
    ) -> DirectoryRender:
        """The manifest files of a plain-directory source at `commit` (a resolved full SHA).

        `field` names the source in messages (`spec.source`, `spec.sources[1]`); `project`
        is the app's AppProject (which repository Secrets it may use).
        """
        remote, cached, tree, app_dir, commit = await self._app_dir(source, commit, field, project)
        repo = remote.repo
        lfs = remote.creds.enable_lfs
        hops = self.settings.max_symlink_hops
        kind_of_source = source_type(source, tree, app_dir, field=field)
        if kind_of_source is not SourceType.DIRECTORY:
            raise RenderError(
                f"{field}: {source.path or '/'!r} is a {kind_of_source.value} source, not a "
                "plain directory of YAML/JSON"
            )
        options = DirectoryOptions.of(
            source.directory, include_hidden=self.settings.include_hidden_directories
        )
        key: _RenderKey = (cached.key, commit, app_dir, options, lfs)
        hit = self._rendered.get(key)
        if hit is not None:
            self.stats.render_cache_hit += 1
            return hit

        async def render() -> DirectoryRender:
            self.stats.render += 1
            selection = select_manifests(
                tree,
                app_dir,
                options,
                field=field,
                max_bytes=self.settings.max_manifest_bytes,
                max_hops=hops,
            )
            blobs = await cached.read_blobs(
                [f.entry.oid for f in selection.files],
                max_bytes=selection.total_bytes,
            )
            contents = {f.path: blobs[f.entry.oid] for f in selection.files}
            if lfs:
                contents = await lfs_files.contents(
                    cached,
                    remote,
                    contents,
                    self._lfs_limits,
                    where=f"{field}.path",
                    max_bytes=self.settings.max_manifest_bytes,
                )
            files = tuple(
                ManifestFile(f.path, decode_manifest(contents[f.path], path=f.path, field=field))
                for f in selection.files
            )
            result = DirectoryRender(
                repo.display, commit, app_dir, files, selection.skipped, selection.jsonnet
            )
            self._rendered.put(key, result)
            logger.debug(
                "rendered", repo=repo.display, commit=commit, path=app_dir, files=len(files)
            )
            return result

        return await self._renders.run((key, field), render)

    async def changed_files(
        self, repo_url: str, old: str, new: str, *, field: str = "source", project: str = ""
    ) -> frozenset[str] | None:
        """Paths changed between two commits (renames count as both paths).

        None when `old` is empty or all zeros (a new branch: changes unknown, refresh all).
        """
        if not old or old == ZERO_SHA:
            return None
        remote = await self.remote(repo_url, project=project, field=field)
        repo = remote.repo
        for sha in (old, new):
            if not is_full_sha(sha):
                raise RevisionError(f"{repo.display}: {sha!r} is not a full commit SHA")
        old, new = old.lower(), new.lower()
        if old == new:
            return frozenset()
        old_commit = await self._fetch(remote, old)
        new_commit = await self._fetch(remote, new)
        cached = self._cache_of(repo, remote.scope)
        return frozenset(await cached.changed_paths(old_commit, new_commit, display=repo.display))

    @contextlib.asynccontextmanager
    async def checkout(
        self, repo_url: str, commit: str, *, field: str = "source", project: str = ""
    ) -> AsyncIterator[WorkTree]:
        """Check `commit` out into a private work dir for the duration of the block."""
        remote, commit = await self._fetched(repo_url, commit, field, project)
        repo = remote.repo
        cached = self._cache_of(repo, remote.scope)
        tree = await self._tree(cached, repo, commit)
        if tree.total_bytes > self.settings.max_tree_bytes:
            raise LimitExceeded(
                f"{repo.display} at {commit[:12]}: the commit holds {tree.total_bytes} bytes, more "
                f"than max_tree_bytes ({self.settings.max_tree_bytes}); it is not checked out"
            )
        container = Path(
            await asyncio.to_thread(tempfile.mkdtemp, prefix="checkout-", dir=self._work_root)
        )
        try:
            root = container / "tree"
            await asyncio.to_thread(root.mkdir, 0o700)
            self.stats.checkout += 1
            await cached.check_out(commit, root, container / "index", display=repo.display)
            if remote.creds.enable_lfs:
                await lfs_files.smudge_work_tree(
                    cached,
                    remote,
                    tree,
                    root,
                    self._lfs_limits,
                    max_bytes=self.settings.max_tree_bytes,
                )
            yield WorkTree(root, commit, tree, self.settings.max_symlink_hops)
        finally:
            await asyncio.shield(asyncio.to_thread(remove_tree, container))

    async def commit_info(
        self, repo_url: str, commit: str, *, field: str = "source", project: str = ""
    ) -> CommitInfo:
        """Author, date and message of `commit` (a full SHA), fetched into the cache (the
        one `project`'s credentials see) if need be."""
        if not is_full_sha(commit):
            raise RevisionError(f"{field}: {commit!r} is not a full commit SHA")
        remote = await self.remote(repo_url, project=project, field=field)
        found = await self._fetch(remote, commit.lower())
        cached = self._cache_of(remote.repo, remote.scope)
        return parse_commit(await cached.commit_object(found, display=remote.repo.display))
