// The event stream, live: what every stage did (the CloudEvents `sluice events` shows),
// filterable by app, type and text. The newest MAX events are kept.

import * as api from "./api.js";
import { h, replace } from "./dom.js";

const MAX = 500;
const kept = [];
let listening = false;

function remember(item) {
  kept.push(item);
  if (kept.length > MAX) kept.splice(0, kept.length - MAX);
}

// Called once signed in, so the page shows every event since then.
export function keepEvents() {
  if (listening) return;
  api.onEvent(remember);
  listening = true;
}

export function eventsPage(main) {
  keepEvents();
  const filter = { app: "", type: "", text: "" };
  let paused = false;
  const body = h("tbody");
  const status = h("p", { class: "summary", role: "status", "aria-live": "polite" });
  const appBox = h("input", { type: "text", id: "e-app", placeholder: "namespace/name" });
  const types = ["out-of-sync", "synced", "sync-unknown", "health-changed", "operation-started", "operation-succeeded", "operation-failed", "hook-phase-changed", "auto-sync-skipped"];
  const typeBox = h("select", { id: "e-type" }, h("option", { value: "" }, "all"), types.map((t) => h("option", { value: t }, t)));
  const textBox = h("input", { type: "search", id: "e-text", placeholder: "text in the event" });
  const pause = h("button", { type: "button", "aria-pressed": "false" }, "Pause");
  let frame = 0;
  const render = () => {
    frame = 0;
    if (paused) return;
    const text = filter.text.toLowerCase();
    const shown = kept.filter(
      (e) =>
        (!filter.app || e.event.subject.includes(filter.app)) &&
        (!filter.type || e.type === filter.type) &&
        (!text || JSON.stringify(e.event.data).toLowerCase().includes(text)),
    );
    replace(
      body,
      shown
        .slice(-200)
        .reverse()
        .map((e) => h("tr", {}, h("td", {}, e.event.time), h("td", {}, e.event.subject), h("td", {}, e.type), h("td", {}, e.event.source), h("td", { class: "data" }, e.event.data.message || e.event.data.reason || JSON.stringify(e.event.data)))),
    );
    replace(status, `${shown.length} of ${kept.length} events since you signed in${paused ? " (paused)" : ""}`);
  };
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(render);
  };
  appBox.addEventListener("input", () => ((filter.app = appBox.value.trim()), render()));
  typeBox.addEventListener("change", () => ((filter.type = typeBox.value), render()));
  textBox.addEventListener("input", () => ((filter.text = textBox.value), render()));
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    pause.textContent = paused ? "Resume" : "Pause";
    render();
  });
  replace(
    main,
    h("h1", {}, "Events"),
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "text-field" }, h("label", { for: "e-app" }, "Application"), appBox),
      h("div", { class: "text-field" }, h("label", { for: "e-type" }, "Type"), typeBox),
      h("div", { class: "text-field" }, h("label", { for: "e-text" }, "Text"), textBox),
      pause,
    ),
    status,
    h("table", { class: "events" }, h("thead", {}, h("tr", {}, ["Time", "Application", "Type", "Source", "Details"].map((c) => h("th", { scope: "col" }, c)))), body),
  );
  render();
  const stop = api.onEvent(schedule);
  return { destroy: stop };
}
