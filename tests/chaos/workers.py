"""Sluice's workers as processes the chaos suite can kill: `sluice worker <name>`.

`WorkerFleet.start(name, replica)` runs one replica with its own environment and state
directory, appending to `<log_dir>/<name>-<replica>.log` (a restart adds to the log of the
replica it replaces), and returns once it logged `serve.running`. `kill` is SIGKILL;
`close` stops every process (SIGTERM, then SIGKILL) and reaps it. At most `STARTING`
processes start at once: a Python process importing Sluice takes a core for seconds, and
a dozen at once on a loaded 2-core machine starve each other.
"""

import asyncio
import contextlib
import signal
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.processes import REPO, SLUICE, STOP_DEADLINE, read_log
from tests.support.waiting import eventually

STARTING = 3
START_DEADLINE = 300.0
"""Seconds one replica may take to log `serve.running` (load 20 seen on the shared box)."""


@dataclass
class Running:
    name: str
    replica: int
    process: asyncio.subprocess.Process
    log: Path
    started_lines: int
    """`serve.running` records in the log before this start (a restart appends)."""

    def running(self) -> bool:
        found = sum(1 for r in read_log(self.log) if r.get("event") == "serve.running")
        return found > self.started_lines


class WorkerFleet:
    def __init__(self, env: Mapping[str, str], log_dir: Path) -> None:
        self.env = dict(env)
        self.log_dir = log_dir
        self.extra_env: dict[tuple[str, int], dict[str, str]] = {}
        """Environment added for one replica (its NATS proxy), kept across restarts."""
        self.current: dict[tuple[str, int], Running] = {}
        self._starting = asyncio.Semaphore(STARTING)

    async def start(self, name: str, replica: int) -> Running:
        async with self._starting:
            return await self._start(name, replica)

    async def _start(self, name: str, replica: int) -> Running:
        log = self.log_dir / f"{name}-{replica}.log"
        before = sum(1 for r in read_log(log) if r.get("event") == "serve.running")
        env = (
            self.env
            | {"SLUICE_STATE_DIR": str(self.log_dir / f"state-{name}-{replica}")}
            | self.extra_env.get((name, replica), {})
        )
        with log.open("ab") as sink:
            process = await asyncio.create_subprocess_exec(
                str(SLUICE),
                "worker",
                name,
                cwd=REPO,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=sink,
                stderr=sink,
            )
        started = Running(name, replica, process, log, before)
        self.current[(name, replica)] = started

        async def up() -> bool:
            if process.returncode is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise AssertionError(
                    f"worker {name}-{replica} exited {process.returncode}:\n{tail}"
                )
            return started.running()

        await eventually(up, timeout=START_DEADLINE, interval=0.2, what=f"worker {name}-{replica}")
        return started

    async def kill(self, name: str, replica: int) -> None:
        """SIGKILL one replica and reap it."""
        found = self.current.pop((name, replica), None)
        if found is None or found.process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            found.process.kill()
        await found.process.wait()

    async def restart(self, name: str, replica: int) -> None:
        await self.kill(name, replica)
        await self.start(name, replica)

    def exited(self) -> list[str]:
        """Replicas that died without being killed (a crash the trial did not cause)."""
        return [
            f"{r.name}-{r.replica} (exit {r.process.returncode})"
            for r in self.current.values()
            if r.process.returncode is not None
        ]

    async def close(self) -> None:
        running = [r.process for r in self.current.values() if r.process.returncode is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        waits = [asyncio.create_task(p.wait()) for p in running]
        if waits:
            await asyncio.wait(waits, timeout=STOP_DEADLINE)
            for process in running:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
            await asyncio.gather(*waits)
        self.current.clear()
