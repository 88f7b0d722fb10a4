// The applications list: tiles or a table, filters, a search box and counts per status.
//
// A thousand apps stay fast: filtering is one pass over plain objects, only one page of
// tiles or rows is in the DOM, and live changes (store.js) re-render at most once per
// animation frame. The filter panel is built once; live updates only change its counts,
// so keyboard focus stays where it is.

import { h, keepingFocus, link, replace } from "./dom.js";
import { age, appKey, destination, labelsText, shortRev, sources } from "./format.js";
import { HEALTH_CODES, SYNC_CODES, healthBadge, phaseBadge, syncBadge } from "./status.js";
import * as store from "./store.js";

const PAGE = { tiles: 60, table: 100 };
const state = {
  view: "tiles",
  search: "",
  labels: "",
  page: 0,
  sets: { sync: new Set(), health: new Set(), project: new Set(), cluster: new Set(), namespace: new Set() },
};
let firstRender = true;

function facts(app) {
  const status = app.status || {};
  const src = sources(app)[0] || {};
  const dest = destination(app);
  const op = status.operationState || null;
  return {
    key: appKey(app),
    name: app.metadata.name,
    namespace: app.metadata.namespace,
    project: app.spec.project || "default",
    sync: (status.sync || {}).status || "Unknown",
    health: (status.health || {}).status || "Unknown",
    repo: src.repoURL || "",
    path: src.path || src.chart || "",
    target: src.targetRevision || "HEAD",
    synced: shortRev((status.sync || {}).revision || ""),
    cluster: dest.cluster,
    destNamespace: dest.namespace,
    labels: app.metadata.labels || {},
    lastPhase: op ? op.phase : "",
    lastAt: op ? op.finishedAt || op.startedAt : "",
    lastMessage: op ? op.message || "" : "",
  };
}

function labelTest(text) {
  const terms = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => {
      const m = t.match(/^([^!=]+?)\s*(!=|=)\s*(.*)$/);
      return m ? { key: m[1].trim(), op: m[2], value: m[3].trim() } : { key: t, op: "exists" };
    });
  return (labels) =>
    terms.every((t) =>
      t.op === "exists" ? t.key in labels : t.op === "=" ? labels[t.key] === t.value : labels[t.key] !== t.value,
    );
}

function filtered(all) {
  const s = state.search.trim().toLowerCase();
  const labels = labelTest(state.labels);
  const sets = state.sets;
  const pass = (set, value) => !set.size || set.has(value);
  return all.filter(
    (f) =>
      pass(sets.sync, f.sync) &&
      pass(sets.health, f.health) &&
      pass(sets.project, f.project) &&
      pass(sets.cluster, f.cluster) &&
      pass(sets.namespace, f.destNamespace) &&
      labels(f.labels) &&
      (!s || f.name.includes(s) || f.project.includes(s) || f.repo.toLowerCase().includes(s) || f.namespace.includes(s)),
  );
}

function appHref(f) {
  return `#/applications/${encodeURIComponent(f.namespace)}/${encodeURIComponent(f.name)}`;
}

function lastSync(f) {
  if (!f.lastPhase) return h("span", { class: "muted" }, "never synced");
  return h("span", { class: "last" }, phaseBadge(f.lastPhase, f.lastMessage), f.lastAt ? ` ${age(f.lastAt)} ago` : "");
}

function tile(f) {
  return h(
    "li",
    { class: "tile", "data-app": f.key },
    h("h3", {}, h("a", { href: appHref(f), "data-focus": `app:${f.key}` }, f.name)),
    h("div", { class: "badges" }, syncBadge(f.sync), healthBadge(f.health)),
    h(
      "dl",
      {},
      h("dt", {}, "Project"),
      h("dd", {}, f.project),
      h("dt", {}, "Repository"),
      h("dd", {}, link(f.repo)),
      h("dt", {}, "Path"),
      h("dd", {}, f.path),
      h("dt", {}, "Target"),
      h("dd", {}, f.target, f.synced ? h("span", { class: "muted" }, ` (${f.synced})`) : ""),
      h("dt", {}, "Destination"),
      h("dd", {}, `${f.cluster}${f.destNamespace ? ` / ${f.destNamespace}` : ""}`),
      h("dt", {}, "Last sync"),
      h("dd", {}, lastSync(f)),
      labelsText(f.labels).length ? [h("dt", {}, "Labels"), h("dd", {}, labelsText(f.labels).map((l) => h("span", { class: "chip" }, l)))] : null,
    ),
  );
}

function row(f) {
  return h(
    "tr",
    { "data-app": f.key },
    h("th", { scope: "row" }, h("a", { href: appHref(f), "data-focus": `app:${f.key}` }, f.name)),
    h("td", {}, f.project),
    h("td", {}, syncBadge(f.sync)),
    h("td", {}, healthBadge(f.health)),
    h("td", { class: "repo" }, link(f.repo), f.path ? h("span", { class: "muted" }, ` ${f.path}`) : ""),
    h("td", {}, f.target),
    h("td", { class: "mono" }, f.synced),
    h("td", {}, `${f.cluster}${f.destNamespace ? ` / ${f.destNamespace}` : ""}`),
    h("td", {}, lastSync(f)),
  );
}

function table(items) {
  const cols = ["Name", "Project", "Sync", "Health", "Repository", "Target", "Synced", "Destination", "Last sync"];
  return h(
    "table",
    { class: "apps" },
    h("caption", { class: "sr-only" }, "Applications"),
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, items.map(row)),
  );
}

function checkGroup(name, title, values, onChange) {
  const box = h("fieldset", { class: "filter", "data-filter": name }, h("legend", {}, title));
  const counts = new Map();
  for (const value of values) {
    const id = `f-${name}-${value}`.replace(/[^A-Za-z0-9_-]/g, "_");
    const input = h("input", { type: "checkbox", id, checked: state.sets[name].has(value) });
    input.addEventListener("change", () => {
      if (input.checked) state.sets[name].add(value);
      else state.sets[name].delete(value);
      onChange();
    });
    const count = h("span", { class: "count" });
    counts.set(value, count);
    box.append(h("div", { class: "check" }, input, h("label", { for: id }, value), count));
  }
  return { el: box, counts };
}

export function listPage(main, context) {
  const content = h("div", { class: "list-content" });
  const summary = h("p", { class: "summary", role: "status", "aria-live": "polite" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });
  const search = h("input", {
    type: "search",
    id: "search",
    placeholder: "Search name, project, repository",
    value: state.search,
    "aria-label": "Search applications",
  });
  const labelBox = h("input", { type: "text", id: "f-labels", value: state.labels, placeholder: "team=a, tier!=db" });
  const views = ["tiles", "table"].map((v) => {
    const b = h("button", { type: "button", "aria-pressed": String(state.view === v), "data-view": v }, v === "tiles" ? "Tiles" : "Table");
    b.addEventListener("click", () => {
      state.view = v;
      state.page = 0;
      for (const other of main.querySelectorAll("[data-view]")) other.setAttribute("aria-pressed", String(other === b));
      render();
    });
    return b;
  });
  const refilter = () => {
    state.page = 0;
    render();
  };
  search.addEventListener("input", () => {
    state.search = search.value;
    refilter();
  });
  labelBox.addEventListener("input", () => {
    state.labels = labelBox.value;
    refilter();
  });
  const fixed = {
    sync: checkGroup("sync", "Sync status", SYNC_CODES, refilter),
    health: checkGroup("health", "Health status", HEALTH_CODES, refilter),
  };
  const dynamic = { project: null, cluster: null, namespace: null };
  const dynamicKeys = { project: "", cluster: "", namespace: "" };
  const dynamicBox = h("div");
  const titles = { project: "Project", cluster: "Cluster", namespace: "Namespace" };

  const side = h(
    "aside",
    { class: "filters", "aria-label": "Filters" },
    h("h2", {}, "Filters"),
    fixed.sync.el,
    fixed.health.el,
    dynamicBox,
    h("div", { class: "text-field" }, h("label", { for: "f-labels" }, "Labels"), labelBox),
    h("button", {
      type: "button",
      onclick: () => {
        for (const set of Object.values(state.sets)) set.clear();
        state.search = search.value = "";
        state.labels = labelBox.value = "";
        for (const input of side.querySelectorAll("input[type=checkbox]")) input.checked = false;
        refilter();
      },
    }, "Clear filters"),
  );
  replace(
    main,
    h(
      "div",
      { class: "list-page" },
      side,
      h(
        "section",
        { class: "list-main", "aria-labelledby": "apps-title" },
        h("div", { class: "toolbar" }, h("h1", { id: "apps-title" }, "Applications"), search, h("div", { class: "toggle", role: "group", "aria-label": "View" }, views)),
        summary,
        content,
        pager,
      ),
    ),
  );

  function syncDynamic(all) {
    const values = {
      project: new Set(all.map((f) => f.project)),
      cluster: new Set(all.map((f) => f.cluster)),
      namespace: new Set(all.map((f) => f.destNamespace)),
    };
    let changed = false;
    for (const name of Object.keys(dynamic)) {
      const sorted = [...values[name]].sort();
      const key = sorted.join("\n");
      if (key !== dynamicKeys[name]) {
        dynamicKeys[name] = key;
        dynamic[name] = checkGroup(name, titles[name], sorted, refilter);
        changed = true;
      }
    }
    if (changed) replace(dynamicBox, Object.values(dynamic).map((g) => g.el));
  }

  function counts(all, shown) {
    const by = (field) => {
      const m = new Map();
      for (const f of all) m.set(f[field], (m.get(f[field]) || 0) + 1);
      return m;
    };
    const groups = { sync: by("sync"), health: by("health"), project: by("project"), cluster: by("cluster"), namespace: by("destNamespace") };
    for (const [name, group] of Object.entries({ ...fixed, ...dynamic })) {
      if (!group) continue;
      for (const [value, el] of group.counts) el.textContent = String(groups[name].get(value) || 0);
    }
    const sync = groups.sync;
    const health = groups.health;
    replace(
      summary,
      `${shown} of ${all.length} applications`,
      " · ",
      SYNC_CODES.filter((c) => sync.get(c)).map((c) => `${sync.get(c)} ${c}`).join(", "),
      " · ",
      HEALTH_CODES.filter((c) => health.get(c)).map((c) => `${health.get(c)} ${c}`).join(", "),
    );
  }

  function render() {
    keepingFocus(main, paint);
  }

  function paint() {
    if (!store.loaded) {
      replace(content, h("p", { class: "loading", role: "status" }, "Loading applications…"));
      return;
    }
    if (store.loadError) {
      replace(content, h("p", { class: "error", role: "alert" }, store.loadError));
      return;
    }
    const all = [...store.apps.values()].map(facts).sort((a, b) => (a.key < b.key ? -1 : 1));
    syncDynamic(all);
    const items = filtered(all);
    counts(all, items.length);
    const size = PAGE[state.view];
    const pages = Math.max(1, Math.ceil(items.length / size));
    state.page = Math.min(state.page, pages - 1);
    const slice = items.slice(state.page * size, (state.page + 1) * size);
    if (!all.length) {
      replace(content, h("p", { class: "empty" }, "No applications yet. Create one with `kubectl apply -f app.yaml` or `sluice app create -f app.yaml`."));
    } else if (!items.length) {
      replace(content, h("p", { class: "empty" }, "No application matches these filters."));
    } else {
      replace(content, state.view === "tiles" ? h("ul", { class: "tiles" }, slice.map(tile)) : table(slice));
    }
    replace(pager);
    if (pages > 1) {
      const go = (p) => {
        state.page = p;
        render();
      };
      pager.append(
        h("button", { type: "button", "data-focus": "prev", disabled: state.page === 0, onclick: () => go(state.page - 1) }, "‹ Previous"),
        h("span", {}, ` Page ${state.page + 1} of ${pages} `),
        h("button", { type: "button", "data-focus": "next", disabled: state.page >= pages - 1, onclick: () => go(state.page + 1) }, "Next ›"),
      );
    }
    if (firstRender && all.length) {
      firstRender = false;
      performance.mark("sluice:list-rendered");
    }
  }

  render();
  const unsubscribe = store.subscribe(render);
  return { destroy: unsubscribe };
}
