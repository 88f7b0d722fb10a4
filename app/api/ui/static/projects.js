// Projects: the list, and one project's sources, destinations, resource lists and sync
// windows with their state now.

import * as api from "./api.js";
import { h, link, replace } from "./dom.js";
import { when } from "./format.js";
import * as store from "./store.js";

function kinds(list) {
  return list && list.length ? list.map((k) => `${k.group || "core"}/${k.kind}`).join(", ") : "—";
}

export function projectsPage(main) {
  replace(main, h("h1", {}, "Projects"), h("p", { class: "loading", role: "status" }, "Loading projects…"));
  api
    .get("/api/v1/projects")
    .then((found) => {
      const items = found.items || [];
      // Argo CD's permissive default project exists even when nothing stores it.
      if (!items.some((p) => p.metadata.name === "default")) {
        items.unshift({ metadata: { name: "default" }, spec: { description: "built in: any repository, any destination", sourceRepos: ["*"], destinations: [{ server: "*", namespace: "*" }] } });
      }
      const counts = new Map();
      for (const app of store.apps.values()) counts.set(app.spec.project || "default", (counts.get(app.spec.project || "default") || 0) + 1);
      replace(
        main,
        h("h1", {}, "Projects"),
        h(
          "table",
          { class: "projects" },
          h("thead", {}, h("tr", {}, ["Name", "Description", "Sources", "Destinations", "Sync windows", "Apps"].map((c) => h("th", { scope: "col" }, c)))),
          h(
            "tbody",
            {},
            items.map((p) =>
              h(
                "tr",
                {},
                h("th", { scope: "row" }, h("a", { href: `#/projects/${encodeURIComponent(p.metadata.name)}` }, p.metadata.name)),
                h("td", {}, p.spec.description || ""),
                h("td", {}, (p.spec.sourceRepos || []).join(", ")),
                h("td", {}, (p.spec.destinations || []).map((d) => `${d.name || d.server || "*"} / ${d.namespace || "*"}`).join(", ")),
                h("td", {}, String((p.spec.syncWindows || []).length)),
                h("td", {}, String(counts.get(p.metadata.name) || 0)),
              ),
            ),
          ),
        ),
      );
    })
    .catch((e) => replace(main, h("h1", {}, "Projects"), h("p", { class: "error", role: "alert" }, e.message)));
  return null;
}

export function projectPage(main, name) {
  replace(main, h("h1", {}, name), h("p", { class: "loading", role: "status" }, "Loading…"));
  const path = `/api/v1/projects/${encodeURIComponent(name)}`;
  Promise.all([api.get(path), api.get(`${path}/syncwindows`)])
    .then(([p, w]) => {
      const spec = p.spec || {};
      const apps = [...store.apps.values()].filter((a) => (a.spec.project || "default") === name);
      replace(
        main,
        h("p", { class: "crumbs" }, h("a", { href: "#/projects" }, "Projects")),
        h("h1", {}, name),
        spec.description ? h("p", {}, spec.description) : null,
        h(
          "dl",
          { class: "facts card" },
          h("dt", {}, "Source repositories"), h("dd", {}, (spec.sourceRepos || []).map((r) => h("div", {}, r === "*" ? "* (any)" : link(r)))),
          h("dt", {}, "Destinations"), h("dd", {}, (spec.destinations || []).map((d) => h("div", {}, `${d.name || d.server || "*"} / ${d.namespace || "*"}`))),
          h("dt", {}, "Source namespaces"), h("dd", {}, (spec.sourceNamespaces || []).join(", ") || "—"),
          h("dt", {}, "Cluster resources allowed"), h("dd", {}, kinds(spec.clusterResourceWhitelist)),
          h("dt", {}, "Cluster resources denied"), h("dd", {}, kinds(spec.clusterResourceBlacklist)),
          h("dt", {}, "Namespaced resources allowed"), h("dd", {}, spec.namespaceResourceWhitelist ? kinds(spec.namespaceResourceWhitelist) : "all"),
          h("dt", {}, "Namespaced resources denied"), h("dd", {}, kinds(spec.namespaceResourceBlacklist)),
        ),
        h("h2", {}, "Sync windows"),
        w.windows.length
          ? h(
              "table",
              { class: "windows" },
              h("thead", {}, h("tr", {}, ["Kind", "Schedule", "Duration", "Time zone", "Manual sync", "Selects", "State"].map((c) => h("th", { scope: "col" }, c)))),
              h(
                "tbody",
                {},
                w.windows.map((x) =>
                  h(
                    "tr",
                    { "data-window": x.kind },
                    h("td", {}, x.kind),
                    h("td", { class: "mono" }, x.schedule),
                    h("td", {}, x.duration),
                    h("td", {}, x.timeZone || "UTC"),
                    h("td", {}, x.manualSync ? "allowed" : "no"),
                    h("td", {}, [["apps", x.applications], ["namespaces", x.namespaces], ["clusters", x.clusters]].filter(([, v]) => v.length).map(([k, v]) => `${k}: ${v.join(", ")}`).join("; ")),
                    h("td", {}, x.problem ? h("span", { class: "badge bad" }, `✖ unreadable: ${x.problem}`) : x.active ? h("span", { class: "badge warn" }, `● open until ${when(x.changesAt)}`) : h("span", { class: "badge muted" }, `○ closed${x.changesAt ? `, opens ${when(x.changesAt)}` : ""}`)),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, "No sync windows: syncs may run at any time."),
        h("h2", {}, `Applications (${apps.length})`),
        h("ul", {}, apps.map((a) => h("li", {}, h("a", { href: `#/applications/${encodeURIComponent(a.metadata.namespace)}/${encodeURIComponent(a.metadata.name)}` }, a.metadata.name)))),
      );
    })
    .catch((e) => replace(main, h("h1", {}, name), h("p", { class: "error", role: "alert" }, e.message)));
  return null;
}
