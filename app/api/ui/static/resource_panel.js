// One resource in a dialog: summary and health message, live manifest, desired manifest,
// the diff (unified or side by side), its Kubernetes events, and its resource actions
// where the server has any (the section is left out when the route answers 404).

import * as api from "./api.js";
import { h, replace } from "./dom.js";
import { diffBlock } from "./diff_view.js";
import { open, toast } from "./dialogs.js";
import { when } from "./format.js";
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

async function actionsSection(app, node, ctx) {
  const path = api.appPath(app.metadata.namespace, app.metadata.name, "/resource/actions") + resourceQuery(app, node);
  let found;
  try {
    found = await api.get(path);
  } catch (e) {
    if (e.status === 404) return null;
    throw e;
  }
  const actions = (found && found.actions) || [];
  if (!actions.length) return null;
  return h(
    "div",
    { class: "actions" },
    actions.map((a) =>
      h("button", {
        type: "button",
        disabled: a.disabled || ctx.me.readOnly,
        onclick: async () => {
          try {
            await api.post(path, { action: a.name });
            toast(`Action ${a.name} on ${node.kind}/${node.name} requested`, "ok");
          } catch (e) {
            toast(e.message, "bad");
          }
        },
      }, a.name),
    ),
  );
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

  const show = async (index) => {
    buttons.forEach((b, i) => b.setAttribute("aria-selected", String(i === index)));
    panel.setAttribute("aria-labelledby", `rtab-${index}`);
    replace(panel, h("p", { class: "loading" }, "Loading…"));
    try {
      const tab = tabs[index];
      if (tab === "Summary") {
        const m = await managedOne.catch(() => null);
        const actions = await actionsSection(app, node, ctx).catch(() => null);
        replace(
          panel,
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
        );
      } else if (tab === "Live manifest") {
        const m = await managedOne.catch(() => null);
        replace(panel, pre(m ? m.liveState : (await liveOne()).manifest, "Live manifest"));
      } else if (tab === "Desired manifest") {
        const m = await managedOne;
        replace(panel, m ? pre(m.targetState, "Desired manifest") : h("p", { class: "muted" }, "Not in Git: this object is owned by another (its desired state is its owner's)."));
      } else if (tab === "Diff") {
        const m = await managedOne;
        replace(panel, m ? diffBlock(m) : h("p", { class: "muted" }, "Not managed directly: no diff."));
      } else {
        replace(panel, await eventsSection(app, node));
      }
    } catch (e) {
      replace(panel, h("p", { class: "error", role: "alert" }, e.message));
    }
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
