// The REST API and the event stream, same origin, authenticated by the session cookie.
//
// Every state-changing call is JSON (the server refuses anything else); errors come back
// as the server's Status message, which names what to do.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let onUnauthorized = () => {};
export function whenUnauthorized(callback) {
  onUnauthorized = callback;
}

async function call(method, path, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, `the Sluice API cannot be reached (${e.message}); is the server running?`);
  }
  const text = await response.text();
  let doc = null;
  if (text) {
    try {
      doc = JSON.parse(text);
    } catch {
      doc = null;
    }
  }
  if (!response.ok) {
    const message = (doc && doc.message) || `${method} ${path}: HTTP ${response.status}`;
    if (response.status === 401 && !path.startsWith("/api/v1/session")) onUnauthorized(message);
    throw new ApiError(response.status, message);
  }
  return doc;
}

export const get = (path) => call("GET", path);
export const post = (path, body = {}) => call("POST", path, body);
export const put = (path, body) => call("PUT", path, body);
export const del = (path) => call("DELETE", path);

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

export function appPath(namespace, name, suffix = "") {
  return `/api/v1/applications/${encodeURIComponent(name)}${suffix}`;
}

export function appQuery(namespace, extra = {}) {
  return query({ appNamespace: namespace, ...extra });
}

export const session = {
  who: () => get("/api/v1/session"),
  signIn: (token) => post("/api/v1/session", { token }),
  signOut: () => call("DELETE", "/api/v1/session"),
};

// One EventSource for the whole page; listeners get every CloudEvent with its type.
// EventSource reconnects by itself and sends Last-Event-ID, so nothing is missed.
const TYPES = [
  "out-of-sync",
  "synced",
  "sync-unknown",
  "health-changed",
  "operation-started",
  "operation-succeeded",
  "operation-failed",
  "hook-phase-changed",
  "auto-sync-skipped",
];
const listeners = new Set();
const stateListeners = new Set();
let source = null;
export let streamState = "closed";

function setState(state) {
  streamState = state;
  for (const listener of stateListeners) listener(state);
}

export function openStream() {
  if (source) return;
  source = new EventSource("/api/v1/stream");
  source.onopen = () => setState("open");
  source.onerror = () => setState(source && source.readyState === 0 ? "reconnecting" : "closed");
  for (const type of TYPES) {
    source.addEventListener(type, (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      const item = { seq: Number(message.lastEventId), type, event };
      for (const listener of listeners) listener(item);
    });
  }
}

export function closeStream() {
  if (source) source.close();
  source = null;
  setState("closed");
}

export function onEvent(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function onStreamState(listener) {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}
