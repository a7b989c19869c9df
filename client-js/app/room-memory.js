// What this tab keeps about a room across reloads (sessionStorage, per room): the dice
// commitment first seen, this seat's contribution to the dice, its secret Lieutenant choice.
// A browser that refuses storage (private mode) keeps nothing and says nothing.

/** The tab's memory of room `room`: get, set and remove by name. @param {string|null} room */
export function roomMemory(room) {
  const key = (/** @type {string} */ name) => `referee:${room}:${name}`;
  return {
    get(/** @type {string} */ name) { try { return sessionStorage.getItem(key(name)); } catch { return null; } },
    set(/** @type {string} */ name, /** @type {string} */ value) { try { sessionStorage.setItem(key(name), value); } catch { /* private mode */ } },
    remove(/** @type {string} */ name) { try { sessionStorage.removeItem(key(name)); } catch { /* private mode */ } },
  };
}
