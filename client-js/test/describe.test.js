// The words of the event log and of the results panel (client-js/app/describe.js), fed with
// real events: test/fixtures/events.json holds scenario games played by the rules engine and
// projected for each viewer by server/rules/views.py (test/make_describe_fixture.py).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const fixture = JSON.parse(readFileSync(join(here, "fixtures", "events.json"), "utf8"));

/** @type {typeof import("../app/describe.js")} */
let d;
/** @type {typeof import("../app/aro-panel.js")} */
let aro;

before(async () => {
  // The app loads its weapon catalogue with fetch("weapons.json"): serve the server's file.
  const weapons = JSON.parse(readFileSync(join(repo, "server", "rules", "data", "weapons.json"), "utf8"));
  globalThis.fetch = /** @type {any} */ (async () => ({ ok: true, json: async () => weapons }));
  const catalogue = await import("../app/catalogue.js");
  await catalogue.loadCatalogue();
  d = await import("../app/describe.js");
});

/**
 * One viewer's game in words, as the app builds it: names learnt event by event, the log line
 * of each event and the lines of each resolved Order.
 * @param {string} name @param {string} viewer
 */
function play(name, viewer = "spectator") {
  const game = fixture[name];
  const { state, events } = game.viewers[viewer];
  const names = new d.TrooperNames((id) => state.troopers.find((/** @type {any} */ t) => t.id === id));
  const log = [];
  const results = [];
  for (const event of events) {
    names.learn(event);
    const ctx = { names, ruleset: game.ruleset, viewer };
    log.push(d.textOf(d.describeEvent(event, ctx)));
    if (event.type === "order_resolved") results.push(d.outcomeLines(event.outcome, ctx));
  }
  return { log, results, names, events };
}

const lineText = (/** @type {any} */ line) => d.textOf(line.parts);
const dice = (/** @type {any} */ line) => line.parts.filter((/** @type {any} */ p) => typeof p === "object" && p.cls?.startsWith("die"))
  .map((/** @type {any} */ p) => `${p.text}:${p.cls.replace(/^die /, "")}`);

test("a shot against a counter-shot: signed MODs, SV, dice with their styles, who cancelled what, hits", () => {
  const { results } = play("shot_and_counter_shot");
  const [shot, counter, save, wound] = results[0];
  assert.equal(lineText(shot), "Lancer Line Trooper (A-t5) shoots Syndicate Enforcer (B-t3) with Line Rifle: BS 11 +3 range = SV 14. "
    + "Rolls 5 13 17. Face to Face against Syndicate Enforcer (B-t3)'s BS Attack. Syndicate Enforcer (B-t3)'s best success, 11, "
    + "cancels the 5 (equal or lower). 1 hit on Syndicate Enforcer (B-t3).");
  assert.deepEqual(dice(shot), ["5:cancelled", "13:success", "17:miss"]);
  // A MOD of 0 is still a MOD: "+0 range", never "0 range".
  assert.match(lineText(counter), /: BS 12 \+0 range = SV 12\. Rolls 11\. Face to Face against Lancer Line Trooper \(A-t5\)'s BS Attack\. Lancer Line Trooper \(A-t5\)'s best success, 13, cancels the 11 \(equal or lower\)\. No hit\.$/);
  assert.deepEqual(dice(counter), ["11:cancelled"]);
  assert.equal(lineText(save), "Syndicate Enforcer (B-t3) saves against Line Rifle (N) from Lancer Line Trooper (A-t5): 1 hit; 1 Saving Roll, failed on 11 or less: 4. 1 failed: 1 wound or effect.");
  assert.deepEqual(dice(save), ["4:failed"]);
  assert.equal(lineText(wound), "Syndicate Enforcer (B-t3) now has 1 wound: Unconscious");
});

test("the same Order reads the same for both seats and the spectator", () => {
  const words = (/** @type {string} */ viewer) => play("shot_and_counter_shot", viewer).results.map((lines) => lines.map(lineText));
  assert.deepEqual(words("A"), words("spectator"));
  assert.deepEqual(words("B"), words("spectator"));
});

test("out of range is an automatic failure without dice, not a Success Value below 1", () => {
  const { results } = play("out_of_range");
  const text = lineText(results[0][0]);
  assert.equal(text, "Lancer Line Trooper (A-t7) shoots Syndicate Enforcer (B-t3) with Line Rifle: out of range (beyond Line Rifle's longest range, 48.0\"): automatic failure, no die rolled. No hit.");
  assert.doesNotMatch(text, /below 1|SV/);
});

test("a Success Value below 1 (DIGEST W2): every MOD named, the cap said, no die", () => {
  const record = { trooper: "A-t5", skill: "bs_attack", target: "B-t2", weapon: "line_rifle", attribute: "BS", base: 11,
    mods: [{ source: "range", value: -6 }, { source: "mimetism", value: -6 }, { source: "partial_cover", value: -3 }, { source: "poor_visibility", value: -6 }],
    success_value: -1, burst: 3, dice: [], cancelled: [], successes: 0, criticals: 0, opposed_by: [], automatic_failure: true, chosen_failure: false };
  const [line] = d.outcomeLines({ rolls: [record], saves: [], effects: [] });
  assert.match(lineText(line), /: BS 11 −6 range −6 Mimetism −3 Partial Cover −6 poor visibility \(net MOD −21 capped at −12\) = SV −1: a Success Value below 1 fails automatically, no die rolled\. No hit\.$/);
});

test("criticals: a critical cancels every success of the other side (DIGEST W1)", () => {
  const active = { trooper: "A-t5", skill: "bs_attack", target: "B-t3", weapon: "line_rifle", attribute: "BS", base: 13,
    mods: [{ source: "range", value: 3 }, { source: "partial_cover", value: -3 }], success_value: 13, burst: 3,
    dice: [{ face: 5, value: 5, success: true, critical: false }, { face: 13, value: 13, success: true, critical: true }, { face: 17, value: 17, success: false, critical: false }],
    cancelled: [true, false, false], successes: 0, criticals: 1, opposed_by: [1] };
  const reactive = { trooper: "B-t3", skill: "bs_attack", target: "A-t5", weapon: "punch_carbine", attribute: "BS", base: 12,
    mods: [{ source: "range", value: 0 }], success_value: 12, burst: 1, dice: [{ face: 11, value: 11, success: true, critical: false }],
    cancelled: [true], successes: 0, criticals: 0, opposed_by: [0] };
  const [a, b] = d.outcomeLines({ rolls: [active, reactive] });
  assert.match(lineText(a), /BS 13 \+3 range −3 Partial Cover = SV 13\. Rolls 5 13 17\. /);
  assert.deepEqual(dice(a), ["5:cancelled", "13:critical", "17:miss"]);
  assert.match(lineText(a), /B-t3's best success, 11, cancels the 5 \(equal or lower\)\. 1 critical \(1 extra Saving Roll\) on B-t3\.$/);
  assert.match(lineText(b), /A-t5's critical 13 cancels all its successes \(11\)\. No hit\.$/);
});

test("a Direct Template hits without a roll; the ARO shot against it is a Normal Roll", () => {
  const { results } = play("direct_template");
  const texts = results[0].map(lineText);
  assert.match(texts[0], /^Syndicate Enforcer \(B-t3\) shoots Lancer Line Trooper \(Chain Spray\) \(A-t8\) with Punch Carbine \(AP\): BS 12 \+3 range = SV 15\. Rolls 8\. Normal Roll\. 1 hit/);
  assert.ok(texts.some((t) => /^Syndicate Enforcer \(B-t3\) saves against Chain Spray \(N\) from Lancer Line Trooper \(Chain Spray\) \(A-t8\): hit by the template \(a Direct Template weapon hits without a roll\)/.test(t)), texts.join("\n"));
});

test("a Camouflage marker is named as the viewer knew it, then by its profile once Discovered", () => {
  const { log, results } = play("discover_then_shoot_camouflage");
  assert.equal(log[1], "Declared (first skill): Lancer Line Trooper (A-t5): Discover Camouflage marker (B-t2)");
  assert.match(log[log.length - 1], /^Order 1 resolved: Ghost Infiltrator \(B-t2\) revealed \(Discovered\); Ghost Infiltrator \(B-t2\) turns to face south \(Alert!\)$/);
  const [discover, shot] = results[0];
  assert.match(lineText(discover), /tries to Discover Ghost Infiltrator \(B-t2\): WIP 13 \+0 range −6 Mimetism = SV 7\. Rolls 5\. Normal Roll\. Discovers it\.$/);
  assert.deepEqual(dice(shot), ["2:success", "8:critical", "12:miss"]);
  assert.match(lineText(shot), /1 hit and 1 critical \(1 extra Saving Roll\) on Ghost Infiltrator \(B-t2\)\.$/);
  // Its owner knew all along.
  assert.equal(play("discover_then_shoot_camouflage", "B").log[1], "Declared (first skill): Lancer Line Trooper (A-t5): Discover Ghost Infiltrator (B-t2)");
});

test("ARO windows: who may react and why, troopers that lost their ARO, a deadline", () => {
  const { log } = play("aro_lost_by_not_declaring");
  assert.deepEqual(log.slice(0, 7), [
    "Order 1: Regular Order from Combat Group 1 on Lancer Line Trooper (A-t7)",
    "Declared (first skill): Lancer Line Trooper (A-t7): Move 4.0\" to (24.0, 16.0)",
    "ARO window (Order 1, first ARO step): may react: Syndicate Enforcer (B-t3) (LoF)",
    "ARO window closed by the reactive player: Syndicate Enforcer (B-t3) declared nothing and lost its ARO",
    "Declared (second skill): Lancer Line Trooper (A-t7): Move 3.0\" to (24.0, 19.0)",
    "ARO window (Order 1, second ARO step): no trooper you can see may react",
    "ARO window timed out",
  ]);
  const timedOut = { type: "aro_window_closed", order: 1, step: 1, reason: "deadline", lost: ["B-t3", "B-t4"], lost_hidden: [] };
  assert.equal(d.textOf(d.describeEvent(timedOut, { names: play("zoc_only_dodge_and_reset").names })),
    "ARO window timed out: Syndicate Enforcer (B-t3) and Syndicate Enforcer (B-t4) lost their ARO");
  // The reactive player's own empty window says it plainly; the others are told what they can see.
  assert.equal(play("coup_de_grace", "B").log[2], "ARO window (Order 1, first ARO step): none of your troopers may react");
  assert.equal(play("coup_de_grace", "A").log[2], "ARO window (Order 1, first ARO step): no trooper you can see may react");
});

test("Dodge and Reset against attacks, ZoC without LoF costs the Dodge −3 (N5)", () => {
  const { log, results } = play("zoc_only_dodge_and_reset");
  assert.equal(log[2], "ARO window (Order 1, first ARO step): may react: Syndicate Enforcer (B-t3) (ZoC), Syndicate Enforcer (B-t4) (ZoC)");
  assert.equal(log[3], "ARO declared: Syndicate Enforcer (B-t3): Dodge (moving 2.0\" to (24.0, 28.0) if it succeeds)");
  const texts = results[0].map(lineText);
  assert.match(texts[1], /^Syndicate Enforcer \(B-t3\) dodges: PH 11 −3 no LoF = SV 8\. Rolls 10\. Face to Face against Lancer Line Trooper \(A-t7\)'s BS Attack\. Fails to Dodge\.$/);
  assert.match(texts[2], /^Syndicate Enforcer \(B-t4\) resets: WIP 13 = SV 13\. Rolls 2\. Normal Roll\. Resets\.$/);
  const dodged = play("dodge").results[0].map(lineText);
  assert.match(dodged[1], /dodges: PH 11 = SV 11\. Rolls 10\. .*Dodges: the attacks it faced do not affect it\.$/);
  assert.equal(dodged[2], "Syndicate Enforcer (B-t3) moves 2.0\" to (26.0, 30.0) (Dodge)");
});

test("a Comms Attack against a Reset, then Targeted and a failed Guts Roll", () => {
  const texts = play("comms_attack").results[0].map(lineText);
  assert.match(texts[0], /^Signal Adept \(Hacker\) \(A-t14\) hacks Syndicate Enforcer \(B-t3\) with Tracer Ping: WIP 14 = SV 14\. Rolls 3 12\./);
  assert.match(texts[1], /^Syndicate Enforcer \(B-t3\) resets: WIP 13 = SV 13\. Rolls 10\. Face to Face against Signal Adept \(Hacker\) \(A-t14\)'s Comms Attack\. Signal Adept \(Hacker\) \(A-t14\)'s best success, 12, cancels the 10 \(equal or lower\)\. Fails to Reset\.$/);
  assert.match(texts[2], /makes a Guts Roll: WIP 13 = SV 13\. Rolls 15\. Failed \(see the effects below\)\.$/);
  assert.ok(texts.includes("Syndicate Enforcer (B-t3) is Targeted (Tracer Ping)"));
  assert.ok(texts.includes("Syndicate Enforcer (B-t3) goes Prone (failed Guts Roll)"));
});

test("every text of every game: names with short ids, distances and positions to one decimal, skills in words", () => {
  for (const name of Object.keys(fixture)) {
    for (const viewer of ["A", "B", "spectator"]) {
      const { log, results } = play(name, viewer);
      const texts = [...log, ...results.flat().map(lineText)];
      for (const text of texts) {
        assert.doesNotMatch(text, /\d\.\d{2,}/, `${name}/${viewer}: a raw float in "${text}"`);
        assert.doesNotMatch(text, /_/, `${name}/${viewer}: an identifier in "${text}"`);
        assert.doesNotMatch(text, /(^|[^(])\b[AB]-[a-z]\d+\b/, `${name}/${viewer}: a bare id in "${text}"`);
        assert.doesNotMatch(text, /undefined|null|NaN|\[object/, `${name}/${viewer}: "${text}"`);
        assert.doesNotMatch(text, /(^|[^+−\d])0 range/, `${name}/${viewer}: an unsigned MOD in "${text}"`);
      }
    }
  }
});

test("random trooper ids: the name with the first letters of the id, the whole id in the tooltip", () => {
  const names = new d.TrooperNames((id) => (id === "B-q4xk2mzd" ? { id, side: "B", profile: { name: "Syndicate Enforcer" } } : undefined));
  const label = names.label("B-q4xk2mzd");
  assert.equal(label.text, "Syndicate Enforcer (B-q4xk)");
  assert.match(/** @type {string} */ (label.title), /B-q4xk2mzd/);
  assert.equal(names.label("A-zz9yx8wv").text, "A-zz9y"); // nothing says who it is: the short id alone
  // The army list names a seat's own troopers from the start.
  names.learn({ type: "army_chosen", side: "A", army: { name: "Helion", entries: [{ id: "t5", profile: { name: "Lancer Line Trooper" } }] }, trooper_ids: [["t5", "A-zz9yx8wv"]] });
  assert.equal(names.label("A-zz9yx8wv").text, "Lancer Line Trooper (A-zz9y)");
});

test("signed MODs, inches and facings", () => {
  assert.equal(d.signed(3), "+3");
  assert.equal(d.signed(0), "+0");
  assert.equal(d.signed(-3), "−3");
  assert.equal(d.inches(18.333), "18.3\"");
  assert.equal(d.point([26.2679491924, 29.2]), "(26.3, 29.2)");
  assert.equal(d.facingText(90), "north");
  assert.equal(d.facingText(260.4), "about south (260°)");
  assert.equal(d.facingText(118), "about north-west (118°)", "the nearest compass point, not a bare angle");
  assert.equal(d.textOf(d.skillText({ type: "move", route: [[0, 0], [10, 0], [10, 8.3]], facing: 45 })), "Move 18.3\" to (10.0, 8.3) via (10.0, 0.0), facing north-east");
});

/** A preview of a shot as the server's options give it (server/rules/previews.py). */
const preview = (/** @type {Record<string, any>} */ extra) => ({ point: null, template: false, distance: 23.0, reach: null, attribute: "BS",
  base: 12, mods: [{ source: "range", value: -3 }], net_mod: -3, sv: 9, burst: 1, range: { from: 16, up_to: 24, mod: -3 },
  max_range: 32, automatic_failure: null, ...extra });

test("the ARO panel's default: shoot back with the weapon the server gives the best Success Value, Dodge under a template, Reset against a hack", async () => {
  aro = await import("../app/aro-panel.js");
  const ctx = { active: "A-t5", view: {}, ruleset: "n5", label: (/** @type {string} */ id) => id };
  // Both at −3 and SV 9 (23" between the bases) with PS 8; the Carbine's AP ammunition makes it
  // the better one. Both are offered, the best first, each with its SV and MODs.
  const lof = { line_of_fire: true, bs_attack: ["sidearm", "punch_carbine"], dodge: true, reset: true,
    targets: { bs_attack: { sidearm: ["A-t5"], punch_carbine: ["A-t5"] } },
    shots: { sidearm: { "A-t5": [preview({ max_range: 24 })] }, punch_carbine: { "A-t5": [preview({})] } } };
  const shot = aro.aroChoices("B-t3", lof, ctx);
  assert.deepEqual(JSON.parse(shot.preferred), { type: "bs_attack", weapon: "punch_carbine", targets: [{ trooper: "A-t5", burst: 1 }] });
  assert.deepEqual(shot.choices.map((c) => c.kind), ["shoot", "shoot", "dodge", "reset", "pass"]);
  assert.equal(shot.choices[0].text, "Shoot: Punch Carbine (AP) at A-t5 (BS 12 \u22123 range 16-24\" = SV 9 at 23.0\")");
  assert.equal(JSON.parse(aro.aroChoices("B-t3", { ...lof, template: true }, ctx).preferred).type, "dodge");
  assert.equal(JSON.parse(aro.aroChoices("B-t3", { ...lof, comms_target: true }, ctx).preferred).type, "reset");
  const zoc = aro.aroChoices("B-t3", { zone_of_control: true, bs_attack: [], dodge: true, reset: true, targets: {}, shots: {} }, ctx);
  assert.equal(JSON.parse(zoc.preferred).type, "dodge");
  assert.match(zoc.choices[0].text, /Dodge \(−3 PH: no LoF\)/);
  assert.equal(aro.aroChoices("B-t3", { line_of_fire: true, bs_attack: [], dodge: false, reset: false, targets: {}, shots: {} }, ctx).preferred, "pass");
  // A higher SV wins over a better PS: Mimetism shown, the SV the server computed.
  const better = aro.aroChoices("B-t3", { ...lof, shots: { sidearm: { "A-t5": [preview({ sv: 12, mods: [] })] }, punch_carbine: { "A-t5": [preview({})] } } }, ctx);
  assert.equal(JSON.parse(better.preferred).weapon, "sidearm");
  // Out of range: offered (a legal declaration), flagged, and never the default.
  const far = preview({ distance: 30.5, range: null, mods: [], sv: 12, max_range: 24, automatic_failure: "out_of_range" });
  const outOfRange = aro.aroChoices("B-t3", { line_of_fire: true, bs_attack: ["sidearm"], dodge: true, reset: false,
    targets: { bs_attack: { sidearm: ["A-t5"] } }, shots: { sidearm: { "A-t5": [far] } } }, ctx);
  assert.equal(JSON.parse(outOfRange.preferred).type, "dodge");
  assert.equal(outOfRange.choices[0].text, "Shoot: Sidearm at A-t5 (out of range at 30.5\" (max 24.0\"): fails automatically, no dice)");
  // Smoke between the reactor and the active trooper: offered at the server's screening point, never the default.
  const screened = aro.aroChoices("B-t3", { ...lof, zones: { fog_grenades: { kind: "smoke", attribute: "PH", screens: { "A-t5": { point: [22.5, 20.6], sv: 13 } } } } }, ctx);
  const smoke = screened.choices.find((c) => c.kind === "zone");
  assert.deepEqual(JSON.parse(smoke?.value ?? "null"), { type: "bs_attack", weapon: "fog_grenades", targets: [], zone_at: [22.5, 20.6] });
  assert.match(smoke?.text ?? "", /smoke between it and A-t5 \(thrown on PH, SV 13/);
  assert.equal(JSON.parse(screened.preferred).weapon, "punch_carbine");
  assert.equal(aro.withTargetPoint(smoke?.value ?? "", "[1,2]"), smoke?.value, "a zone keeps its own point");
  // Place Deployable in ARO: a Mine at the first spot the server accepts, never the default.
  const laying = aro.aroChoices("B-t3", { ...lof, place_deployable: { tripwire_mines: { name: "Tripwire Mines", uses_left: 3,
    path: [[10, 30]], contact: 0.98, spots: [[10, 29.01], [11, 30]] } } }, ctx);
  const place = laying.choices.find((c) => c.kind === "place");
  assert.deepEqual(JSON.parse(place?.value ?? "null"), { type: "place_deployable", weapon: "tripwire_mines", position: [10, 29.01] });
  assert.match(place?.text ?? "", /^Place Deployable: .* in contact \(3 left\)$/);
  assert.equal(JSON.parse(laying.preferred).type, "bs_attack");
});

test("a shot's preview in words: every MOD, the final SV, the distance; a template's reach; an SV below 1 flagged", () => {
  assert.equal(d.shotPreviewText(preview({ distance: 6.2, mods: [{ source: "range", value: 3 }, { source: "mimetism", value: -3 }],
    sv: 12, range: { from: 0, up_to: 8, mod: 3 } })), "BS 12 +3 range 0-8\" \u22123 Mimetism = SV 12 at 6.2\"");
  assert.equal(d.shotPreviewText(preview({ base: 4, mods: [{ source: "range", value: 0 }, { source: "mimetism", value: -6 }], sv: -2,
    range: { from: 8, up_to: 16, mod: 0 }, distance: 12, automatic_failure: "sv_below_1" })),
  "BS 4 +0 range 8-16\" \u22126 Mimetism = SV \u22122 at 12.0\": below 1, fails automatically, no dice");
  assert.equal(d.shotPreviewText({ template: true, distance: 5.04, reach: 10.1, sv: null, mods: [] }),
    "Direct Template at 5.0\", reach 10.1\": hits without a roll");
  assert.equal(d.shotPreviewText(undefined), "");
});

test("seed 000: a declaration whose Requirement fails, or an ARO that fails the ARO Check, reads as Idle with what was lost", () => {
  const names = new d.TrooperNames((id) => ({ "A-t5": { id, side: "A", profile: { name: "Lancer" } }, "B-t4": { id, side: "B", profile: { name: "Hunter" } } })[id]);
  const ctx = { names };
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "A-t5", skill: "bs_attack", reason: "no_line_of_fire", target: "B-t4", aro: false }, ctx)),
    "Lancer (A-t5) declared BS Attack at Hunter (B-t4): no Line of Fire, the Order is lost (Idle)");
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "B-t4", skill: "dodge", reason: "aro_not_valid", target: null, aro: true }, ctx)),
    "Hunter (B-t4) declared Dodge: no Line of Fire, Zone of Control or other reason to react (ARO Check), the ARO is lost (Idle)");
  // An effect stored before the fields existed still reads.
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "A-t5", skill: "cc_attack", reason: "not_in_base_contact" }, ctx)),
    "Lancer (A-t5) declared CC Attack: not in base contact with its target, the Order is lost (Idle)");
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "A-t5", skill: "bs_attack", reason: "beyond_template_reach", target: "B-t4", aro: false }, ctx)),
    "Lancer (A-t5) declared BS Attack at Hunter (B-t4): its target is beyond the template's reach, the Order is lost (Idle)");
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "A-t5", skill: "bs_attack", reason: "template_touches_ally", target: "B-t4", aro: false }, ctx)),
    "Lancer (A-t5) declared BS Attack at Hunter (B-t4): an ally is under the template, so it is cancelled, the Order is lost (Idle)");
  assert.equal(d.textOf(d.effectText({ type: "became_idle", trooper: "B-t4", skill: "bs_attack", reason: "zone_of_control_only", target: "A-t5", aro: true }, ctx)),
    "Hunter (B-t4) declared BS Attack at Lancer (A-t5): in Zone of Control without Line of Fire only Dodge or Reset, the ARO is lost (Idle)");
});

test("Stun: the target is Stunned, its Guts Roll fails without a die, and the States Phase cancels it", () => {
  const { log, results } = play("stun");
  const lines = results[0].map(lineText);
  const guts = lines.find((l) => l.includes("makes a Guts Roll"));
  assert.match(guts ?? "", /: WIP 13: it failed a Saving Roll against Stun, so it fails without a die\. Failed/);
  assert.ok(log.some((l) => l.includes("Syndicate Enforcer (B-t3) is Stunned until the States Phase (Stunner (Stun))")), log.join("\n"));
  const states = log.indexOf("States Phase");
  assert.ok(states > 0, log.join("\n"));
  assert.equal(log[states + 1], "States Phase: Syndicate Enforcer (B-t3) is no longer Stunned (cancelled automatically, no roll)");
  assert.match(log[states + 2], /^Player A's turn ended/);
  // A Stunned trooper's MOD on its rolls is named.
  assert.equal(d.successValueText({ attribute: "PH", base: 11, mods: [{ source: "stunned", value: -3 }], success_value: 8 }), "PH 11 −3 Stunned = SV 8");
});

test("chess clocks: a switch, a hold and a time-out in words", () => {
  assert.equal(d.textOf(d.describeEvent({ type: "clock_switched", at_ms: 1, running: "B", remaining: { A: 4_439_500, B: 4_500_000 } })),
    "Chess clock: player B's runs (A 1:14:00, B 1:15:00 left)");
  assert.equal(d.textOf(d.describeEvent({ type: "clock_switched", at_ms: 1, running: null, remaining: { A: 0, B: 61_001 } })),
    "Chess clocks stopped (A 0:00, B 1:02 left)");
  assert.equal(d.textOf(d.describeEvent({ type: "clocks_held", from_ms: 15_000, to_ms: 70_000, remaining: { A: 45_000, B: 60_000 } })),
    "Chess clocks held for 0:55: nobody could play while the referee was down (A 0:45, B 1:00 left)");
  assert.equal(d.textOf(d.describeEvent({ type: "clock_ran_out", side: "A", at_ms: 1 })),
    "Player A's time ran out: no more Orders after the current one (it still declares AROs)");
});

test("a player's acceptance of both lists' not-refereed items in the log", () => {
  assert.equal(d.textOf(d.describeEvent({ type: "armies_accepted", side: "B" })),
    "Player B accepted both lists, with what the referee does not play");
});

test("fighting skills in words: NWI and Dogged keep a trooper up, Dogged dies in the States Phase, Courage passes Guts, Immunity and Martial Arts", () => {
  assert.match(d.textOf(d.effectText({ type: "incapacitation_ignored", trooper: "B-t3", skill: "nwi" })),
    /fights on with No Wound Incapacitation: treated as Normal; one more wound kills it$/);
  assert.match(d.textOf(d.effectText({ type: "incapacitation_ignored", trooper: "B-t3", skill: "dogged" })),
    /fights on with Dogged: treated as Normal until the States Phase of this turn, then Dead/);
  assert.match(d.textOf(d.describeEvent({ type: "states_phase_checked", round: 1, turn: 1, stunned_cancelled: [], dogged_dead: ["B-t3"] })),
    /^States Phase: .*B-t3.* dies: Dogged lasts only to the end of the turn$/);
  const courage = { trooper: "B-t3", skill: "guts", target: null, weapon: null, attribute: "WIP", base: 13, mods: [], success_value: 13,
    burst: 1, dice: [], cancelled: [], successes: 1, criticals: 0, opposed_by: [], courage: true };
  const lines = d.outcomeLines({ rolls: [courage], saves: [], effects: [] }).map(lineText);
  assert.ok(lines.some((l) => l.includes("WIP 13: Courage passes it, no die rolled.")), lines.join("\n"));
  assert.equal(d.successValueText({ attribute: "CC", base: 23, mods: [{ source: "martial_arts", value: 3 }, { source: "martial_arts_opponent", value: -3 }], success_value: 23 }),
    "CC 23 +3 Martial Arts −3 enemy Martial Arts = SV 23");
});

test("Smoke: the roll at a point, the zone it leaves, and the States Phase removing it", () => {
  const placed = d.textOf(d.effectText({ type: "zone_placed", trooper: "A-t7", weapon: "smoke_grenades",
    zone: { kind: "smoke", centre: [22.5, 10], radius: 1.5, placed_by: "A-t7" } }));
  assert.match(placed, /leaves a Smoke zone at \(22\.5, 10\.0\).*no Line of Fire through it until the States Phase, but for a Multispectral Visor/);
  const eclipse = d.textOf(d.effectText({ type: "zone_placed", trooper: "A-t7", weapon: "eclipse_grenades",
    zone: { kind: "eclipse", centre: [1, 2], radius: 1.5, placed_by: "A-t7" } }));
  assert.match(eclipse, /Eclipse zone/);
  assert.doesNotMatch(eclipse, /Multispectral/);
  const lines = d.outcomeLines({ rolls: [{ trooper: "A-t7", skill: "bs_attack", target: null, weapon: "smoke_grenades",
    attribute: "BS", base: 11, mods: [{ source: "range", value: 3 }], success_value: 14, burst: 1,
    dice: [{ face: 5, value: 5, success: true, critical: false }], cancelled: [false], successes: 1, criticals: 0,
    opposed_by: [], zone_at: [22.5, 10] }], saves: [], effects: [] });
  assert.match(lineText(lines[0]), /smoke_grenades|Smoke/);
  assert.match(lineText(lines[0]), /at \(22\.5, 10\.0\)/);
  const cleared = d.describeEvent({ type: "states_phase_checked", round: 1, turn: 1, stunned_cancelled: [], zones_removed: 1 });
  assert.equal(d.textOf(/** @type {any} */ (cleared)), "States Phase: 1 Smoke/Eclipse zone removed");
});

test("Fireteam +1 SD: the extra die is shown, marked discarded, and takes no part (wiki N5 'Fireteam Bonuses', Level 2)", () => {
  const active = { trooper: "A-t7", skill: "bs_attack", target: "B-t3", weapon: "line_rifle", attribute: "BS", base: 12,
    mods: [{ source: "range", value: 0 }], success_value: 12, burst: 1,
    dice: [{ face: 10, value: 10, success: true, critical: false }, { face: 15, value: 15, success: false, critical: false }],
    cancelled: [false, false], discarded: [false, true], successes: 1, criticals: 0, opposed_by: [1] };
  const reactive = { trooper: "B-t3", skill: "bs_attack", target: "A-t7", weapon: "punch_carbine", attribute: "BS", base: 12,
    mods: [], success_value: 12, burst: 1, dice: [{ face: 9, value: 9, success: true, critical: false }],
    cancelled: [true], successes: 0, criticals: 0, opposed_by: [0] };
  const [a, b] = d.outcomeLines({ rolls: [active, reactive] });
  assert.deepEqual(dice(a), ["10:success", "15:discarded"]);
  assert.match(lineText(a), /Rolls 10 15 \(B1 \+1 SD: 15 discarded\)\. /);
  assert.match(lineText(b), /A-t7's best success, 10, cancels the 9/);
  assert.match(d.shotPreviewText({ template: false, distance: 10, attribute: "BS", base: 12, mods: [], sv: 12, burst: 3, sustained_dice: 1, automatic_failure: null }),
    /SV 12 at 10\.0", \+1 SD \(Fireteam: roll 1 more, discard the worst\)$/);
});

test("an Order that rolled nothing says who moved in it, or that nothing happened", () => {
  const moved = d.outcomeLines({ rolls: [], saves: [], effects: [] }, { moved: ["A-t7", "A-t8"] }).map(lineText);
  assert.deepEqual(moved, ["A-t7 and A-t8 moved; no roll."]);
  const idle = d.outcomeLines({ rolls: [], saves: [], effects: [] }, { moved: [] }).map(lineText);
  assert.deepEqual(idle, ["No roll, no effect."]);
});

test("a wound that leaves a trooper standing says so, never 'unhurt'", () => {
  assert.equal(d.textOf(d.effectText({ type: "wounded", trooper: "A-t2", wounds: 1, condition: "normal" })), "A-t2 now has 1 wound: still fighting");
});
