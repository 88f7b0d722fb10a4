"""Extracting a chart archive (`.tgz`) with every bound checked while it is read.

A chart archive comes from a server the Application names, so it is untrusted: entries
are read one by one from the gzip stream and written only when they are regular files or
directories with a relative path that stays inside the destination (no `..`, no absolute
path, no symlink, hard link or device); the decompressed bytes and the entry count are
counted as they go, so a gzip bomb stops at `max_bytes`, not after filling the disk.
"""

import gzip
import io
import posixpath
import tarfile
import zlib
from pathlib import Path

from app.repo.errors import LimitExceeded, RenderError


class _Counting(io.RawIOBase):
    """A reader that refuses to give more than `limit` decompressed bytes."""

    def __init__(self, inner: gzip.GzipFile, limit: int, what: str) -> None:
        self._inner = inner
        self._left = limit
        self._limit = limit
        self._what = what

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._inner.read(len(buffer))
        self._left -= len(data)
        if self._left < 0:
            raise LimitExceeded(
                f"{self._what}: the chart archive unpacks to more than {self._limit} bytes "
                "(HelmSettings.max_chart_bytes); it is not used"
            )
        buffer[: len(data)] = data
        return len(data)


def _safe_name(name: str, what: str) -> str:
    cleaned = posixpath.normpath(name)
    if name.startswith("/") or cleaned == ".." or cleaned.startswith("../") or "\0" in name:
        raise RenderError(
            f"{what}: the chart archive holds {name[:200]!r}, which leaves its directory"
        )
    return cleaned


def extract_chart(
    data: bytes, destination: Path, *, max_bytes: int, max_entries: int, what: str
) -> None:
    """Unpack `data` (a gzip'd tar) into `destination` (an empty directory)."""
    if len(data) > max_bytes:
        raise LimitExceeded(f"{what}: the chart archive is larger than {max_bytes} bytes")
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as unzipped:
            stream = io.BufferedReader(_Counting(unzipped, max_bytes, what))
            with tarfile.open(fileobj=stream, mode="r|") as tar:
                count = 0
                for member in tar:
                    count += 1
                    if count > max_entries:
                        raise LimitExceeded(
                            f"{what}: the chart archive holds more than {max_entries} entries "
                            "(HelmSettings.max_chart_entries)"
                        )
                    name = _safe_name(member.name, what)
                    target = destination / name
                    if member.isdir():
                        target.mkdir(parents=True, exist_ok=True)
                        continue
                    if not member.isfile():
                        raise RenderError(
                            f"{what}: the chart archive holds {member.name[:200]!r}, which is a "
                            "link or a special file; charts may hold only files and directories"
                        )
                    source = tar.extractfile(member)
                    if source is None:
                        continue
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with source, open(target, "xb") as out:
                        while chunk := source.read(1 << 16):
                            out.write(chunk)
    except (tarfile.TarError, gzip.BadGzipFile, EOFError, OSError, zlib.error) as e:
        raise RenderError(f"{what}: the chart archive is not a valid .tgz ({e})"[:500]) from None


def chart_root(destination: Path, what: str) -> Path:
    """The one top-level directory holding Chart.yaml, as Helm packages charts."""
    tops = [p for p in destination.iterdir() if p.is_dir()]
    for top in tops:
        if (top / "Chart.yaml").is_file():
            return top
    raise RenderError(f"{what}: the chart archive has no <name>/Chart.yaml")
