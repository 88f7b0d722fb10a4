"""One bare repository in the cache: the commits fetched so far and reads from them.

Layout: `<cache>/repos/<hash of cache key>` is a bare repository created atomically (init in
a temp dir, then rename), so processes sharing the cache never see half of one. Fetches
take the in-process lock and a file lock, re-check that the commit is still missing, then
fetch exactly that commit (depth 1 when shallow) into a staging repository that borrows the
cache's objects (so the server is only asked for what is new). Only when git succeeded and
the download stayed under `max_fetch_bytes` are the staging packs and shallow boundary
moved into the cache and the commit recorded as `refs/sluice/<sha>` (which keeps it
referenced and gives later fetches something to negotiate from): a failed or oversized
fetch leaves the cache as it was. A download growing past the limit is killed while it
streams. A server that refuses fetching by SHA gets a fetch of every branch and tag
instead (directly into the cache; also what short SHAs need). Reads (trees, blobs, diffs,
checkouts) need no lock: objects are immutable.
"""

import asyncio
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from app import log
from app.repo.access import RepoAccess
from app.repo.blobs import BlobReader
from app.repo.errors import GitError, LimitExceeded, RevisionError
from app.repo.filelock import file_lock
from app.repo.gitprocess import GitRunner
from app.repo.lfs_store import LfsStore
from app.repo.settings import RepoSettings
from app.repo.tree import RepoTree, parse_ls_tree

logger = log.get("repo.cache")

MAX_LINK_TARGET = 4096
_TREE_BYTES_PER_ENTRY = 512
_REFUSED_MARKERS = (
    "not our ref",
    "unadvertised object",
    "couldn't find remote ref",
    "no such remote ref",
    "not a valid object",
)
_HISTORY_REFSPECS = ("+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
_FETCH = ("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules")
_PACK_ORDER = (".pack", ".rev", ".bitmap", ".idx")


def _pack_bytes(path: Path) -> int:
    try:
        with os.scandir(path / "objects" / "pack") as entries:
            return sum(e.stat(follow_symlinks=False).st_size for e in entries)
    except FileNotFoundError:
        return 0


def _staging_dir(path: Path) -> Path | None:
    """A fresh temp dir beside `path` to create the repository in; None if it exists."""
    if (path / "HEAD").exists():
        return None
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".init-", dir=path.parent))


def _skeleton(path: Path, staging: Path) -> None:
    """Make `staging` an empty bare repository of `path`'s format: what `git init --bare
    --template=` writes, with `path`'s config (its object format), without starting a git
    process for it (2 ms of each fetch on an idle machine, more under load)."""
    for directory in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
        (staging / directory).mkdir(parents=True)
    (staging / "HEAD").write_text("ref: refs/heads/master\n")
    shutil.copyfile(path / "config", staging / "config")


def _borrow(path: Path, staging: Path) -> None:
    """Let `staging` use `path`'s objects, and tell servers where `path`'s history is cut
    (without its shallow list a server would think an ancestor of a shallow commit is
    already there, and send nothing)."""
    (staging / "objects" / "info" / "alternates").write_text(f"{path / 'objects'}\n")
    shallow = path / "shallow"
    if shallow.exists():
        shutil.copyfile(shallow, staging / "shallow")


def _adopt(staging: Path, path: Path) -> None:
    """Move a staging repository's packs into `path` (index last, so a pack is complete
    before git can see it) and add its shallow boundary to `path`'s."""
    source = staging / "objects" / "pack"
    files = [f for f in source.iterdir() if f.suffix in _PACK_ORDER]
    for file in sorted(files, key=lambda f: (_PACK_ORDER.index(f.suffix), f.name)):
        file.rename(path / "objects" / "pack" / file.name)
    new_shallow = staging / "shallow"
    if new_shallow.exists():
        current = path / "shallow"
        lines = set(current.read_text().split()) if current.exists() else set()
        lines.update(new_shallow.read_text().split())
        temporary = path / "shallow.sluice-tmp"
        temporary.write_text("".join(f"{line}\n" for line in sorted(lines)))
        temporary.replace(current)


def _install(staging: Path, path: Path) -> None:
    """Move the new repository into place, unless another process got there first."""
    try:
        staging.rename(path)
    except OSError:
        if not (path / "HEAD").exists():
            raise


def _record(path: Path, commit: str) -> None:
    """Keep `commit` referenced as `refs/sluice/<commit>`: the loose ref `git update-ref`
    writes (the object name and a newline, put in place by a rename), without a git
    process for it. The caller holds the cache's lock."""
    refs = path / "refs" / "sluice"
    refs.mkdir(parents=True, exist_ok=True)
    temporary = refs / f".{commit}.sluice-tmp"
    temporary.write_text(f"{commit}\n")
    temporary.replace(refs / commit)


class CachedRepo:
    """The bare cache of one repository (by cache key)."""

    def __init__(self, key: str, path: Path, runner: GitRunner, settings: RepoSettings) -> None:
        self.key = key
        self.path = path
        self._runner = runner
        self._settings = settings
        self._lock = asyncio.Lock()
        self._created = False
        self._blobs = BlobReader(runner, path, key)
        self.lfs = LfsStore(runner, path / "lfs", key)
        """Git LFS objects fetched for this cache (repositories with `enableLfs`)."""
        self.present: set[str] = set()
        """Commits known to be complete in this cache (checked once, then trusted)."""

    async def ensure_created(self) -> None:
        if self._created:
            return
        staging = await asyncio.to_thread(_staging_dir, self.path)
        if staging is not None:
            try:
                await self._runner.run(
                    ["init", "--bare", "--quiet", "--template=", str(staging)],
                    what=f"creating the cache of {self.key}",
                )
                await asyncio.to_thread(_install, staging, self.path)
            finally:
                await asyncio.to_thread(shutil.rmtree, staging, True)
        self._created = True

    async def commit_of(self, oid: str) -> str | None:
        """The commit `oid` is or points to (peeling tags), if it is in the cache."""
        out = await self._runner.run(
            ["cat-file", "--batch-check"],
            git_dir=self.path,
            stdin=f"{oid}^{{commit}}\n".encode(),
            what=f"looking up {oid[:12]} in the cache of {self.key}",
        )
        fields = out.decode().split()
        if len(fields) == 3 and fields[1] == "commit":
            return fields[0]
        return None

    async def fetch(self, remote: RepoAccess, commit: str) -> tuple[str, bool]:
        """Make `commit` present; returns the commit (peeled) and whether git fetched."""
        async with self._lock, file_lock(self.path.with_suffix(".lock")):
            found = await self.commit_of(commit)
            if found is not None:
                return found, False
            try:
                await self._fetch_staged(remote, commit)
            except GitError as e:
                if not any(marker in str(e) for marker in _REFUSED_MARKERS):
                    raise
                logger.info(
                    "fetch by SHA refused, fetching branches and tags", repo=remote.repo.display
                )
                await self._fetch_history(remote)
            found = await self.commit_of(commit)
            if found is None:
                raise RevisionError(
                    f"{remote.repo.display}: commit {commit} does not exist in the repository "
                    "(or no branch or tag reaches it)"
                )
            return found, True

    async def _fetch_staged(self, remote: RepoAccess, commit: str) -> None:
        """Fetch one commit into a staging repository borrowing this one's objects, check
        its size, then adopt its packs: a failed or oversized fetch changes nothing here."""
        staging = Path(
            await asyncio.to_thread(tempfile.mkdtemp, prefix=".fetch-", dir=self.path.parent)
        )
        try:
            await asyncio.to_thread(_skeleton, self.path, staging)
            await asyncio.to_thread(_borrow, self.path, staging)
            depth = ["--depth=1"] if self._settings.shallow else []
            await self._fetch(
                remote,
                depth,
                [f"+{commit}:refs/sluice/{commit}"],
                f"git fetch of {commit[:12]}",
                git_dir=staging,
            )
            await asyncio.to_thread(_adopt, staging, self.path)
            await asyncio.to_thread(_record, self.path, commit)
        finally:
            await asyncio.to_thread(shutil.rmtree, staging, True)

    async def fetch_history(self, remote: RepoAccess) -> None:
        """Fetch every branch and tag with full history (needed to resolve short SHAs)."""
        async with self._lock, file_lock(self.path.with_suffix(".lock")):
            await self._fetch_history(remote)

    async def _fetch_history(self, remote: RepoAccess) -> None:
        unshallow = ["--unshallow"] if (self.path / "shallow").exists() else []
        await self._fetch(
            remote, unshallow, _HISTORY_REFSPECS, "git fetch of all branches and tags"
        )

    async def _fetch(
        self,
        remote: RepoAccess,
        options: Sequence[str],
        refspecs: Sequence[str],
        label: str,
        *,
        git_dir: Path | None = None,
    ) -> None:
        target = git_dir or self.path
        baseline = _pack_bytes(target)
        limit = self._settings.max_fetch_bytes

        def watch() -> str | None:
            grown = _pack_bytes(target) - baseline
            if grown <= limit:
                return None
            return f"it downloaded more than {limit} bytes (max_fetch_bytes)"

        await self._runner.run(
            [*_FETCH, *options, "--", remote.repo.remote, *refspecs],
            git_dir=target,
            remote=remote,
            what=f"{label} from {remote.repo.display}",
            watch=watch,
        )
        late = watch()
        if late is not None:
            raise LimitExceeded(f"{label} from {remote.repo.display} was refused: {late}")

    async def commits_with_prefix(self, prefix: str) -> list[str]:
        out = await self._runner.run(
            ["rev-parse", f"--disambiguate={prefix.lower()}"],
            git_dir=self.path,
            what=f"looking up {prefix} in the cache of {self.key}",
        )
        names = out.decode().split()
        if not names:
            return []
        types = await self._runner.run(
            ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
            git_dir=self.path,
            stdin="".join(f"{n}\n" for n in names).encode(),
            what=f"looking up {prefix} in the cache of {self.key}",
        )
        return [line.split()[0] for line in types.decode().splitlines() if line.endswith(" commit")]

    async def list_tree(self, commit: str, *, display: str) -> RepoTree:
        """The commit's listing with symlink targets read (not yet scanned)."""
        entries = self._settings.max_tree_entries
        try:
            out = await self._runner.run(
                ["ls-tree", "-r", "-z", "--long", "--full-tree", commit],
                git_dir=self.path,
                max_output=entries * _TREE_BYTES_PER_ENTRY,
                what=f"listing {display} at {commit[:12]}",
            )
        except LimitExceeded:
            raise LimitExceeded(
                f"{display} at {commit[:12]}: the commit lists more than {entries} files "
                "(max_tree_entries); Sluice will not read it"
            ) from None
        tree = parse_ls_tree(out, commit=commit, max_entries=entries, repo=display)
        links = tree.symlinks
        for path, entry in links.items():
            if entry.size > MAX_LINK_TARGET:
                raise GitError(
                    f"{display} at {commit[:12]}: symlink {path!r} has an overlong target"
                )
        blobs = await self.read_blobs(
            [e.oid for e in links.values()], max_bytes=MAX_LINK_TARGET * len(links)
        )
        tree.links = {
            path: blobs[entry.oid].decode("utf-8", "surrogateescape")
            for path, entry in links.items()
        }
        return tree

    async def read_blobs(self, oids: Sequence[str], *, max_bytes: int) -> dict[str, bytes]:
        """The contents of the given blobs, at most `max_bytes` in all (batched, see blobs)."""
        return await self._blobs.read(oids, max_bytes=max_bytes)

    async def changed_paths(self, old: str, new: str, *, display: str) -> list[str]:
        out = await self._runner.run(
            [
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                old,
                new,
            ],
            git_dir=self.path,
            what=f"comparing {old[:12]}..{new[:12]} of {display}",
        )
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    async def check_out(self, commit: str, work_tree: Path, index: Path, *, display: str) -> None:
        await self._runner.run(
            ["--work-tree", str(work_tree), "read-tree", "--reset", "-u", commit],
            git_dir=self.path,
            extra_env={"GIT_INDEX_FILE": str(index)},
            what=f"checking out {display} at {commit[:12]}",
        )

    async def commit_object(self, commit: str, *, display: str) -> bytes:
        """The raw commit object (headers, blank line, message), at most 64 KiB of it."""
        return await self._runner.run(
            ["cat-file", "commit", commit],
            git_dir=self.path,
            max_output=64 * 1024,
            what=f"reading commit {commit[:12]} of {display}",
        )
