"""The process runner git and kustomize share: deadline, output cap, the group killed."""

import os
from pathlib import Path

import pytest

from app.repo.process import run_process
from tests.support.waiting import eventually

ENV = {"PATH": os.environ.get("PATH", os.defpath)}


def gone(pid: int) -> bool:
    """The process has exited (no longer listed, or a zombie waiting for its new parent)."""
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


async def test_a_deadline_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child"
    script = f"sleep 30 & echo $! > {pid_file}; wait"

    with pytest.raises(TimeoutError):
        await run_process(["sh", "-c", script], env=ENV, cwd=tmp_path, deadline=1.0, max_output=64)

    child = int(pid_file.read_text())

    async def child_gone() -> bool:
        return gone(child)

    await eventually(child_gone, timeout=5, what="the backgrounded sleep killed with its group")


async def test_output_over_the_cap_stops_the_process_and_says_so(tmp_path: Path) -> None:
    finished = await run_process(["yes"], env=ENV, cwd=tmp_path, deadline=10, max_output=4096)

    assert finished.violation == "its output exceeded 4096 bytes"
    assert finished.stdout == b""


async def test_exit_status_stdout_and_stderr_are_returned(tmp_path: Path) -> None:
    finished = await run_process(
        ["sh", "-c", "echo out; echo err >&2; exit 3"],
        env=ENV,
        cwd=tmp_path,
        deadline=10,
        max_output=64,
    )

    assert (finished.code, finished.stdout, finished.stderr) == (3, b"out\n", b"err\n")
    assert finished.violation is None


async def test_resident_memory_over_the_cap_stops_the_process_group(tmp_path: Path) -> None:
    script = "import time; hog = b'x' * (200 * 1024 * 1024); time.sleep(60)"

    finished = await run_process(
        ["python3", "-c", script],
        env=ENV,
        cwd=tmp_path,
        deadline=60,
        max_output=64,
        max_rss=64 * 1024 * 1024,
    )

    assert finished.violation == "its memory exceeded 64 MiB"
    assert finished.code != 0
