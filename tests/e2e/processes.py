"""Workers as processes of their own: `sluice worker <name>`, the production shape.

`Processes.start(name, replica)` runs one worker with its settings in the environment
(app/runtime/settings.py) and its JSON log written to `<log_dir>/<name>-<replica>.log`, and
returns once it logged `serve.running`. `close()` stops every process it started
(SIGTERM, then SIGKILL after a deadline) and reaps it, so no test leaves one behind.
`records()` reads every log line back as a dict, for assertions about what the workers
did and when.
"""

import asyncio
import contextlib
import json
import signal
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.waiting import eventually

REPO = Path(__file__).resolve().parents[2]
SLUICE = Path(sys.executable).with_name("sluice")
STOP_DEADLINE = 10.0
"""Seconds a worker gets to stop on SIGTERM before it is killed."""


@dataclass
class Replica:
    name: str
    replica: int
    process: asyncio.subprocess.Process
    log: Path

    def running(self) -> bool:
        return any(r.get("event") == "serve.running" for r in read_log(self.log))


def read_log(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON records of one log file (lines that are not JSON are skipped: a traceback
    printed by the interpreter itself is not a record)."""
    if not path.exists():
        return
    with path.open(encoding="utf-8", errors="replace") as lines:
        for line in lines:
            if line.startswith("{"):
                with contextlib.suppress(json.JSONDecodeError):
                    yield json.loads(line)


class Processes:
    """Worker processes of one test, all stopped and reaped by `close()`."""

    def __init__(self, env: Mapping[str, str], log_dir: Path) -> None:
        self._env = dict(env)
        self.log_dir = log_dir
        self.replicas: list[Replica] = []

    async def start(
        self,
        name: str,
        replica: int,
        *,
        timeout: float = 90.0,
        env: Mapping[str, str] | None = None,
        command: tuple[str, ...] = (),
    ) -> Replica:
        """Start `sluice worker <name>` (or `sluice <command>`), with `env` added to the
        environment, and wait until it runs."""
        log = self.log_dir / f"{name}-{replica}.log"
        env = (
            self._env
            | {"SLUICE_STATE_DIR": str(self.log_dir / f"state-{name}-{replica}")}
            | dict(env or {})
        )
        with log.open("wb") as sink:
            process = await asyncio.create_subprocess_exec(
                str(SLUICE),
                *(command or ("worker", name)),
                cwd=REPO,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=sink,
                stderr=sink,
            )
        started = Replica(name, replica, process, log)
        self.replicas.append(started)

        async def running() -> bool:
            if process.returncode is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise AssertionError(
                    f"worker {name}-{replica} exited {process.returncode}:\n{tail}"
                )
            return started.running()

        await eventually(running, timeout=timeout, interval=0.1, what=f"worker {name}-{replica}")
        return started

    def named(self, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """("<name>-<replica>", record) of every log line of the workers called `name`."""
        for replica in self.replicas:
            if replica.name == name:
                for record in read_log(replica.log):
                    yield f"{replica.name}-{replica.replica}", record

    async def close(self) -> None:
        """SIGTERM every process, SIGKILL what is still running after the deadline, reap all."""
        running = [r.process for r in self.replicas if r.process.returncode is None]
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
