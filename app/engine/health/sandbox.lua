-- The trusted half of the Lua health-check sandbox (see lua_sandbox.py).
--
-- Lua 5.1, as Argo CD's scripts are written for (gopher-lua): `table.getn`, `unpack`,
-- `string.gfind`-era idioms and `setfenv` environments all behave as they do there.
-- Runs once per Lua runtime, before any health.lua is compiled, with the real globals.
-- It captures what it needs in locals that no script can reach (scripts get neither
-- `debug` nor the real `_G`), and returns three functions to Python: compile, run and
-- the hook remover.
--
-- A script sees only: the base functions below, copies of `string` (without `dump`),
-- `table` and `math`, `os.time` and `os.date` (Argo CD's "safe os"), and the global
-- `obj` (and `actionParams` for a resource action). Every run gets a fresh environment, so nothing a script does survives it.
-- Limits: an instruction-count hook ends the run at the deadline, and `pcall`/`xpcall`
-- re-raise once it has passed, so a script cannot swallow its own timeout; `__gc`
-- metamethods are refused because finalizers run with hooks disabled, outside any
-- deadline. Memory is capped by the runtime itself (lupa's max_memory).

local clock, hook_every = ...

local debug_sethook = debug.sethook
local loadstring, setfenv, pcall, xpcall, error, type, next, rawget, setmetatable, tostring =
  loadstring, setfenv, pcall, xpcall, error, type, next, rawget, setmetatable, tostring
local string_lib, table_lib, math_lib = string, table, math
local os_time, os_date = os.time, os.date

-- Any string reaches the real string library through its metatable ("x"):dump(),
-- getmetatable(""). Remove dump and hide the metatable.
string.dump = nil
getmetatable("").__metatable = false

local TIMED_OUT = "timed out"
local CHUNK = "script"
local expired = false
local deadline = 0

local function on_count()
  if clock() > deadline then
    expired = true
    error(TIMED_OUT, 0)
  end
end

local function unless_expired(...)
  if expired then
    error(TIMED_OUT, 0)
  end
  return ...
end

local function guarded_pcall(f, ...)
  return unless_expired(pcall(f, ...))
end

local function guarded_xpcall(f, handler, ...)
  return unless_expired(xpcall(f, handler, ...))
end

local function guarded_setmetatable(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not allowed in health checks", 2)
  end
  return setmetatable(t, mt)
end

local function ignore_output() end

local function copy(t)
  local c = {}
  for k, v in next, t do
    c[k] = v
  end
  return c
end

local BASE = {
  assert = assert,
  error = error,
  getmetatable = getmetatable,
  ipairs = ipairs,
  next = next,
  pairs = pairs,
  pcall = guarded_pcall,
  print = ignore_output, -- scripts written for Argo CD may print while debugging
  rawequal = rawequal,
  rawget = rawget,
  rawset = rawset,
  select = select,
  setmetatable = guarded_setmetatable,
  tonumber = tonumber,
  tostring = tostring,
  type = type,
  unpack = unpack,
  xpcall = guarded_xpcall,
  _VERSION = _VERSION,
}

local function new_env(obj, params)
  local env = copy(BASE)
  env.string = copy(string_lib)
  env.table = copy(table_lib)
  env.math = copy(math_lib)
  env.os = { time = os_time, date = os_date }
  env._G = env
  env.obj = obj
  env.actionParams = params
  return env
end

local function compile(source)
  -- loadstring also takes precompiled bytecode, which can break out of any sandbox.
  if source:byte(1) == 27 then
    return nil, "precompiled Lua is not accepted; give the script as text"
  end
  -- One short chunk name: Lua cuts longer ones (LUA_IDSIZE), and Python names the script.
  local chunk, problem = loadstring(source, "=" .. CHUNK)
  if chunk ~= nil then
    setfenv(chunk, {})
  end
  return chunk, problem
end

local function failure(result)
  if type(result) == "string" then
    return "error", result
  end
  return "error", "raised an error value of type " .. type(result)
end

-- The script's answer, read with raw accesses only, so none of its metamethods runs.
local function answer(ok, result)
  if not ok then
    return failure(result)
  end
  if type(result) ~= "table" then
    return "invalid", "returned " .. type(result) .. " instead of a table {status = ..., message = ...}"
  end
  local status, message = rawget(result, "status"), rawget(result, "message")
  if type(status) ~= "string" then
    return "invalid", "returned a status of type " .. type(status) .. " instead of a string"
  end
  if type(message) == "number" then
    message = tostring(message)
  elseif message ~= nil and type(message) ~= "string" then
    return "invalid", "returned a message of type " .. type(message) .. " instead of a string"
  end
  return "ok", status, message or ""
end

-- A copy of a returned value made of plain tables, strings, numbers and booleans (raw
-- accesses, no metatables), for Python to read without running any script code.
local function plain(value, depth)
  local kind = type(value)
  if kind == "string" or kind == "number" or kind == "boolean" or kind == "nil" then
    return value
  end
  if kind ~= "table" then
    error("returned a value of type " .. kind .. ", which has no JSON form", 0)
  end
  if depth > 64 then
    error("returned tables nested deeper than 64 levels", 0)
  end
  local c = {}
  for k, v in next, value do
    if type(k) ~= "string" and type(k) ~= "number" then
      error("returned a table key of type " .. type(k), 0)
    end
    c[k] = plain(v, depth + 1)
  end
  return c
end

local function timed(chunk, obj, seconds, params, finish)
  setfenv(chunk, new_env(obj, params))
  expired = false
  deadline = clock() + seconds
  debug_sethook(on_count, "", hook_every)
  local outcome, first, second = finish(pcall(chunk))
  debug_sethook()
  if expired then
    return "timeout"
  end
  return outcome, first, second
end

local function as_value(ok, result)
  if not ok then
    return failure(result)
  end
  local copied, problem = pcall(plain, result, 0)
  if not copied then
    return "invalid", problem
  end
  return "ok", problem
end

-- A health check: ("ok", status, message) or a failure.
local function run(chunk, obj, seconds)
  return timed(chunk, obj, seconds, nil, answer)
end

-- A resource action or discovery script: ("ok", plain value) or a failure.
local function evaluate(chunk, obj, seconds, params)
  return timed(chunk, obj, seconds, params, as_value)
end

return compile, run, evaluate, debug_sethook
