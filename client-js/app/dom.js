// Building the app's DOM: one element from its tag, attributes and children.

/**
 * An element with attributes (``on…`` keys add listeners; false, null and undefined leave the
 * attribute out; true sets it empty) and children (nodes or text).
 * @param {string} tag @param {Record<string, any>} attrs @param {...(Node|string)} children
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : String(v));
  }
  node.append(...children);
  return node;
}
