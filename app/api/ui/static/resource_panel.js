// One resource in a dialog: summary and health message, live manifest, desired manifest,
// the diff (unified or side by side), its Kubernetes events, and its resource actions
// where the object offers any (resource_actions.js).

import * as api from "./api.js";
import { h, replace } from "./dom.js";
import { diffBlock } from "./diff_view.js";
import { open } from "./dialogs.js";
import { when } from "./format.js";
import { actionButtons, listActions } from "./resource_actions.js";
import { healthBadge, syncBadge } from "./status.js";

function resourceQuery(app, node) {
  return api.appQuery(app.metadata.namespace, {
    group: node.group,
    version: node.ref.version || "",
    kind: node.kind,
    namespace: node.namespace,
    resourceName: node.name,
  });
}

function pre(text, label) {
  return text ? h("pre", { class: "manifest", tabindex: "0", "aria-label": label }, text) : h("p", { class: "muted" }, "None.");
}

async function eventsSection(app, node) {
  const path = api.appPath(app.metadata.namespace, app.metadata.name, "/resource/events") + resourceQuery(app, node);
  const { items } = await api.get(path);
  if (!items.length) return h("p", { class: "muted" }, "No events.");
  return h(
    "table",
    { class: "events" },
    h("thead", {}, h("tr", {}, ["Type", "Reason", "Message", "Count", "Last seen", "Source"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, items.map((e) => h("tr", {}, h("td", {}, e.type), h("td", {}, e.reason), h("td", {}, e.message), h("td", {}, e.count), h("td", {}, when(e.lastTimestamp)), h("td", {}, e.source)))),
  );
}

// The Actions section: every action the live object offers, a confirm dialog before
// each, and the last result in words; null when the object offers none.
async function actionsSection(app, node, ctx) {
  let actions;
  try {
    actions = await listActions(app, node);
  } catch (e) {
    return h("p", { class: "error", role: "alert" }, `Actions cannot be listed: ${e.message}`);
  }
  if (!actions || !actions.length) return null;
  const result = h("p", { class: "action-result", role: "status", "aria-live": "polite" });
  const shown = (answer) => replace(result, `✔ ${answer.message} at ${new Date().toLocaleTimeString()}.`);
  return h("div", {}, h("div", { class: "actions resource-actions" }, actionButtons(app, node, actions, ctx, shown)), result);
}

// managed: the promise of GET …/managed-resources (shared by the page), or null.
export function openResource(app, node, managed, ctx) {
  const tabs = ["Summary", "Live manifest", "Desired manifest", "Diff", "Events"];
  const panel = h("div", { class: "tab-panel", role: "tabpanel", tabindex: "0" });
  const buttons = tabs.map((t, i) =>
    h("button", { type: "button", role: "tab", id: `rtab-${i}`, "aria-selected": String(i === 0), "data-tab": t }, t),
  );
  const tablist = h("div", { class: "tabs", role: "tablist", "aria-label": "Resource" }, buttons);
  // The resource's entry in the last comparison; null when it has none (an owned object),
  // a rejection (shown in the tab) when the comparison cannot be read now.
  const managedOne = (managed || Promise.resolve(null)).then((m) =>
    m ? m.items.find((r) => r.kind === node.kind && r.name === node.name && (r.group || "") === node.group && (r.namespace || "") === node.namespace) || null : null,
  );
  managedOne.catch(() => {});
  const liveOne = () => api.get(api.appPath(app.metadata.namespace, app.metadata.name, "/resource") + resourceQuery(app, node));

  // What one tab shows, read when it is chosen.
  const content = async (tab) => {
    if (tab === "Summary") {
      const m = await managedOne.catch(() => null);
      const actions = await actionsSection(app, node, ctx);
      return [
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Kind"), h("dd", {}, `${node.group ? `${node.group}/` : ""}${node.kind}`),
          h("dt", {}, "Name"), h("dd", {}, node.name),
          h("dt", {}, "Namespace"), h("dd", {}, node.namespace || "(cluster-scoped)"),
          h("dt", {}, "Health"), h("dd", {}, node.health ? healthBadge(node.health) : "n/a", node.healthMessage ? h("p", { class: "message" }, node.healthMessage) : ""),
          h("dt", {}, "Sync"), h("dd", {}, node.sync ? syncBadge(node.sync) : "not managed directly", m && m.requiresPruning ? " (requires pruning)" : ""),
          node.hook ? [h("dt", {}, "Hook"), h("dd", {}, `${node.hook.hookType} · ${node.hook.hookPhase || ""} · ${node.hook.message || ""}`)] : null,
        ),
        actions ? [h("h3", {}, "Actions"), actions] : null,
      ];
    }
    if (tab === "Live manifest") {
      const m = await managedOne.catch(() => null);
      return pre(m ? m.liveState : (await liveOne()).manifest, "Live manifest");
    }
    if (tab === "Desired manifest") {
      const m = await managedOne;
      return m ? pre(m.targetState, "Desired manifest") : h("p", { class: "muted" }, "Not in Git: this object is owned by another (its desired state is its owner's).");
    }
    if (tab === "Diff") {
      const m = await managedOne;
      return m ? diffBlock(m) : h("p", { class: "muted" }, "Not managed directly: no diff.");
    }
    return eventsSection(app, node);
  };
  // Only the tab chosen last is drawn: a slower read for an earlier choice is dropped.
  let chosen = 0;
  const show = async (index) => {
    const turn = ++chosen;
    buttons.forEach((b, i) => b.setAttribute("aria-selected", String(i === index)));
    panel.setAttribute("aria-labelledby", `rtab-${index}`);
    replace(panel, h("p", { class: "loading" }, "Loading…"));
    let shown;
    try {
      shown = await content(tabs[index]);
    } catch (e) {
      shown = h("p", { class: "error", role: "alert" }, e.message);
    }
    if (turn === chosen) replace(panel, shown);
  };
  buttons.forEach((b, i) => b.addEventListener("click", () => show(i)));
  tablist.addEventListener("keydown", (e) => {
    const at = buttons.indexOf(document.activeElement);
    if (at < 0 || (e.key !== "ArrowRight" && e.key !== "ArrowLeft")) return;
    const next = (at + (e.key === "ArrowRight" ? 1 : buttons.length - 1)) % buttons.length;
    buttons[next].focus();
    show(next);
  });
  open({ title: `${node.kind} ${node.name}`, body: h("div", {}, tablist, panel), submit: "Close", wide: true });
  show(0);
}
