"""Custom Lua scripts in Argo CD's formats (`health.lua`, `action.lua`, `discovery.lua`),
run in a sandbox on Lua 5.1, the language Argo CD's scripts are written for: `table.getn`,
`unpack`, `setfenv` and numbers as doubles behave as they do under Argo CD.

A health check sees the live object as the global `obj` (objects as tables, arrays as
1-based tables) and returns `{status = "...", message = "..."}`. An action sees `obj` and
`actionParams` and returns a value (`evaluate`), copied out as plain JSON data. What
it can do is fenced in `sandbox.lua`: no os/io/require/load/debug/package, one second of
run time, a memory cap, a fresh environment per run. Whatever goes wrong (a runtime
error, a timeout, an invalid status, a wrong return type) becomes health Unknown with a
message that names the check and the problem; nothing raises to the caller.

Compiling is done once per script (`compile_check` is cached by source and name); all
checks share one Lua runtime, and a lock serialises runs across threads.

Known limit: the deadline is checked between Lua instructions, so it cannot interrupt a
single C call. Lua's pattern matching (string.find/match/gmatch/gsub) is such a call, and a
backtracking pattern (`a*a*a*b`) over a long string can run far past the deadline.

The memory cap holds only while a script runs: lupa builds the object's tables, and
passes strings in and out, outside Lua's protected mode, where running out of memory
aborts the whole process (Lua 5.1 has no emergency collection to fall back on). The
object is bounded on its own (`MAX_OBJECT_BYTES`), and the script gets `max_memory` on
top of what is in use when it starts.
"""

import functools
import threading
import time
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any, NoReturn

from lupa import lua51

from app import log
from app.model.errors import SpecError
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject, metadata

TIMEOUT_SECONDS = 1.0
"""How long one run of a health check may take."""
MAX_MEMORY_BYTES = 64 * 2**20
"""Memory one run may allocate in Lua, beyond the object it is given."""
MAX_OBJECT_BYTES = 64 * 2**20
"""Largest object (as Lua tables) passed to a check; larger ones are Unknown."""
MAX_SCRIPT_BYTES = 256 * 2**10
"""Largest health.lua accepted."""
MAX_MESSAGE_CHARS = 1024
"""Longer messages (from a script, or its error) are cut to this length."""
_HOOK_EVERY = 1000
"""Instructions between deadline checks."""
_MAX_REPORTED = 32
"""Distinct failures logged per check; later ones only show in the health message."""

_CODES = {code.value: code for code in HealthStatusCode}
_EXPECTED = ", ".join(_CODES)

logger = log.get("health.lua")


def _refuse_attribute(_obj: object, name: str, _is_setting: bool) -> NoReturn:
    raise AttributeError(f"Python attribute {name!r} is not reachable from a health check")


def _describe(obj: KubeObject) -> str:
    """`Kind namespace/name` of an object, whatever shape its metadata has."""
    meta = metadata(obj)
    return f"{obj.get('kind')} {meta.get('namespace') or ''}/{meta.get('name') or ''}"


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"


class LuaSandbox:
    """One Lua runtime with the sandbox installed, compiling and running health checks."""

    def __init__(
        self,
        *,
        timeout: float = TIMEOUT_SECONDS,
        max_memory: int = MAX_MEMORY_BYTES,
        max_object: int = MAX_OBJECT_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.timeout = timeout
        self.max_memory = max_memory
        self.max_object = max_object
        self._lock = threading.Lock()
        self._runtime: Any = lua51.LuaRuntime(
            register_eval=False,
            register_builtins=False,
            attribute_filter=_refuse_attribute,
            max_memory=max_memory,
        )
        prelude = resources.files(__package__).joinpath("sandbox.lua").read_text("utf-8")
        self._compile, self._run, self._evaluate, self._clear_hook = self._runtime.execute(
            prelude, clock, _HOOK_EVERY
        )
        self._runtime.globals().python = None

    def compile_chunk(self, source: str, origin: str) -> Any:
        """Compile a script; `origin` names it in every message (a file or config key).

        Raises SpecError for a script that is too large or not valid Lua.
        """
        size = len(source.encode("utf-8"))
        if size > MAX_SCRIPT_BYTES:
            raise SpecError(origin, f"script is {size} bytes; the limit is {MAX_SCRIPT_BYTES}")
        with self._lock:
            chunk, problem = self._compile(source)
        if chunk is None:
            raise SpecError(origin, f"is not valid Lua: {_at_line(str(problem))}")
        return chunk

    def compile(self, source: str, origin: str) -> "LuaHealthCheck":
        """Compile a health.lua (SpecError if it is too large or not valid Lua)."""
        return LuaHealthCheck(self, self.compile_chunk(source, origin), origin)

    def evaluate(
        self, chunk: Any, origin: str, obj: KubeObject, params: Mapping[str, object]
    ) -> object:
        """Run an action or discovery script on `obj`; its return value as JSON data.

        Raises LuaScriptError with a message naming the script for every failure.
        """
        with self._lock:
            outcome = self._evaluate_locked(chunk, origin, obj, params)
        kind = outcome[0] if isinstance(outcome, tuple) else outcome
        if kind == "ok":
            return _to_python(outcome[1])
        if kind == "timeout":
            raise LuaScriptError(f"{origin} timed out after {self.timeout:g} s")
        if kind == "invalid":
            raise LuaScriptError(_clip(f"{origin} {outcome[1]}"))
        raise LuaScriptError(_clip(f"{origin} {_error_text(str(outcome[1]), self._mib)}"))

    def _evaluate_locked(
        self, chunk: Any, origin: str, obj: KubeObject, params: Mapping[str, object]
    ) -> Any:
        runtime = self._runtime
        runtime.set_max_memory(0)
        try:
            table = runtime.table_from(obj, recursive=True)
            arguments = runtime.table_from(dict(params), recursive=True)
        except (RecursionError, TypeError, ValueError) as e:
            raise LuaScriptError(f"{origin}: could not pass the object to Lua: {e}") from None
        finally:
            runtime.set_max_memory(runtime.get_memory_used() + self.max_memory)
        try:
            return self._evaluate(chunk, table, self.timeout, arguments)
        except lua51.LuaMemoryError:
            return ("error", "not enough memory")
        except lua51.LuaError:
            return ("timeout",)
        finally:
            runtime.set_max_memory(0)
            self._clear_hook()

    def run(self, check: "LuaHealthCheck", obj: KubeObject) -> HealthStatus:
        """Run one check on one object; every failure comes back as Unknown."""
        with self._lock:
            outcome = self._run_locked(check, obj)
        if isinstance(outcome, HealthStatus):
            return outcome
        return self._status(check, obj, outcome)

    def _run_locked(self, check: "LuaHealthCheck", obj: KubeObject) -> Any:
        runtime = self._runtime
        before = runtime.get_memory_used()
        runtime.set_max_memory(0)
        try:
            table = runtime.table_from(obj, recursive=True)
        except (RecursionError, TypeError, ValueError) as e:
            return self._failed(check, obj, f"could not pass the object to Lua: {e}")
        finally:
            in_use = runtime.get_memory_used()
            runtime.set_max_memory(in_use + self.max_memory)
        if in_use - before > self.max_object:
            size = (in_use - before) / 2**20
            limit = self.max_object / 2**20
            return self._failed(
                check,
                obj,
                f"was not run: the object takes {size:.1f} MiB as Lua tables (limit {limit:g} MiB)",
            )
        try:
            return self._run(check.chunk, table, self.timeout)
        except lua51.LuaMemoryError:
            return self._failed(check, obj, f"ran out of memory (limit {self._mib} MiB)")
        except lua51.LuaError:
            # Only the deadline hook raises past the trusted runner.
            return ("timeout",)
        finally:
            runtime.set_max_memory(0)
            self._clear_hook()

    @property
    def _mib(self) -> int:
        return self.max_memory // 2**20

    def _status(self, check: "LuaHealthCheck", obj: KubeObject, outcome: Any) -> HealthStatus:
        kind = outcome[0] if isinstance(outcome, tuple) else outcome
        if kind == "ok":
            _, status, message = outcome
            code = _CODES.get(status)
            if code is None:
                return self._failed(
                    check,
                    obj,
                    f"returned an invalid health status {_clip(status)!r} "
                    f"(expected one of {_EXPECTED})",
                )
            return HealthStatus(code, _clip(message))
        if kind == "timeout":
            return self._failed(check, obj, f"timed out after {self.timeout:g} s")
        if kind == "invalid":
            return self._failed(check, obj, outcome[1])
        return self._failed(check, obj, _error_text(str(outcome[1]), self._mib))

    def _failed(self, check: "LuaHealthCheck", obj: KubeObject, problem: str) -> HealthStatus:
        message = _clip(f"health check {check.origin} {problem}")
        check.report(obj, message)
        return HealthStatus(HealthStatusCode.UNKNOWN, message)


class LuaScriptError(Exception):
    """An action or discovery script failed; the text names the script and the problem."""


_CHUNK = "script:"
"""The chunk name every script is compiled under (sandbox.lua), as Lua's messages start."""


def _at_line(error: str) -> str:
    """`script:12: boom` → `line 12: boom`."""
    if error.startswith(_CHUNK):
        line, _, rest = error[len(_CHUNK) :].partition(":")
        if line.isdigit():
            return f"line {line}:{rest}"
    return error


def _error_text(error: str, mib: int) -> str:
    """`script:12: boom` → `failed at line 12: boom`; `not enough memory` → the cap."""
    if error == "not enough memory":
        return f"ran out of memory (limit {mib} MiB)"
    located = _at_line(error)
    return f"failed at {located}" if located != error else f"failed: {error}"


def _to_python(value: object) -> object:
    """A plain Lua value (see `plain` in sandbox.lua) as JSON data: a table whose keys are
    exactly 1..n is a list, any other non-empty table an object, an empty table `{}`."""
    if lua51.lua_type(value) != "table":
        return value
    pairs = list(value.items())  # type: ignore[attr-defined]
    keys = [k for k, _ in pairs]
    if (
        keys
        and all(isinstance(k, int) for k in keys)
        and sorted(keys) == list(range(1, len(keys) + 1))
    ):
        return [_to_python(v) for _, v in sorted(pairs, key=lambda kv: kv[0])]
    return {str(k): _to_python(v) for k, v in pairs}


class LuaHealthCheck:
    """A compiled health.lua; call it with a live object to get its health."""

    __slots__ = ("_reported", "_sandbox", "chunk", "origin")

    def __init__(self, sandbox: LuaSandbox, chunk: Any, origin: str) -> None:
        self._sandbox = sandbox
        self.chunk = chunk
        self.origin = origin
        """Where the script came from: a file path or a configuration key."""
        self._reported: set[str] = set()

    def __call__(self, obj: KubeObject) -> HealthStatus:
        return self._sandbox.run(self, obj)

    def report(self, obj: KubeObject, message: str) -> None:
        """Log a failure once per distinct message (a broken script fails on every object)."""
        if message in self._reported or len(self._reported) >= _MAX_REPORTED:
            return
        self._reported.add(message)
        logger.warning(
            "lua health check failed",
            check=self.origin,
            resource=_describe(obj),
            problem=message,
        )

    def __repr__(self) -> str:
        return f"LuaHealthCheck({self.origin!r})"


@functools.cache
def default_sandbox() -> LuaSandbox:
    """The process-wide sandbox with the default limits."""
    return LuaSandbox()


@functools.lru_cache(maxsize=512)
def compile_check(source: str, origin: str) -> LuaHealthCheck:
    """Compile in the default sandbox, once per (source, origin)."""
    return default_sandbox().compile(source, origin)
