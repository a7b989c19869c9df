// The army a registration brings, chosen one of three ways (docs/tournaments.md,
// "Registering"): a shipped list, an army code pasted from the army builder, or a list file
// (our army JSON, docs/armies.md). The server checks it; model.js's armyFields makes the
// request's fields and says what is missing before anything is sent.
import { el } from "./dom.js";
import { armyFields, MAX_LIST_FILE_BYTES } from "./model.js";

/**
 * The choice's fieldset; `read()` gives the registration's army fields or the problem.
 * Element ids start with `prefix` (`register`: the public page; `add`: the organizer's form):
 * `<prefix>-army` (the shipped lists' select), `<prefix>-code`, `<prefix>-file`, and the
 * radios `<prefix>-source-army|code|list`.
 * @param {string} prefix @param {string} legend
 */
export function armyChoice(prefix, legend) {
  const select = el("select", { id: `${prefix}-army`, name: "army" });
  const code = /** @type {HTMLTextAreaElement} */ (el("textarea", { id: `${prefix}-code`, rows: 2, cols: 44, spellcheck: "false",
    placeholder: "Paste the army code (the army builder: share / export the list, copy the code)" }));
  const file = /** @type {HTMLInputElement} */ (el("input", { type: "file", id: `${prefix}-file`, accept: ".json,application/json" }));
  const hint = el("div", { class: "hint", id: `${prefix}-army-hint` });
  const HINTS = /** @type {Record<string, string>} */ ({
    army: "",
    code: "The server reads the code with its operator's army data and checks the list; items the referee does not play are listed for you and the organizer.",
    list: "An army list in the referee's JSON format (docs/armies.md).",
  });
  const source = () => /** @type {HTMLInputElement|null} */ (node.querySelector(`input[name="${prefix}-source"]:checked`))?.value ?? "army";
  const show = () => {
    const chosen = source();
    select.hidden = chosen !== "army";
    code.hidden = chosen !== "code";
    file.hidden = chosen !== "list";
    hint.textContent = HINTS[chosen] ?? "";
  };
  const radio = (/** @type {string} */ value, /** @type {string} */ text) => el("label", { class: "army-source" },
    el("input", { type: "radio", name: `${prefix}-source`, id: `${prefix}-source-${value}`, value, checked: value === "army", onchange: show }), ` ${text}`);
  const node = el("fieldset", { class: "army-choice", id: `${prefix}-army-choice` }, el("legend", {}, legend),
    radio("army", "a shipped list"), radio("code", "an army code"), radio("list", "a list file"),
    el("div", {}, select, code, file), hint);
  show();
  return {
    node,
    /** @returns {Promise<ReturnType<typeof armyFields>>} */
    async read() {
      const chosen = /** @type {"army"|"code"|"list"} */ (source());
      const picked = file.files?.[0];
      const text = picked && picked.size <= MAX_LIST_FILE_BYTES ? await picked.text() : null;
      return armyFields(chosen, { army: /** @type {HTMLSelectElement} */ (select).value, code: code.value,
        fileText: text, fileName: picked?.name, fileSize: picked?.size });
    },
    /** Empty the code and the file (after a registration), keeping the choice. */
    clear() { code.value = ""; file.value = ""; },
  };
}
