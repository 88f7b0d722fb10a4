// A small pop-up menu (WAI-ARIA menu button pattern): opened from a button, focus moves
// to its first item, ArrowUp/ArrowDown/Home/End move, Enter runs, Escape or Tab closes
// and focus goes back to the button. It lives on <body> at a fixed position, so the
// view under it may redraw (the tree does on every live change) without closing it.

import { h, replace } from "./dom.js";

let current = null;

export function closeMenu(refocus = true) {
  if (!current) return;
  const { el, anchor, away } = current;
  current = null;
  document.removeEventListener("pointerdown", away, true);
  el.remove();
  anchor.setAttribute("aria-expanded", "false");
  if (!refocus) return;
  // The view may have redrawn meanwhile: its new button has the same data-menu.
  const name = anchor.getAttribute("data-menu");
  const again = anchor.isConnected ? anchor : [...document.querySelectorAll("[data-menu]")].find((b) => b.getAttribute("data-menu") === name);
  if (again) again.focus();
}

function itemButtons(items) {
  return items.map((item) =>
    h(
      "button",
      {
        type: "button",
        role: "menuitem",
        disabled: Boolean(item.note),
        "aria-disabled": item.note ? "true" : null,
        "data-item": item.id || item.label,
        onclick: () => {
          // Focus back on the button first: a dialog the item opens returns it there.
          closeMenu();
          item.run();
        },
      },
      h("span", {}, item.label),
      item.note ? h("span", { class: "help" }, ` (${item.note})`) : null,
    ),
  );
}

// openMenu(anchor, label, load): load() resolves with [{label, run, note?, id?}]; an item
// with a note is shown disabled with the note as its reason.
export function openMenu(anchor, label, load) {
  closeMenu(false);
  const el = h("div", { class: "menu", role: "menu", "aria-label": label, tabindex: "-1" }, h("p", { class: "loading", role: "status" }, "Loading…"));
  const box = anchor.getBoundingClientRect();
  el.style.left = `${Math.round(box.left)}px`;
  el.style.top = `${Math.round(box.bottom + 4)}px`;
  const away = (e) => {
    if (!el.contains(e.target) && e.target !== anchor) closeMenu(false);
  };
  current = { el, anchor, away };
  document.addEventListener("pointerdown", away, true);
  anchor.setAttribute("aria-expanded", "true");
  document.body.append(el);
  el.focus();
  const enabled = () => [...el.querySelectorAll("[role=menuitem]:not(:disabled)")];
  el.addEventListener("keydown", (e) => {
    const items = enabled();
    const at = items.indexOf(document.activeElement);
    const move = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
    if (move !== undefined && items.length) {
      e.preventDefault();
      items[(move + items.length) % items.length].focus();
    } else if (e.key === "Escape") {
      e.preventDefault();
      closeMenu();
    } else if (e.key === "Tab") {
      closeMenu(false);
    }
  });
  load().then(
    (items) => {
      if (current?.el !== el) return;
      replace(el, items.length ? itemButtons(items) : h("p", { class: "muted" }, "Nothing to do here."));
      const first = enabled()[0];
      if (first) first.focus();
    },
    (e) => {
      if (current?.el === el) replace(el, h("p", { class: "error", role: "alert" }, e.message));
    },
  );
}
