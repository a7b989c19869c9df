// A Coordinated Order's declaration (N5, DIGEST 3.4): every trooper of the Order declares the
// Spearhead's skill and, when it needs one, the Spearhead's single target. The Spearhead's
// choice decides; for each other trooper this works out what it declares with it, from its
// own options (`skills.peripherals[id]`), and says in words what that will do:
// - a BS Attack: one of its weapons that reaches the target, Burst 1; a trooper with none (no
//   Line of Fire to the target) still declares the attack, which it performs as Idle at
//   Resolution ("a participant failing a Requirement performs Idle; the others act");
// - a CC Attack: only the Spearhead rolls; a trooper in base contact with the target adds
//   +1 B, one that is not adds nothing;
// - a skill its own state forbids (Engaged, Stunned...; `idle_for`): Idle in its place.
// Pure: no DOM, unit-tested in test/coordinated-order.test.js.

/** The single target a skill names (a BS Attack's first), or null. @param {Record<string, any>} skill */
export function targetOf(skill) {
  if (Array.isArray(skill.targets)) return skill.targets[0]?.trooper ?? null;
  return skill.target ?? null;
}

/**
 * What one trooper of a Coordinated Order declares with the Spearhead's skill.
 * @param {Record<string, any>} skill the Spearhead's skill (a complete declaration)
 * @param {Record<string, any>} offered this trooper's options (`skills.peripherals[id]`)
 * @param {{ weapons?: string[], kindOf?: (weapon: string) => string | undefined, name?: (id: string) => string,
 *   weaponName?: (weapon: string) => string, preferred?: string | null }} [ctx] its profile's weapons, the
 *   catalogue's kinds, names for the words, and the weapon the player picked for it
 * @returns {{ skill: Record<string, any>, acts: boolean, note: string }} `acts`: whether it performs the
 *   skill (false: Idle, or a CC Attack that adds nothing)
 */
export function participantSkill(skill, offered, ctx = {}) {
  const name = ctx.name ?? ((id) => id);
  const wname = ctx.weaponName ?? ((w) => w);
  const type = skill.type;
  if ((offered.idle_for ?? []).includes(type)) {
    return { skill: { type: "idle" }, acts: false, note: "its state forbids this skill: Idle" };
  }
  const target = targetOf(skill);
  const ownWeapon = (kinds) => (ctx.weapons ?? []).find((w) => kinds.includes(ctx.kindOf?.(w) ?? ""));
  if (type === "bs_attack") {
    const reaching = Object.entries(offered.bs_attack ?? {}).filter(([, shot]) => shot.targets.includes(target)).map(([w]) => w);
    if (reaching.length) {
      const weapon = reaching.includes(ctx.preferred ?? "") ? /** @type {string} */ (ctx.preferred) : reaching[0];
      return { skill: { type, weapon, targets: [{ trooper: target, burst: 1 }] }, acts: true,
        note: `shoots ${name(target)} with ${wname(weapon)} (B1)` };
    }
    const weapon = Object.keys(offered.bs_attack ?? {})[0] ?? ownWeapon(["ballistic", "direct_template"]);
    if (!weapon) return { skill: { type: "idle" }, acts: false, note: "no shooting weapon: Idle" };
    return { skill: { type, weapon, targets: [{ trooper: target, burst: 1 }] }, acts: false,
      note: `no Line of Fire to ${name(target)}: declares the attack, performs Idle` };
  }
  if (type === "cc_attack") {
    const touching = Object.entries(offered.cc_attack ?? {}).filter(([, targets]) => targets.includes(target)).map(([w]) => w);
    if (touching.length) {
      return { skill: { type, weapon: touching[0], target }, acts: true, note: `in base contact with ${name(target)}: +1 B to the Spearhead's attack` };
    }
    const weapon = ownWeapon(["close_combat"]);
    if (!weapon) return { skill: { type: "idle" }, acts: false, note: "no CC weapon: Idle" };
    return { skill: { type, weapon, target }, acts: false, note: `not in base contact with ${name(target)}: adds nothing` };
  }
  if (type === "discover") {
    const sees = (offered.discover ?? []).includes(target);
    return { skill: { type, target }, acts: sees, note: sees ? `Discovers ${name(target)} too` : `no Line of Fire to ${name(target)}: performs Idle` };
  }
  if (type === "comms_attack") {
    const reaches = (offered.comms_attack?.[skill.program] ?? []).includes(target);
    return { skill: { type, program: skill.program, target }, acts: reaches,
      note: reaches ? `${wname(skill.program)} on ${name(target)} too` : `${name(target)} is outside its Hacking Area: performs Idle` };
  }
  return { skill: { type }, acts: true, note: type.replace("_", " ") };
}

/**
 * Whether a skill type may be declared in a Coordinated Order: the Spearhead must be offered
 * it; each other trooper either is too, or performs it as Idle (its state forbids it), or
 * declares it against the Spearhead's target and performs Idle (an attack, a Discover).
 * Movement skills: every trooper must be offered it or perform Idle.
 * @param {string} type @param {Record<string, any>} skills the order's `options.skills`
 * @returns {string | null} null when it may be declared, else why not (in words)
 */
export function coordinatedBlocker(type, skills, name = (/** @type {string} */ id) => id) {
  for (const [id, offered] of Object.entries(skills.peripherals ?? {})) {
    if ((offered.idle_for ?? []).includes(type)) continue;
    const route = ["move", "cautious_move", "jump", "climb"].includes(type);
    if (route && !(offered.route_skills ?? []).includes(type)) return `${name(id)} may not ${type.replace("_", " ")} now`;
    if (["idle", "dodge", "reset", "suppressive_fire"].includes(type) && !offered[type]) return `${name(id)} may not ${type.replace("_", " ")} now`;
  }
  return null;
}
