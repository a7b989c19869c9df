// The few DOM helpers the tournament pages share.

/**
 * An element with attributes (`on…` ones are listeners; false, null and undefined are left
 * out) and children (null and undefined left out).
 * @param {string} tag @param {Record<string, any>} [attrs] @param {...any} children
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : String(v));
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** An element of the page by id. */
export const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Refill a select's options, keeping the chosen value when it is still offered (the pages
 * refill them on every refresh while the organizer may be choosing).
 * @param {HTMLSelectElement} select @param {Array<[string, string]>} options value, label
 */
export function fillSelect(select, options) {
  const chosen = select.value;
  select.replaceChildren(...options.map(([value, label]) => el("option", { value }, label)));
  if (options.some(([value]) => value === chosen)) select.value = chosen;
}

/** Replace a node's children as `el` takes them (arrays flattened, null and false left out). */
export function fill(/** @type {Element} */ node, /** @type {any[]} */ ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
