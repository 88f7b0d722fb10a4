"""The process runner git and kustomize share: deadline, output cap, the group killed."""

import asyncio
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


FLOOD = """
import fcntl, os, sys, time
fcntl.fcntl(1, fcntl.F_SETPIPE_SZ, 1 << 20)
chunk = b"x" * (1 << 20)
while True:
    os.write(1, chunk)
    if sys.argv[1] == "once":
        time.sleep(60)
"""
"""A child whose pipe holds 1 MiB, so the parent's reader has far more buffered than
asyncio's stream limit when it stops reading (its transport then pauses)."""


async def test_a_stopped_flood_of_output_is_drained_so_the_process_can_be_waited_for(
    tmp_path: Path,
) -> None:
    finished = await run_process(
        ["python3", "-c", FLOOD, "once"], env=ENV, cwd=tmp_path, deadline=30, max_output=4096
    )

    assert finished.violation == "its output exceeded 4096 bytes"
    assert finished.code != 0


async def test_a_deadline_during_a_flood_of_output_still_returns(tmp_path: Path) -> None:
    running = asyncio.ensure_future(
        run_process(
            ["python3", "-c", FLOOD, "forever"],
            env=ENV,
            cwd=tmp_path,
            deadline=1.0,
            max_output=1 << 40,
        )
    )

    done, _ = await asyncio.wait([running], timeout=30)

    assert running in done, "run_process did not return after its deadline"
    with pytest.raises(TimeoutError):
        running.result()
