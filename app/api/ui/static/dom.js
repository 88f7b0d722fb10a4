// DOM helpers: every piece of text goes in as a text node, never as markup.
//
// h("div", {class: "x", onclick: fn}, "text", child) builds an element. Attributes are set
// with setAttribute (names starting with "on" become listeners); strings and numbers
// become text nodes. Links pass through safeHref, which keeps only http(s) URLs and
// in-page "#/" routes. Nothing here, or anywhere in the UI, assigns innerHTML.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "href") {
      const safe = safeHref(String(value));
      if (safe) el.setAttribute("href", safe);
    } else if (name === "value" && "value" in el) {
      el.value = String(value);
    } else if (name === "checked" || name === "selected" || name === "disabled") {
      el[name] = Boolean(value);
      if (value) el.setAttribute(name, "");
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// Only http(s) links and the UI's own "#/" routes are ever made clickable.
export function safeHref(url) {
  if (url.startsWith("#/")) return url;
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return parsed.href;
  } catch {
    return "";
  }
  return "";
}

// A repository URL as a link when it is http(s), else as text (ssh and scp forms).
export function link(url, text) {
  const safe = safeHref(url);
  if (!safe) return h("span", { class: "mono" }, text ?? url);
  return h("a", { href: safe, rel: "noopener noreferrer", target: "_blank" }, text ?? url);
}

export function field(label, ...value) {
  return [h("dt", {}, label), h("dd", {}, ...value)];
}

// Re-render `container` with `draw()` keeping keyboard focus: the focused element's
// `data-focus` names it, and the element with the same name gets focus back.
export function keepingFocus(container, draw) {
  const active = document.activeElement;
  const name = active && container.contains(active) ? active.getAttribute("data-focus") : null;
  draw();
  if (!name) return;
  for (const el of container.querySelectorAll("[data-focus]")) {
    if (el.getAttribute("data-focus") === name) {
      el.focus();
      return;
    }
  }
}
