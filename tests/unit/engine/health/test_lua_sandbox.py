"""The Lua sandbox: Argo CD's health.lua contract, escape attempts, deadline and memory cap."""

import concurrent.futures
import itertools
from collections.abc import Callable

import pytest
import structlog

from app.engine.health.lua_sandbox import MAX_MESSAGE_CHARS, MAX_SCRIPT_BYTES, LuaSandbox
from app.model.errors import SpecError
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

ORIGIN = "resource_customizations/example.com/Widget/health.lua"
WIDGET: KubeObject = {
    "apiVersion": "example.com/v1",
    "kind": "Widget",
    "metadata": {"name": "w", "namespace": "shop", "generation": 3},
    "spec": {"sizes": [4, 5, 6], "enabled": True, "ratio": 0.5, "nothing": None},
    "status": {"conditions": [{"type": "Ready", "status": "True", "message": "ok"}]},
}


def fake_clock(step: float) -> Callable[[], float]:
    """A clock that moves `step` seconds each time it is read: deadlines pass at once."""
    ticks = itertools.count(step=step)
    return lambda: next(ticks)


@pytest.fixture(scope="module")
def sandbox() -> LuaSandbox:
    return LuaSandbox(max_memory=16 * 2**20)


def run(sandbox: LuaSandbox, source: str, obj: KubeObject = WIDGET) -> HealthStatus:
    return sandbox.compile(source, ORIGIN)(obj)


def assert_unknown(result: HealthStatus, *fragments: str) -> None:
    assert result.status is HealthStatusCode.UNKNOWN
    assert result.message.startswith(f"health check {ORIGIN} "), result.message
    for fragment in fragments:
        assert fragment in result.message


@pytest.mark.parametrize("code", list(HealthStatusCode), ids=lambda c: c.value)
def test_every_health_status_passes_through_with_its_message(
    sandbox: LuaSandbox, code: HealthStatusCode
) -> None:
    result = run(sandbox, f'return {{status = "{code.value}", message = "said so"}}')
    assert result == HealthStatus(code, "said so")


def test_argo_cd_style_script_with_global_table_reads_the_object(sandbox: LuaSandbox) -> None:
    script = """
hs = {}
for i, condition in ipairs(obj.status.conditions) do
  if condition.type == "Ready" and condition.status == "True" then
    hs.status = "Healthy"
    hs.message = condition.message
    return hs
  end
end
hs.status = "Progressing"
return hs
"""
    assert run(sandbox, script) == HealthStatus(HealthStatusCode.HEALTHY, "ok")


def test_object_becomes_lua_tables_like_argo_cd(sandbox: LuaSandbox) -> None:
    script = """
local s = obj.spec
return {status = "Healthy", message = table.concat({
  tostring(s.sizes[1]), tostring(#s.sizes), tostring(obj.metadata.generation),
  tostring(s.enabled), tostring(s.ratio), tostring(s.nothing), tostring(s.absent),
}, ",")}
"""
    assert run(sandbox, script).message == "4,3,3,true,0.5,nil,nil"


@pytest.mark.parametrize(
    ("script", "fragments"),
    [
        pytest.param(
            'return {status = "Fine"}',
            ("invalid health status 'Fine'", "expected one of Healthy"),
            id="invalid-status-string",
        ),
        pytest.param("return {}", ("status of type nil",), id="no-status"),
        pytest.param("return {status = 3}", ("status of type number",), id="status-not-a-string"),
        pytest.param("return nil", ("returned nil instead of a table",), id="returns-nil"),
        pytest.param('return "Healthy"', ("returned string",), id="returns-a-string"),
        pytest.param(
            'return {status = "Healthy", message = {}}',
            ("message of type table",),
            id="message-not-a-string",
        ),
    ],
)
def test_invalid_results_are_unknown(
    sandbox: LuaSandbox, script: str, fragments: tuple[str, ...]
) -> None:
    assert_unknown(run(sandbox, script), *fragments)


def test_numeric_message_becomes_text(sandbox: LuaSandbox) -> None:
    assert run(sandbox, 'return {status = "Healthy", message = 42}').message == "42"


def test_runtime_error_names_the_check_and_line(sandbox: LuaSandbox) -> None:
    result = run(sandbox, "local hs = {}\nreturn {status = obj.status.missing.field}")
    assert result == HealthStatus(
        HealthStatusCode.UNKNOWN,
        f"health check {ORIGIN} failed at line 2: attempt to index field 'missing' (a nil value)",
    )


def test_error_value_that_is_not_text_is_described_without_running_it(
    sandbox: LuaSandbox,
) -> None:
    script = "error(setmetatable({}, {__tostring = function() while true do end end}))"
    assert_unknown(run(sandbox, script), "raised an error value of type table")


@pytest.mark.parametrize(
    "script",
    [
        pytest.param('os.execute("touch /tmp/sluice-pwned")', id="os-execute"),
        pytest.param('os.remove("/etc/hosts")', id="os-remove"),
        pytest.param('os.getenv("HOME")', id="os-getenv"),
        pytest.param('io.open("/etc/passwd")', id="io-open"),
        pytest.param('require("os")', id="require"),
        pytest.param('load("return 1")()', id="load"),
        pytest.param('loadstring("return 1")()', id="loadstring"),
        pytest.param('dofile("/etc/passwd")', id="dofile"),
        pytest.param('loadfile("/etc/passwd")', id="loadfile"),
        pytest.param("debug.getinfo(1)", id="debug"),
        pytest.param("package.loadlib('libc.so.6', 'system')", id="package"),
        pytest.param("string.dump(function() end)", id="string-dump"),
        pytest.param('("x").dump(function() end)', id="string-dump-through-the-metatable"),
        pytest.param('getmetatable("").__index.dump(print)', id="string-metatable"),
        pytest.param('collectgarbage("stop")', id="collectgarbage"),
        pytest.param("coroutine.wrap(function() end)()", id="coroutine"),
        pytest.param("python.eval('1')", id="python-bridge"),
    ],
)
def test_escape_attempts_fail_as_unknown(sandbox: LuaSandbox, script: str) -> None:
    result = run(sandbox, f'{script}\nreturn {{status = "Healthy"}}')
    assert_unknown(result, "failed at line 1: attempt to")


def test_safe_os_keeps_argo_cds_time_helpers(sandbox: LuaSandbox) -> None:
    script = 'return {status = "Healthy", message = type(os.time()) .. " " .. os.date("!%Y", 0)}'
    assert run(sandbox, script).message == "number 1970"


def test_gc_metamethods_are_refused(sandbox: LuaSandbox) -> None:
    script = (
        'setmetatable({}, {__gc = function() while true do end end})\nreturn {status="Healthy"}'
    )
    assert_unknown(run(sandbox, script), "__gc metamethods are not allowed")


def test_result_metamethods_never_run(sandbox: LuaSandbox) -> None:
    script = "return setmetatable({}, {__index = function() while true do end end})"
    assert_unknown(run(sandbox, script), "status of type nil")


def test_globals_and_library_changes_do_not_outlive_a_run(sandbox: LuaSandbox) -> None:
    check = sandbox.compile(
        "counter = (counter or 0) + 1\n"
        "local upper = string.upper\n"
        "string.upper = nil\n"
        'return {status = "Healthy", message = upper("run") .. counter}',
        ORIGIN,
    )
    assert check(WIDGET).message == "RUN1"
    assert check(WIDGET).message == "RUN1"


def test_a_script_cannot_change_the_object_seen_by_the_next_run(sandbox: LuaSandbox) -> None:
    check = sandbox.compile(
        'local seen = obj.metadata.name\nobj.metadata.name = "changed"\n'
        'return {status = "Healthy", message = seen}',
        ORIGIN,
    )
    assert check(WIDGET).message == "w"
    assert check(WIDGET).message == "w"
    assert WIDGET["metadata"]["name"] == "w"


@pytest.mark.parametrize(
    "script",
    [
        pytest.param("while true do end", id="infinite-loop"),
        pytest.param(
            "while true do pcall(function() while true do end end) end",
            id="loop-swallowing-its-timeout-with-pcall",
        ),
        pytest.param(
            "while true do xpcall(function() while true do end end, function(e) return e end) end",
            id="loop-swallowing-its-timeout-with-xpcall",
        ),
        pytest.param("local function f() return f() end\nreturn f()", id="endless-tail-call"),
    ],
)
def test_runaway_scripts_time_out_after_one_second(script: str) -> None:
    # Each clock read moves 0.4 s: the default 1 s deadline passes on the third read.
    sandbox = LuaSandbox(clock=fake_clock(0.4))
    assert sandbox.timeout == 1.0
    assert_unknown(run(sandbox, script), "timed out after 1 s")
    assert run(sandbox, 'return {status = "Healthy"}').status is HealthStatusCode.HEALTHY


def test_a_real_deadline_ends_a_loop_on_the_wall_clock() -> None:
    sandbox = LuaSandbox(timeout=0.05)
    assert_unknown(run(sandbox, "while true do end"), "timed out after 0.05 s")


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(
            "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end",
            id="table-of-strings",
        ),
        pytest.param("local s = string.rep('x', 2^30)", id="huge-string"),
        pytest.param("local function f() return 1 + f() end\nreturn f()", id="deep-recursion"),
    ],
)
def test_memory_bombs_end_as_unknown_and_the_sandbox_recovers(script: str) -> None:
    sandbox = LuaSandbox(max_memory=8 * 2**20, timeout=5.0)
    result = run(sandbox, script)
    assert result.status is HealthStatusCode.UNKNOWN
    assert any(
        text in result.message for text in ("out of memory", "too large", "stack overflow")
    ), result.message
    assert run(sandbox, 'return {status = "Healthy"}').status is HealthStatusCode.HEALTHY


def test_a_script_swallowing_its_out_of_memory_errors_still_ends() -> None:
    # On Lua 5.1 the run ends at the deadline, or sooner when the memory error strikes
    # in the sandbox's own deadline hook, where the script's pcall cannot catch it.
    sandbox = LuaSandbox(max_memory=8 * 2**20, timeout=0.2)
    script = "local t = {}\nwhile true do pcall(function() t[#t + 1] = {1, 2, 3, 4, 5} end) end"
    result = run(sandbox, script)
    assert_unknown(result)
    assert "timed out after 0.2 s" in result.message or "ran out of memory" in result.message
    assert run(sandbox, 'return {status = "Healthy"}').status is HealthStatusCode.HEALTHY


def test_a_large_object_does_not_count_against_the_scripts_memory() -> None:
    sandbox = LuaSandbox(max_memory=4 * 2**20)
    large = {**WIDGET, "data": {f"k{i}": "v" * 100 for i in range(50_000)}}
    script = (
        "local n = 0\nfor _ in pairs(obj.data) do n = n + 1 end\n"
        'return {status = "Healthy", message = tostring(n)}'
    )
    assert run(sandbox, script, large) == HealthStatus(HealthStatusCode.HEALTHY, "50000")
    bomb = "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end"
    assert_unknown(run(sandbox, bomb, large), "out of memory")


def test_an_object_beyond_the_object_limit_is_not_run() -> None:
    sandbox = LuaSandbox(max_object=1 * 2**20)
    huge = {**WIDGET, "data": {f"k{i}": "v" * 100 for i in range(50_000)}}
    assert_unknown(
        run(sandbox, 'return {status = "Healthy"}', huge), "was not run", "(limit 1 MiB)"
    )
    assert run(sandbox, 'return {status = "Healthy"}').status is HealthStatusCode.HEALTHY


def test_long_messages_are_clipped(sandbox: LuaSandbox) -> None:
    result = run(sandbox, 'return {status = "Degraded", message = string.rep("x", 100000)}')
    assert result.status is HealthStatusCode.DEGRADED
    assert len(result.message) == MAX_MESSAGE_CHARS
    assert result.message.endswith("…")


def test_invalid_lua_is_refused_at_compile_time_naming_the_script_and_line(
    sandbox: LuaSandbox,
) -> None:
    with pytest.raises(SpecError) as raised:
        sandbox.compile("if obj.status then\nreturn {status = 'Healthy'}\n", ORIGIN)
    assert raised.value.field == ORIGIN
    assert raised.value.problem.startswith("is not valid Lua: line 3:")


def test_binary_chunks_are_refused(sandbox: LuaSandbox) -> None:
    with pytest.raises(SpecError, match="precompiled Lua is not accepted"):
        sandbox.compile("\x1bLua\x54\x00", ORIGIN)


def test_oversized_scripts_are_refused(sandbox: LuaSandbox) -> None:
    with pytest.raises(SpecError, match="the limit is"):
        sandbox.compile("-- " + "x" * MAX_SCRIPT_BYTES, ORIGIN)


def test_a_broken_check_logs_each_distinct_failure_once(sandbox: LuaSandbox) -> None:
    check = sandbox.compile("error('no ' .. obj.metadata.name)", ORIGIN)
    with structlog.testing.capture_logs() as logs:
        for _ in range(3):
            check(WIDGET)
        check({**WIDGET, "metadata": {"name": "other"}})
    assert [entry["problem"] for entry in logs] == [
        f"health check {ORIGIN} failed at line 1: no w",
        f"health check {ORIGIN} failed at line 1: no other",
    ]
    assert {entry["log_level"] for entry in logs} == {"warning"}


def test_runs_from_many_threads_are_serialised(sandbox: LuaSandbox) -> None:
    check = sandbox.compile(
        "local n = 0\nfor i = 1, 200 do n = n + i end\n"
        'return {status = "Healthy", message = obj.metadata.name .. n}',
        ORIGIN,
    )

    def assess_many(name: str) -> set[str]:
        return {check({**WIDGET, "metadata": {"name": name}}).message for _ in range(200)}

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(assess_many, ["a", "b", "c", "d"]))
    assert results == [{"a20100"}, {"b20100"}, {"c20100"}, {"d20100"}]


def test_lua_5_1_functions_argo_cd_scripts_call_work_unchanged(sandbox: LuaSandbox) -> None:
    script = """
hs = {}
local n = table.getn(obj.spec.sizes)
local first, second = unpack(obj.spec.sizes)
if _VERSION == "Lua 5.1" and n == 3 and first + second == 9 then
  hs.status = "Healthy"
  hs.message = string.format("%d sizes, ratio %s", n, tostring(obj.spec.ratio))
end
return hs
"""
    assert run(sandbox, script) == HealthStatus(HealthStatusCode.HEALTHY, "3 sizes, ratio 0.5")
