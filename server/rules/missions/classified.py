"""Classified Objectives (issue 37; docs/missions-classified.md): the draw, achievement and
reveal of each side's secret cards.

* **The draw** (``draw_due``, ``draw``): once both armies are chosen, before the Initiative
  Roll, each side draws ``draw_count`` cards of its ruleset's deck (``classified_deck``),
  side A first, from the room's dice: ``DICE_PER_PICK`` d20 per card, read as one number in
  base 20, choose among the cards not drawn yet (no card twice for one side; each side draws
  from a whole deck of its own). The number of dice never depends on which cards come, so
  every die after the draw is the same whatever was drawn, and the record's dice checks
  cover the draw (``ClassifiedDrawn.dice``).
* **Achievement** (``after_event``): after every event the engine folds
  (``produced.Produced.add``) each unachieved card is judged on what that event did — a
  trooper killed, Specialists in base contact, the last Player Turn over, a passed WIP Roll
  of the card's Short Skill — and a ``ClassifiedAchieved`` follows at once. A card is
  achieved once and scores once.
* **The card's Short Skill** (``classified_skill.py``; the command and ``options`` in
  ``classified_action.py``): the ``classified_action`` skill, declared in an Order like any
  Short Skill (ARO against it, resolved at Resolution); a passed roll is judged here.
* **The reveal**: a card is open once achieved; ``GameEnded.classified`` opens every card.

How many cards and how many Objective Points each is worth are the mission's
(``Mission.classified_draw``, ``classified_op``); an achieved card's OP go into the side's
total through ``points.award`` (the mission's cap holds).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..armies.skills import ClassifiedAction
from ..combat.dice import D20_FACES, roll_d20
from ..combat.outcome import CoupDeGrace, Outcome, RollRecord
from ..combat.wounds import Condition
from ..events import ClassifiedAchieved, ClassifiedDrawn, Event, GameEnded, OrderResolved, TurnEnded
from ..evolve import replace
from ..ids import Side, TrooperId
from ..plain import Plain
from ..state import ClassifiedCard, GameState, Phase, TrooperState
from ..table.geometry import in_base_contact
from .classified_deck import (
    ACTION,
    GAME_END_KINDS,
    KILL_KINDS,
    CardDefinition,
    card_definition,
    shipped_deck,
)
from .classified_skill import ACTION_ROLL, deployment_zone
from .points import award, capped

DICE_PER_PICK = 6
"""d20 per card drawn: 20^6 = 64,000,000 values, so choosing among a dozen cards by the
remainder is uniform to within two in ten million."""

CC_ROLLS = ("cc_attack",)
"""The roll records of a CC Attack (a Berserk attack records one too)."""

IN_A_ROUND = frozenset({Phase.TACTICAL, Phase.IMPETUOUS, Phase.ORDERS, Phase.STATES})


# --- what the mission says ----------------------------------------------------------------


def draw_count(state: GameState) -> int:
    """Cards each side draws (none without a mission)."""
    return state.mission.classified_draw if state.mission is not None else 0


def card_op(state: GameState) -> int:
    """Objective Points of one achieved card."""
    return state.mission.classified_op if state.mission is not None else 0


# --- the draw ------------------------------------------------------------------------------


def draw_due(state: GameState) -> bool:
    return (state.phase is Phase.INITIATIVE and state.initiative.winner is None
            and draw_count(state) > 0 and not state.classified)


def draw(state: GameState) -> list[Event]:
    """Both sides' draws (side A's first), each a ``ClassifiedDrawn`` with its dice."""
    ids = [card.id for card in shipped_deck(state.ruleset)]
    count = draw_count(state)
    if count > len(ids):
        raise ValueError(f"{count} Classified Objectives per side, but the "
                         f"{state.ruleset.value} deck holds {len(ids)} cards")
    dice = state.dice
    events: list[Event] = []
    for side in (Side.A, Side.B):
        faces, dice = roll_d20(dice, DICE_PER_PICK * count)
        events.append(ClassifiedDrawn(side, pick(ids, faces, count), dice))
        dice = dice.settled()
    return events


def pick(ids: Sequence[str], faces: Sequence[int], count: int) -> tuple[str, ...]:
    """``count`` distinct ids: each from ``DICE_PER_PICK`` faces read as a base-20 number,
    its remainder by the cards left choosing one of them (the rest keep their order)."""
    left = list(ids)
    chosen: list[str] = []
    for n in range(count):
        value = 0
        for face in faces[n * DICE_PER_PICK:(n + 1) * DICE_PER_PICK]:
            value = value * D20_FACES + (face - 1)
        chosen.append(left.pop(value % len(left)))
    return tuple(chosen)


def apply_classified_drawn(state: GameState, event: ClassifiedDrawn) -> GameState:
    cards = tuple(ClassifiedCard(card) for card in event.cards)
    return replace(state, classified={**state.classified, event.side: cards},
                   dice=event.dice.settled())


def apply_classified_achieved(state: GameState, event: ClassifiedAchieved) -> GameState:
    cards = tuple(replace(card, achieved=True, op=event.op) if card.id == event.card else card
                  for card in state.classified[event.side])
    return award(replace(state, classified={**state.classified, event.side: cards}),
                 event.side, event.op)


def achieved_points(state: GameState, side: Side) -> int:
    """The Objective Points ``side``'s achieved cards scored."""
    return sum(card.op for card in state.classified.get(side, ()))


# --- achievement ---------------------------------------------------------------------------


def after_event(before: GameState, after: GameState, event: Event) -> list[ClassifiedAchieved]:
    """The cards ``event`` (folded from ``before`` into ``after``) showed achieved."""
    if isinstance(event, ClassifiedAchieved | ClassifiedDrawn | GameEnded):
        return []
    found: list[ClassifiedAchieved] = []
    scored = after
    for side, cards in after.classified.items():
        for card in cards:
            if card.achieved:
                continue
            definition = card_definition(after.ruleset, card.id)
            assert definition is not None, f"{card.id} is not in the deck"
            how = _judge(definition, side, before, after, event)
            if how is not None:
                # What the card actually scores: the mission's cap holds across the cards
                # one event achieves at once.
                op = capped(scored, side, card_op(after))
                scored = award(scored, side, op)
                found.append(ClassifiedAchieved(side, card.id, op, f"{definition.title}: {how}"))
    return found


def _judge(card: CardDefinition, side: Side, before: GameState, after: GameState,
           event: Event) -> str | None:
    kind = card.achieved_by.kind
    if kind in KILL_KINDS:
        return _kill(kind, side, before, after, event)
    if kind in GAME_END_KINDS:
        return _at_game_end(kind, side, after, event) if _last_turn_over(after, event) else None
    if kind == ACTION:
        return _action_passed(card, side, before, event)
    return _specialist_in_contact(side, before, after)


def _killed(before: GameState, after: GameState, side: Side) -> Iterator[TrooperState]:
    """``side``'s troopers the event killed (Dead now, not before)."""
    if before.troopers is after.troopers:
        return
    for trooper in after.troopers_of(side):
        was = before.troopers.get(trooper.id)
        if trooper.condition is Condition.DEAD and was is not None \
                and was.condition is not Condition.DEAD:
            yield trooper


def _kill(kind: str, side: Side, before: GameState, after: GameState, event: Event) -> str | None:
    for victim in _killed(before, after, side.other):
        name = victim.profile.name
        if kind == "kill_specialist" and victim.profile.is_specialist:
            return f"{name}, a Specialist Troop, killed"
        if kind == "kill_in_home_zone":
            zone = deployment_zone(before, victim.side)
            was = before.trooper(victim.id)
            if zone is not None and was.position is not None and zone.touches_body(was.body()):
                return f"{name} killed inside its own deployment zone"
        if not isinstance(event, OrderResolved):
            continue
        for attacker in _killers(event.outcome, victim.id, after, side):
            if kind == "kill_in_close_combat" and _cc_attack(event.outcome, attacker.id, victim.id):
                return f"{name} killed in close combat by {attacker.profile.name}"
            if kind == "kill_by_specialist" and attacker.profile.is_specialist \
                    and attacker.on_table and not attacker.marker:
                return f"{name} killed by the Specialist {attacker.profile.name}"
    return None


def _killers(outcome: Outcome, victim: TrooperId, state: GameState,
             side: Side) -> Iterator[TrooperState]:
    """``side``'s troopers whose attack in ``outcome`` wounded ``victim`` (a failed save, or
    a Coup de Grâce, which needs none)."""
    seen: set[TrooperId] = set()
    attackers = [save.attacker for save in outcome.saves if save.trooper == victim and save.failed]
    attackers += [e.trooper for e in outcome.effects
                  if isinstance(e, CoupDeGrace) and e.target == victim]
    for attacker_id in attackers:
        attacker = state.troopers.get(attacker_id)
        if attacker is not None and attacker.side is side and attacker_id not in seen:
            seen.add(attacker_id)
            yield attacker


def _cc_attack(outcome: Outcome, attacker: TrooperId, victim: TrooperId) -> bool:
    return any(r.trooper == attacker and r.target == victim and r.skill in CC_ROLLS
               for r in outcome.rolls) or any(
        isinstance(e, CoupDeGrace) and e.trooper == attacker and e.target == victim
        for e in outcome.effects)


def _specialist_in_contact(side: Side, before: GameState, after: GameState) -> str | None:
    if after.phase not in IN_A_ROUND or before.troopers is after.troopers:
        return None
    enemies = [t for t in after.troopers_of(side.other) if _model_standing(t)]
    for own in after.troopers_of(side):
        if not (own.profile.is_specialist and _model_standing(own)):
            continue
        for enemy in enemies:
            if in_base_contact(own.body(), enemy.body()):
                return f"{own.profile.name} in base contact with {enemy.profile.name}"
    return None


def _model_standing(trooper: TrooperState) -> bool:
    """On the table as a model (not a Camouflage Marker, nor hidden) and not Null: what a
    card may name without telling anyone what a marker is."""
    return trooper.on_table and not trooper.marker and not trooper.is_null


def _last_turn_over(state: GameState, event: Event) -> bool:
    """The Player Turn that just ended is the game's last (its end follows at once)."""
    if not isinstance(event, TurnEnded):
        return False
    from ..orders.game_sequence import next_turn  # (game_sequence reads the state module)

    return isinstance(next_turn(state), GameEnded)


def _at_game_end(kind: str, side: Side, state: GameState, event: Event) -> str | None:
    if kind == "lieutenant_survives":
        lieutenant = next((t for t in state.troopers_of(side) if t.entry.lieutenant), None)
        if lieutenant is not None and lieutenant.position is not None and not lieutenant.is_null:
            return f"the Lieutenant, {lieutenant.profile.name}, stands at the end of the game"
        return None
    zone = deployment_zone(state, side.other)
    for own in state.troopers_of(side):
        if zone is not None and own.position is not None and not own.is_null \
                and zone.contains_body(own.body()):
            return f"{own.profile.name} stands inside the enemy deployment zone at the end of the game"
    return None


def _action_passed(card: CardDefinition, side: Side, before: GameState, event: Event) -> str | None:
    order = before.order
    if not isinstance(event, OrderResolved) or order is None:
        return None
    declared = {trooper_id for trooper_id in order.activated
                if any(isinstance(s, ClassifiedAction) and s.card == card.id
                       for s in order.for_trooper(trooper_id).skills)}
    for record in event.outcome.rolls:
        if record.skill == ACTION_ROLL and record.trooper in declared \
                and before.trooper(record.trooper).side is side and _passed(record):
            name = before.trooper(record.trooper).profile.name
            return f"{name} passed the WIP Roll ({_faces(record)} against {record.success_value})"
    return None


def _passed(record: RollRecord) -> bool:
    return record.successes + record.criticals > 0


def _faces(record: RollRecord) -> str:
    return ", ".join(str(die.face) for die in record.dice)


def card_plain(definition: CardDefinition, achieved: bool) -> dict[str, Plain]:
    """A card as its holder's view (and, once open, everyone's) shows it."""
    need = definition.achieved_by
    plain: dict[str, Plain] = {"id": definition.id, "title": definition.title,
                               "text": definition.text, "achieved": achieved, "kind": need.kind}
    if need.is_action:
        plain.update(who=need.who, target=need.target, where=need.where, wip_mod=need.wip_mod)
    return plain
