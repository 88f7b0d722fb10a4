// Sync and health status as icon + colour + text: never colour alone.

import { h } from "./dom.js";

const SYNC = {
  Synced: { icon: "✔", cls: "ok" },
  OutOfSync: { icon: "↻", cls: "warn" },
  Unknown: { icon: "?", cls: "muted" },
};
const HEALTH = {
  Healthy: { icon: "♥", cls: "ok" },
  Progressing: { icon: "◔", cls: "info" },
  Degraded: { icon: "✖", cls: "bad" },
  Suspended: { icon: "⏸", cls: "muted" },
  Missing: { icon: "⚠", cls: "warn" },
  Unknown: { icon: "?", cls: "muted" },
};
const PHASE = {
  Succeeded: { icon: "✔", cls: "ok" },
  Running: { icon: "◔", cls: "info" },
  Terminating: { icon: "◔", cls: "warn" },
  Failed: { icon: "✖", cls: "bad" },
  Error: { icon: "✖", cls: "bad" },
  Pending: { icon: "…", cls: "muted" },
};

export const SYNC_CODES = ["Synced", "OutOfSync", "Unknown"];
export const HEALTH_CODES = ["Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"];

function badge(table, kind, value, title) {
  const code = value || "Unknown";
  const info = table[code] || { icon: "•", cls: "muted" };
  return h(
    "span",
    { class: `badge ${info.cls}`, "data-status": code, "data-kind": kind, title: title || `${kind}: ${code}` },
    h("span", { class: "icon", "aria-hidden": "true" }, info.icon),
    h("span", { class: "label" }, code),
  );
}

export const syncBadge = (code, title) => badge(SYNC, "sync", code, title);
export const healthBadge = (code, title) => badge(HEALTH, "health", code, title);
export const phaseBadge = (code, title) => badge(PHASE, "operation", code, title);
