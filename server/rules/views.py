"""What each viewer may see: pure projections of the state and of each event.

Private information (DIGEST 11.2, seeds 002/004): what a Camouflage Marker is, troopers in
Hidden Deployment and their Orders, the Lieutenant's identity, Cost and SWC, and a
standing choice to fail Guts Rolls (until a Guts record shows it used). The dice
generator's state is never shown to anyone (it would predict future rolls). A seat sees all
of its own side; the opponent and spectators see open information only. A caster sees
every side as its owner does (the omniscient view; the server shows it only late).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import events as e
from .armies.army_catalogue import is_shipped_weapon
from .combat.mines import MINE_PROFILE
from .ids import CASTER, SPECTATOR, Side, TrooperId, Viewer, WeaponId
from .missions.catalogue import view as mission_view
from .missions.classified import achieved_points, card_plain
from .missions.classified_deck import CardDefinition, card_definition
from .orders.aro_eligibility import seen_by_opponent
from .orders.fireteams import fireteam_level
from .plain import Plain, to_plain
from .state import MARKER_SILHOUETTE, Deployable, GameState, Phase, TrooperState

PRIVATE_PROFILE_FIELDS = ("cost", "swc")

MINE_MARKER_CAMOUFLAGE = 3
"""A Mine stands as a CAMO (-3) marker (the wiki's "Mines"): what its marker shows."""


def _sees_private(viewer: Viewer, side: Side) -> bool:
    return viewer is side or viewer is CASTER


def _public_profile(profile: Any) -> dict[str, Plain]:
    plain: dict[str, Plain] = to_plain(profile)
    for name in PRIVATE_PROFILE_FIELDS:
        plain.pop(name, None)
    return plain


def view_trooper(trooper: TrooperState, viewer: Viewer, state: GameState) -> dict[str, Plain] | None:
    """One trooper as the viewer sees it, or None if the viewer may not know it exists."""
    if _sees_private(viewer, trooper.side):
        plain: dict[str, Plain] = to_plain(trooper)
        plain["entry"] = {
            "id": trooper.entry.id,
            "combat_group": trooper.entry.combat_group,
            "lieutenant": trooper.entry.lieutenant,
            "controller": trooper.entry.controller,
        }
        plain["profile"] = to_plain(trooper.profile)
        return plain
    if trooper.hidden or trooper.position is None:
        return None
    base: dict[str, Plain] = {
        "id": trooper.id,
        "side": trooper.side.value,
        "position": list(trooper.position),
        "facing": trooper.facing,
        "marker": trooper.marker,
    }
    if trooper.marker:
        base["camouflage"] = trooper.profile.camouflage
        base["silhouette"] = trooper.profile.silhouette
        return base
    base.update(
        profile=_public_profile(trooper.profile),
        wounds=trooper.wounds,
        condition=trooper.condition.value,
        prone=trooper.prone,
        targeted=trooper.targeted,
        isolated=trooper.isolated,
        immobilized_b=trooper.immobilized_b,
        suppressive_fire=trooper.suppressive_fire,
        stunned_in=list(trooper.stunned_in) if trooper.stunned_in else None,
        dogged_in=list(trooper.dogged_in) if trooper.dogged_in else None,
        combat_group=trooper.entry.combat_group,
        weapon_uses=_public_uses(trooper, state),
    )
    return base


def _public_uses(trooper: TrooperState, state: GameState) -> dict[str, Plain]:
    """Uses spent, but not those of Mines: how many a Minelayer placed is as private as
    what its markers are (``combat/mines.py``)."""
    army = state.armies.get(trooper.side)
    return {weapon: uses for weapon, uses in trooper.weapon_uses.items()
            if army is None or not army.weapon(WeaponId(weapon)).is_mine}


def _mine_marker(mine: Deployable) -> dict[str, Plain]:
    """An undiscovered Mine as the others see it: the very fields, in the same order, of a
    trooper's Camouflage Marker (``view_trooper``); its id is drawn as a trooper's."""
    return {"id": mine.id, "side": mine.side.value, "position": list(mine.position),
            "facing": mine.facing, "marker": True, "camouflage": MINE_MARKER_CAMOUFLAGE,
            "silhouette": MARKER_SILHOUETTE}


def _view_deployables(state: GameState, viewer: Viewer) -> tuple[list[Plain], list[Plain]]:
    """(markers shown among the troopers, deployables shown as such) for ``viewer``."""
    markers: list[Plain] = []
    shown: list[Plain] = []
    for mine in state.deployables.values():
        if _sees_private(viewer, mine.side) or mine.discovered:
            shown.append(to_plain(mine))
        else:
            markers.append(_mine_marker(mine))
    return markers, shown


def _army_summary(state: GameState, side: Side) -> dict[str, Plain]:
    """An opponent's view of a list: its open contents, without the Lieutenant, costs,
    Hidden Deployment or Combat Jump troopers (whose presence is Private Information,
    DIGEST 11.2) or which trooper id hides behind a Camouflage Marker."""
    army = state.armies[side]
    shown = [entry for entry in army.entries
             if not entry.profile.hidden_deployment and not entry.profile.combat_jump]
    roster = [
        {"unit": entry.profile.name, "combat_group": entry.combat_group,
         "not_refereed": list(entry.not_refereed)}
        for entry in shown
    ]
    # The weapons the list defines itself (a converted army code's), so an open profile's
    # weapon ids have names and figures: only those the shown troopers carry, so a private
    # trooper's own weapon does not give it away.
    carried = {weapon for entry in shown for weapon in entry.profile.weapons}
    return {
        "id": army.id,
        "name": army.name,
        "faction": army.faction,
        "format": army.format.value,
        "points": army.points,
        "source": army.source,
        "roster": roster,
        "weapons": [to_plain(weapon) for weapon in army.arsenal
                    if weapon.id in carried and not is_shipped_weapon(weapon.id)],
    }


def view_state(state: GameState, viewer: Viewer) -> dict[str, Plain]:
    """The viewer's whole snapshot of the game."""
    troopers: list[Any] = [
        view
        for trooper in state.troopers.values()
        if (view := view_trooper(trooper, viewer, state)) is not None
    ]
    mine_markers, deployables = _view_deployables(state, viewer)
    # Models first, in the lists' order (open troopers: the order every viewer saw them come
    # in when players deploy in that order, which the apps' ordinals follow); then every
    # marker, the Mines' among them, in id order (ids are opaque, combat/mines.py): neither a
    # marker's place in the list nor the order itself tells a Mine, or a unit, apart.
    models = [t for t in troopers if not t.get("marker")]
    markers = sorted([*(t for t in troopers if t.get("marker")), *mine_markers],
                     key=lambda t: str(t["id"]))
    troopers = [*models, *markers]
    armies = {
        side.value: (to_plain(army) if _sees_private(viewer, side) else _army_summary(state, side))
        for side, army in state.armies.items()
    }
    return {
        "ruleset": state.ruleset.value,
        "phase": state.phase.value,
        "round": state.round,
        "turn": state.turn,
        "active": state.active.value if state.active else None,
        "table": to_plain(state.table),
        "deployment_zones": to_plain(state.deployment_zones),
        "initiative": to_plain(state.initiative),
        "deployment": {"step": state.deployment.step},
        "armies": armies,
        # Who accepted both lists' not-refereed items (``accept_armies``): open to everyone.
        "armies_accepted": sorted(side.value for side in state.armies_accepted),
        "troopers": troopers,
        "orders": _view_orders(state, viewer),
        "order": _view_order(state, viewer),
        "orders_spent": state.orders_spent,
        "command_tokens": to_plain(state.command_tokens),
        # Fireteams are open information: their type, leader, members and Level
        # (orders/fireteams.py; no member is ever a Marker or hidden: the rules bar them).
        "fireteams": [{**to_plain(team), "level": fireteam_level(state, team.members)}
                      for team in state.fireteams],
        # Deployables (combat/mines.py): all of its own side's, and Discovered ones; the
        # others stand among the troopers as Camouflage Markers.
        "deployables": deployables,
        "loss_of_lieutenant": sorted(s.value for s in state.loss_of_lieutenant),
        "retreat": sorted(s.value for s in state.retreat),
        "result": to_plain(state.result),
        # The mission, the OP scored so far and the markers activated: open to everyone
        # (docs/missions.md); None and empty in a game without a mission.
        "mission": mission_view(state.mission) if state.mission is not None else None,
        "objective_points": {side.value: op for side, op in state.objective_points.items()},
        "objective_activations": [to_plain(a) for a in state.objective_activations],
        # The new Lieutenant this seat named (``lieutenant``); never the other side's.
        "lieutenant_choice": (state.lieutenant_choice.get(viewer)
                              if isinstance(viewer, Side) else None),
        "classified": _view_classified(state, viewer),
    }


# --- Classified Objectives (missions/classified.py) ---------------------------------------


def _view_classified(state: GameState, viewer: Viewer) -> dict[str, Plain]:
    """Per side that drew cards: how many, the Objective Points they scored, and the cards
    the viewer may read: all of its own side's (a caster: every side's), anyone's once
    achieved, every card once the game is over. Nothing else tells one card from another."""
    over = state.phase is Phase.GAME_OVER
    shown: dict[str, Plain] = {}
    for side, cards in state.classified.items():
        readable = [card for card in cards
                    if _sees_private(viewer, side) or card.achieved or over]
        if not _sees_private(viewer, side):
            # By id, not in the order drawn: that order is the holder's, and a view that
            # learns the cards one by one (``classified_achieved``) can keep this one.
            readable.sort(key=lambda card: card.id)
        shown[side.value] = {
            "count": len(cards),
            "op": achieved_points(state, side),
            "cards": [card_plain(_definition(state, card.id), card.achieved) for card in readable],
        }
    return shown


def _classified_achieved(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """The card, now open, as the views show it (``card_plain``), for the viewers that could
    not read it before."""
    if not _sees_private(viewer, event.side):
        plain["card_view"] = card_plain(_definition(state, event.card), True)
    return plain


def _definition(state: GameState, card_id: str) -> CardDefinition:
    definition = card_definition(state.ruleset, card_id)
    assert definition is not None, f"{card_id} is not in the deck"
    return definition


def _classified_drawn(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """The draw: its side (and casters) read the card ids; every other viewer gets the same
    event with the ids left out, only their count (the same bytes whatever was drawn)."""
    if _sees_private(viewer, event.side):
        return {**plain, "count": len(event.cards)}
    return {"type": plain["type"], "side": event.side.value, "count": len(event.cards)}


# --- end of Classified Objectives --------------------------------------------------------


def _view_orders(state: GameState, viewer: Viewer) -> dict[str, Plain]:
    plain: dict[str, Plain] = to_plain(state.orders)
    if state.active is not None and not _sees_private(viewer, state.active):
        plain["lieutenant"] = state.orders.lieutenant is not None
    if state.active is None or not _sees_private(viewer, state.active):
        plain["hidden"] = []  # private Orders of troopers in Hidden Deployment (seeds 002/004)
    return plain


def _eligibility_seen(plain: dict[str, Plain], trooper: TrooperState,
                      viewer: Viewer) -> dict[str, Plain] | None:
    """``plain`` (an ``Eligibility``'s) as ``viewer`` may see it, or None: the opponent and
    spectators never see the eligibility of a trooper in Hidden Deployment or of a
    Camouflage Marker (``aro_eligibility.seen_by_opponent``; docs/fair-play.md)."""
    if _sees_private(viewer, trooper.side) or seen_by_opponent(trooper):
        return plain
    return None


def _view_order(state: GameState, viewer: Viewer) -> dict[str, Plain] | None:
    order = state.order
    if order is None:
        return None
    plain: dict[str, Plain] = to_plain(order)
    # The rules core's memory of how the activated troopers faced at the start (their
    # facing then was seen on the table); the clients' folds of the events do not keep it.
    del plain["start_facings"]
    seen = {}
    for trooper_id, entry in plain["eligible"].items():
        trooper_id = TrooperId(trooper_id)
        view = _eligibility_seen(entry, state.trooper(trooper_id), viewer)
        if view is not None:
            seen[trooper_id] = view
    plain["eligible"] = seen
    plain["eligible_at_step"] = {k: v for k, v in plain["eligible_at_step"].items() if k in seen}
    plain["passed"] = [t for t in plain["passed"] if t in seen]
    return plain


def view_event(event: e.Event, viewer: Viewer, state: GameState) -> dict[str, Plain] | None:
    """The event as ``viewer`` may see it, or None: the viewer may not know of it at all (it
    is left out of that viewer's numbering). ``state`` is any state after the event (the
    room's current one): it is only used for facts that never change once set (army
    lists, sides)."""
    return view_event_from_plain(event, to_plain(event), viewer, state)


def view_event_from_plain(
    event: e.Event, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """``view_event`` from the event's whole plain form (``event_to_plain``), made once and
    shared by every viewer: it is not changed. An event that no viewer sees differently
    gets the same view object for each of them."""
    seen = {key: value for key, value in plain.items() if key != "dice"}
    redact = _REDACTIONS.get(type(event))
    # Redactions only (re)assign top-level keys of their own copy, never nested values.
    return seen if redact is None else redact(event, seen, viewer, state)


def shares_one_view(event: e.Event) -> bool:
    """Every viewer sees this event the same way: no redaction applies to its kind, or none
    changes this one (the room then makes one view and one frame for everyone)."""
    if type(event) not in _REDACTIONS:
        return True
    alike = _ALIKE_FOR_EVERYONE.get(type(event))
    return alike is not None and alike(event)


_ALIKE_FOR_EVERYONE: dict[type[e.Event], Callable[[Any], bool]] = {
    # ``_outcome`` adds the revealed profiles for everyone alike.
    e.OrderResolved: lambda event: True,
    e.AroWindowOpened: lambda event: not event.hidden and event.public == event.eligible,
    e.AroWindowClosed: lambda event: not event.lost_hidden,
    e.AroPassed: lambda event: not event.hidden,
    e.AroDeclared: lambda event: not event.revealed,
    e.TerrainTypeChosen: lambda event: event.public,
    e.TurnEnded: lambda event: event.new_lieutenant is None,
}
"""Per redacted kind, when an event of it reads the same for every viewer."""


def _army_chosen(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    if _sees_private(viewer, event.side):
        return plain
    return {"type": plain["type"], "side": event.side.value, "army": _army_summary(state, event.side)}


def _open_facts(trooper: TrooperState) -> dict[str, Plain]:
    """What the others' view of a trooper on the table holds (``view_trooper``) that the
    events that put it there, or reveal it, do not carry: its open profile and its Combat
    Group."""
    return {"profile": _public_profile(trooper.profile),
            "combat_group": trooper.entry.combat_group}


def _trooper_deployed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    trooper = state.trooper(event.trooper)
    if _sees_private(viewer, trooper.side):
        return plain
    if event.hidden:
        return None
    if event.marker:
        plain["camouflage"] = trooper.profile.camouflage
        plain["silhouette"] = trooper.profile.silhouette
    else:
        plain.update(_open_facts(trooper))
    plain["side"] = trooper.side.value
    return plain


def _mine_placed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Others see a Mine placed exactly as a Camouflage Marker deployed (``_trooper_deployed``)."""
    if _sees_private(viewer, event.side):
        return plain
    return {"type": e.TrooperDeployed.TYPE, "trooper": event.mine,
            "position": list(event.position), "facing": event.facing, "hidden": False,
            "marker": True, "camouflage": MINE_MARKER_CAMOUFLAGE,
            "silhouette": MARKER_SILHOUETTE, "side": event.side.value}


def _mines_lost(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    return plain if _sees_private(viewer, state.trooper(event.owner).side) else None


def _terrain_type_chosen(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """The Type of Terrain chosen is part of the profile: open for a Model, its side's for a
    Camouflage Marker or a trooper in Hidden Deployment (``orders/terrain_skill.py``)."""
    return plain if event.public or _sees_private(viewer, state.trooper(event.trooper).side) else None


def _orders_counted(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    if not _sees_private(viewer, event.side):
        plain["lieutenant"] = event.lieutenant is not None
        plain["hidden"] = []  # private Orders of troopers in Hidden Deployment (seeds 002/004)
    return plain


def _window_opened(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    public = plain.pop("public")
    if event.eligible and _sees_private(viewer, state.trooper(event.eligible[0].trooper).side):
        return plain
    plain["eligible"] = public
    plain["hidden"] = []
    return plain


def _aro_passed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    if event.hidden and not _sees_private(viewer, state.trooper(event.trooper).side):
        return None
    return plain


def _window_closed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    if event.lost_hidden and not _sees_private(viewer, state.trooper(event.lost_hidden[0]).side):
        plain["lost_hidden"] = []
    return plain


def _aro_declared(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    trooper = state.trooper(event.trooper)
    if event.revealed and not _sees_private(viewer, trooper.side):
        plain.update(_open_facts(trooper))
    return plain


def _outcome(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Revealed markers show their profile to everyone from now on, and a trooper's Combat
    Group (the view of a trooper on the table holds it; a Camouflage Marker's does not)."""
    revealed = {
        # A Mine Discovered (combat/mines.py) is not a trooper: every Mine has one profile.
        effect["trooper"]: _public_profile(state.troopers[effect["trooper"]].profile
                                           if effect["trooper"] in state.troopers
                                           else MINE_PROFILE)
        for effect in plain["outcome"]["effects"]
        if effect["type"] == "revealed"
    }
    if revealed:
        plain["profiles"] = revealed
        plain["combat_groups"] = {trooper_id: state.troopers[trooper_id].entry.combat_group
                                  for trooper_id in revealed if trooper_id in state.troopers}
    return plain


def _trooper_revealed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    trooper = state.trooper(event.trooper)
    if not _sees_private(viewer, trooper.side):
        plain.update(_open_facts(trooper), side=trooper.side.value)
    return plain


def _trooper_kept_airborne(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """A trooper kept in Airborne Deployment is its owner's secret (``airborne``)."""
    return plain if _sees_private(viewer, state.trooper(event.trooper).side) else None


def _guts_failure_chosen(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """A standing choice to fail Guts Rolls is the owner's secret until a Guts record
    shows it used (guts_choice.py)."""
    return plain if _sees_private(viewer, state.trooper(event.trooper).side) else None


def _suppressive_fire_changed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Open to all, but that of a Camouflage Marker or a trooper in Hidden Deployment names
    it: its owner's only (the marker's id is private)."""
    trooper = state.trooper(event.trooper)
    private = trooper.marker or trooper.hidden
    return plain if not private or _sees_private(viewer, trooper.side) else None


def _lieutenant_appointed(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Who the new Lieutenant is stays the player's secret (DIGEST 11.3)."""
    return plain if _sees_private(viewer, event.side) else None


def _turn_ended(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Who took office as the new Lieutenant stays the player's secret (DIGEST 11.3); that
    one did is open (the side leaves Loss of Lieutenant)."""
    if not _sees_private(viewer, event.side):
        plain["new_lieutenant"] = None
    return plain


def _infiltration_rolled(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Infiltration's roll (``infiltration``): a Camouflage Marker that passed shows others
    no roll record (its PH would tell what the Marker is)."""
    if event.passed and event.marker and not _sees_private(viewer, state.trooper(event.trooper).side):
        plain["roll"] = None
    return plain


def _chain_of_command(
    event: Any, plain: dict[str, Plain], viewer: Viewer, state: GameState
) -> dict[str, Plain] | None:
    """Who the new Lieutenant is stays the player's secret (``chain_of_command``)."""
    return plain if _sees_private(viewer, event.side) else None


_REDACTIONS = {
    e.InfiltrationRolled: _infiltration_rolled,
    e.ChainOfCommandTookOver: _chain_of_command,
    e.LieutenantAppointed: _lieutenant_appointed,
    e.TurnEnded: _turn_ended,
    e.GutsFailureChosen: _guts_failure_chosen,
    e.SuppressiveFireChanged: _suppressive_fire_changed,
    e.TrooperRevealed: _trooper_revealed,
    e.CombatJumpLanded: _trooper_revealed,  # on the table now: its open profile, for all
    e.TrooperKeptAirborne: _trooper_kept_airborne,
    e.ArmyChosen: _army_chosen,
    e.TrooperDeployed: _trooper_deployed,
    e.MinePlaced: _mine_placed,
    e.MinesLost: _mines_lost,
    e.TerrainTypeChosen: _terrain_type_chosen,
    e.OrdersCounted: _orders_counted,
    e.AroWindowOpened: _window_opened,
    e.AroPassed: _aro_passed,
    e.AroWindowClosed: _window_closed,
    e.AroDeclared: _aro_declared,
    e.OrderResolved: _outcome,
    e.ClassifiedDrawn: _classified_drawn,  # Classified Objectives
    e.ClassifiedAchieved: _classified_achieved,
}


def public_summary(state: GameState) -> dict[str, Plain]:
    """What the lobby lists about a live game."""
    return {
        "phase": state.phase.value,
        "round": state.round,
        "turn": state.turn,
        "active": state.active.value if state.active else None,
    }


__all__ = ["CASTER", "SPECTATOR", "public_summary", "shares_one_view", "view_event", "view_event_from_plain",
           "view_state", "view_trooper"]
