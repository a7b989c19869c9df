// The game page's UI state: what this tab holds that is not game state and that more than one
// module reads or changes. main.js, the order panel (order-panel.js) and the setup panel change
// it; the table (table.js) and the roster read it to draw the selection, the routes being drawn,
// the chosen firing point, the Guts marks and which way up the table is. Fields are read
// directly; a change that touches several fields at once is one of the named operations below,
// so that, say, choosing another trooper always drops the declaration being built. State only
// one panel uses stays in that panel (the order panel's end-turn question, the dice panel's
// full commitment).

/** @typedef {ReturnType<typeof createUiState>} UiState */

/** A BS Attack form with nothing chosen yet. */
const noAttack = () => ({ weapon: /** @type {string|null} */ (null), split: /** @type {Record<string, number>} */ ({}) });

export function createUiState() {
  return {
    selected: /** @type {string|null} */ (null),
    /** routes being drawn, per activated trooper (a joint activation draws one per trooper) */
    routes: /** @type {Record<string, number[][]>} */ ({}),
    /** which activated trooper table clicks draw the route of */
    routeFor: /** @type {string|null} */ (null),
    /** a Fireteam's members whose route the player drew (the others follow the leader's: fireteam.js) */
    handRoutes: /** @type {Set<string>} */ (new Set()),
    /** the movement skill the route is drawn for */
    routeSkill: "move",
    /** end facing of a movement: "auto" (along the last segment), degrees, or "enemy:<id>" */
    facing: "auto",
    /** BS Attack form: weapon and burst per target, kept across re-renders */
    attack: noAttack(),
    /** a corner of the path already moved, chosen as the BS Attack's firing point (null: where it stands) */
    firingPoint: /** @type {number[]|null} */ (null),
    /** Peripherals ticked to activate with the selected Controller */
    peripherals: /** @type {Set<string>} */ (new Set()),
    /** per Peripheral, the chosen detail of its skill for the current declaration (JSON of a skill) */
    peripheralChoice: /** @type {Record<string, string>} */ ({}),
    deployHidden: false,
    /** a Minelayer's deployment being planned: its spot, then its Mines (mines.js), or null */
    minePlan: /** @type {import("./mines.js").MinePlan | null} */ (null),
    /** Place Deployable being aimed in the Order: the Mine weapon and its spot (null until clicked) */
    placeMine: /** @type {{weapon: string, at: number[] | null} | null} */ (null),
    /** what the table draws for this seat's Guts window (guts-panel.js `marks`), or null */
    guts: /** @type {any} */ (null),
    /** the inline "really concede?" question is showing */
    confirmConcede: false,
    /** why this tab cannot join (a final close other than 4010), shown in the banner */
    fatal: /** @type {string|null} */ (null),
    /** which way up the table is drawn: from the seat's own edge ("seat"; North up for spectators), or as toggled */
    viewFrom: /** @type {"seat" | "north" | "south"} */ ("seat"),
    /** the table is drawn South up (set from viewFrom at each render; table.js reads it) */
    rotated: false,
    /** Where the current Player Turn's Orders started, seen live (seat-view.js turnStartMark). */
    turnMark: /** @type {ReturnType<typeof import("./seat-view.js").turnStartMark>} */ (null),
    /** How many seconds behind the game this connection's feed runs (the welcome's delay_s). */
    feedDelayS: 0,
    /** The frames' chess clocks (null: the room plays without them), stamped with their arrival. */
    chessClocks: /** @type {import("./overlay-model.js").Clocks | null} */ (null),

    /** Drop the declaration being built (after it is sent, or when another trooper is chosen). */
    resetDeclaration() {
      Object.assign(this, { routes: {}, routeFor: null, handRoutes: new Set(), facing: "auto", attack: noAttack(), firingPoint: null, peripheralChoice: {}, placeMine: null });
    },
    /** Drop the declaration and the ticked Peripherals (an activation sent, or another trooper chosen). */
    resetActivation() {
      this.resetDeclaration();
      this.peripherals = new Set();
    },
    /** Select a trooper; choosing another one than before drops what was being declared for the first. */
    select(/** @type {string|null} */ id) {
      if (this.selected !== id) { this.resetActivation(); this.minePlan = null; }
      this.selected = id;
    },
    /** Fire from a corner of the path (null: where the trooper stands): the weapon is chosen again there. */
    fireFrom(/** @type {number[]|null} */ point) {
      this.firingPoint = point;
      this.attack = noAttack();
    },
  };
}
