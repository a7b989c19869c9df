// A read-only field holding a link, with its Copy button: the lobby's, the game's setup
// panel's and the tournament pages' links.

import { el } from "./dom.js";

/**
 * Copy a field's text to the clipboard. When the browser refuses (an insecure page, no
 * permission), select the text instead and say how to copy it by hand.
 * @param {HTMLInputElement} input @param {HTMLElement} button @param {HTMLElement} note
 */
async function copyFrom(input, button, note) {
  try {
    if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
    await navigator.clipboard.writeText(input.value);
    button.textContent = "Copied";
    note.textContent = "";
  } catch {
    input.focus();
    input.select();
    button.textContent = "Copy";
    note.textContent = "The browser refused the clipboard: the link is selected, press Ctrl+C (or Cmd+C) to copy it.";
  }
}

/** A read-only field holding a link, with its Copy button (`copy-<id>`) and a note for the fallback. */
export function copyField(/** @type {string} */ id, /** @type {string} */ value) {
  const input = /** @type {HTMLInputElement} */ (el("input", { id, readonly: true, value, class: "link-field", onfocus: (e) => e.target.select() }));
  const note = el("div", { class: "copy-note hint", id: `copy-note-${id}` });
  const copy = el("button", { type: "button", id: `copy-${id}`, class: "copy", onclick: () => copyFrom(input, copy, note) }, "Copy");
  return el("span", { class: "copy-field" }, input, copy, note);
}

