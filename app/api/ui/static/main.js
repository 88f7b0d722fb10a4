// Entry point: sign-in, the page shell, and the hash router.
//
// Routes: #/applications, #/applications/<namespace>/<name>[/<tab>], #/projects,
// #/projects/<name>, #/events. The token never appears in a URL: it is sent once to
// POST /api/v1/session and lives in an HttpOnly cookie from then on.

import * as api from "./api.js";
import { h, replace } from "./dom.js";
import * as store from "./store.js";
import { toast } from "./dialogs.js";
import { listPage } from "./list.js";
import { appPage } from "./app_page.js";
import { projectsPage, projectPage } from "./projects.js";
import { eventsPage, keepEvents } from "./events_page.js";

const root = document.getElementById("root");
let me = null;
let current = null;

function signInPage(reason) {
  const input = h("input", {
    id: "token",
    type: "password",
    autocomplete: "off",
    required: true,
    "aria-describedby": "token-help",
  });
  const error = h("p", { class: "error", role: "alert" }, reason || "");
  const form = h(
    "form",
    { class: "signin card", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Sign in to Sluice"),
    h("label", { for: "token" }, "API token"),
    input,
    h("p", { id: "token-help", class: "help" }, "The token of `sluice up` is in .sluice/api-token."),
    error,
    h("button", { type: "submit", class: "primary" }, "Sign in"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      me = await api.session.signIn(input.value);
      input.value = "";
      await startApp();
    } catch (err) {
      replace(error, err.message);
    }
  });
  replace(root, h("main", { id: "main", class: "center" }, form));
  input.focus();
}

function nav() {
  const link = (href, text) => h("a", { href, "data-nav": href }, text);
  const stream = h("span", { class: "stream", role: "status", "aria-live": "polite" }, "");
  const showState = (state) =>
    replace(stream, state === "open" ? "● live" : state === "reconnecting" ? "○ reconnecting…" : "○ offline");
  showState(api.streamState);
  api.onStreamState(showState);
  const signOut = h("button", { type: "button", class: "link" }, "Sign out");
  signOut.addEventListener("click", async () => {
    await api.session.signOut().catch(() => {});
    api.closeStream();
    store.stop();
    me = null;
    signInPage("Signed out.");
  });
  return h(
    "header",
    { class: "top" },
    h("a", { class: "brand", href: "#/applications" }, "Sluice"),
    h(
      "nav",
      { "aria-label": "Main" },
      link("#/applications", "Applications"),
      link("#/projects", "Projects"),
      link("#/events", "Events"),
    ),
    h("span", { class: "spacer" }),
    stream,
    h("span", { class: "who" }, me ? `${me.name}${me.readOnly ? " (read-only)" : ""}` : ""),
    signOut,
  );
}

function route() {
  const hash = location.hash.replace(/^#\/?/, "");
  const parts = hash.split("?")[0].split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(hash.split("?")[1] || "");
  if (current && current.destroy) current.destroy();
  const main = document.getElementById("main");
  for (const a of document.querySelectorAll("[data-nav]")) {
    const active = `#/${parts[0] || "applications"}` === a.getAttribute("data-nav");
    if (active) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const context = { me, params };
  if (parts[0] === "applications" && parts.length >= 3) {
    current = appPage(main, parts[1], parts[2], parts[3] || "tree", context);
  } else if (parts[0] === "projects" && parts[1]) {
    current = projectPage(main, parts[1], context);
  } else if (parts[0] === "projects") {
    current = projectsPage(main, context);
  } else if (parts[0] === "events") {
    current = eventsPage(main, context);
  } else {
    current = listPage(main, context);
  }
}

async function startApp(early = null) {
  replace(root, nav(), h("main", { id: "main", tabindex: "-1" }));
  keepEvents();
  api.openStream();
  window.addEventListener("hashchange", route);
  route();
  await store.start(early);
}

api.whenUnauthorized((message) => {
  if (!me) return;
  me = null;
  api.closeStream();
  store.stop();
  window.removeEventListener("hashchange", route);
  signInPage(message);
});

window.addEventListener("unhandledrejection", (e) => {
  toast(e.reason && e.reason.message ? e.reason.message : String(e.reason), "bad");
});

// The list is asked for while the session is checked (index.html preloads it, so this
// takes the answer already on its way): a 401 here just means the sign-in page is next.
const early = api.get(store.LIST_PATH);
early.catch(() => {});
try {
  me = await api.session.who();
  await startApp(early);
} catch (e) {
  signInPage(e.status === 401 ? "" : e.message);
}
