"""Processes a benchmark runs and measures: CPU seconds and peak resident memory.

Each `sluice` child runs in its own session with its output in a log file, and is
stopped with TERM, then KILL. CPU seconds count user and system time of
the process and of the children it has reaped (a worker's `git` runs); peak RSS is the
kernel's high-water mark (`VmHWM` in /proc/PID/status), so no sampling can miss a peak.
"""

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from app.embedded.process import ServerProcess, log_tail

SLUICE = (sys.executable, "-m", "app.cli.main")
"""The `sluice` command, run by the interpreter running the benchmark."""
STOP_TIMEOUT = 15.0
"""Seconds a child has to stop cleanly before it is killed."""


@dataclass(frozen=True, slots=True)
class Usage:
    """What one process (or a group, added up) has used so far."""

    cpu_seconds: float = 0.0
    peak_rss_bytes: int = 0

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            self.cpu_seconds + other.cpu_seconds, self.peak_rss_bytes + other.peak_rss_bytes
        )


def _peak_rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def usage(pid: int) -> Usage:
    """CPU seconds (with reaped children) and peak RSS of process `pid` so far."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.NoSuchProcess:
        return Usage()
    cpu = times.user + times.system + times.children_user + times.children_system
    return Usage(cpu, _peak_rss(pid))


def total(pids: Sequence[int]) -> Usage:
    """Usage of several processes added up (peak RSS: the sum of each one's peak)."""
    result = Usage()
    for pid in pids:
        result += usage(pid)
    return result


class Child(ServerProcess):
    """`sluice ARGS` as a child process in its own session, its output in a log file."""

    def __init__(self, name: str, args: Sequence[str], env: Mapping[str, str], log_dir: Path):
        super().__init__(name, [*SLUICE, *args], log_dir / f"{name}.log", env=env)

    def check_running(self) -> None:
        """RuntimeError with the end of its log if the process has exited."""
        code = self.exit_code
        if code is not None:
            tail = log_tail(self.log_path)
            raise RuntimeError(f"{self.name} exited with code {code}; its log ends with:\n{tail}")

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM, then SIGKILL after `timeout` seconds. Safe to call twice."""
        super().stop(timeout)
