// Building the page's elements.  Text is always a text node: nothing the server or a player wrote
// is ever parsed as HTML.

// h("div", {class: "x", "data-action": "end"}, child, "text"): attributes (an on* attribute is a
// listener; null, undefined and false leave it out; true is present and empty), then children.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

// An SVG element (the curves): attributes (null leaves one out), then children (text or elements).
export function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null) e.setAttribute(k, String(v));
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

// Ability icons: small inline SVG glyphs (no image files).
const ICONS = {
  splash: "M8 2 L10 6 L14 7 L10 9 L8 14 L6 9 L2 7 L6 6 Z",
  perforation: "M1 8 H12 M9 4 L14 8 L9 12",
  rage: "M8 1 L11 7 H8 L10 15 L4 6 H7 Z",
  protection: "M8 1 L14 4 V8 C14 12 11 14 8 15 C5 14 2 12 2 8 V4 Z",
  indestructible: "M3 3 H13 V13 H3 Z M6 6 H10 V10 H6 Z",
  berserk: "M2 14 L14 2 M2 2 L14 14",
  sprint: "M2 4 L8 8 L2 12 M8 4 L14 8 L8 12",
  aura: "M8 3 A5 5 0 1 0 8.01 3 M8 6 A2 2 0 1 0 8.01 6",
};
export function icon(name) {
  return svg("svg", { viewBox: "0 0 16 16", class: "icon icon-" + name, "aria-hidden": "true" },
    svg("path", { d: ICONS[name] || "M2 2 H14 V14 H2 Z" }));
}

// Enter or Space on an element does what a click does (it is a button for the keyboard).
export function onEnter(el, fn) {
  el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(e); } });
}

// Whether the reader asked for rule numbers (the setting, kept in localStorage clash.rules).
export function showRules() { return localStorage.getItem("clash.rules") === "on"; }
