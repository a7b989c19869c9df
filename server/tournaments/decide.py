"""Check a request against a tournament's state and make the log entry that records it
(``server.tournaments.model`` folds it). Pure: no I/O; the rooms of ``start_round`` are
made by the caller (``server.tournaments.service``) and passed in."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from server.tournaments import tokens
from server.tournaments.mission_choice import checked_mission
from server.tournaments.model import Proposal, Tournament
from server.tournaments.next_round import propose
from server.tournaments.refusals import Refused, conflict
from server.tournaments.registered_lists import BroughtArmy
from server.tournaments.result_checks import check_consistent

MAX_PLAYERS = 256
ORGANIZER_ACTIONS = ("drop", "reinstate", "seed", "pair", "swap", "start_round", "correct",
                     "close", "close_registration", "open_registration", "set_mission")
RESULT_PREFIX = "result:"
Bring = Callable[[Mapping[str, Any]], BroughtArmy]
"""A registration's body -> the army it brings, checked (``registered_lists.brought_army``
for the tournament), or ``Refused``."""


def action_id_of(body: Mapping[str, Any]) -> str:
    action_id = body.get("action_id")
    if not isinstance(action_id, str) or not action_id:
        raise Refused("action_id_required", "every write takes an action_id: fresh random "
                      "text of 16 to 100 characters, sent again unchanged on a retry")
    if not 16 <= len(action_id) <= 100:
        raise Refused("bad_field", "action_id must be 16 to 100 characters")
    if action_id.startswith(RESULT_PREFIX):  # the games' own results' ids (game_result)
        raise Refused("bad_field", f"action_id may not start with {RESULT_PREFIX!r}")
    return action_id


def text(body: Mapping[str, Any], name: str, low: int, high: int) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not low <= len(value.strip()) <= high:
        raise Refused("bad_field", f"{name} must be text of {low} to {high} characters")
    return value.strip()


def integer(body: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused("bad_field", f"{name} must be a whole number in {low}..{high}")
    return value


def known_fields(body: Mapping[str, Any], known: set[str]) -> None:
    unknown = sorted(set(body) - known)
    if unknown:
        raise Refused("bad_field", f"unknown fields {unknown}")


def registration(state: Tournament, body: Mapping[str, Any], *, by_organizer: bool,
                 bring: Bring, registrant: str | None = None,
                 per_registrant: int = 0) -> tuple[dict[str, Any], str]:
    """The ``registered`` entry and the new player's token. ``registrant``: who registers
    themselves (``registration_limits.registrant``), holding at most ``per_registrant``
    places of the tournament at once (0: no limit); the organizer adds players beyond it."""
    known_fields(body, {"action_id", "name", "army", "list", "code", "organizer"})
    action_id = action_id_of(body)
    name = text(body, "name", 1, 40)
    if not by_organizer and state.status != "registration":
        raise conflict("registration_closed", "registration is closed: the organizer may "
                       "still add players between rounds")
    if not by_organizer and state.registration_closed:
        raise conflict("registration_closed", "the organizer closed registration: ask the "
                       "organizer to add you")
    if state.status == "playing":
        raise conflict("round_in_progress", "players are added between rounds")
    if state.status == "finished":
        raise conflict("tournament_over", "the tournament is over")
    _room_for_one_more(state)
    if not by_organizer and registrant is not None and per_registrant > 0:
        mine = sum(1 for p in state.players.values()
                   if p.registrant == registrant and state.holds_place(p))
        if mine >= per_registrant:
            raise conflict("registrations_per_address", f"{per_registrant} players of this "
                           "tournament were registered from this address; ask the organizer "
                           "to add more")
    brought = bring(body)  # after the cheap refusals: a code is expanded and checked here
    player = f"p{state.registered + 1}"
    token = tokens.new_token()
    entry = {"type": "registered", "action_id": action_id, "player": player, "name": name,
             "army": brought.army, "token_hash": tokens.token_hash(token),
             "sealed_token": tokens.seal(token, action_id, f"player:{state.id}"),
             "by_organizer": by_organizer}
    if brought.document is not None:  # the checked document, not the code: the round's
        entry["source"] = brought.source  # rooms never need the operator's data again
        entry["list"] = brought.document
    if not by_organizer and registrant is not None:
        entry["registrant"] = registrant
    return entry, token


def _room_for_one_more(state: Tournament) -> None:
    limit = min(state.settings.max_players, MAX_PLAYERS)
    if state.places_taken() >= limit:
        raise conflict("tournament_full", f"this tournament takes at most {limit} players "
                       "(a player dropped before playing frees a place)")


def organizer_action(state: Tournament, body: Mapping[str, Any]) -> dict[str, Any]:
    """The entry of an organizer action but ``start_round`` (``round_start_plan`` and
    ``round_started``)."""
    kind = body.get("type")
    action_id = action_id_of(body)
    base = {"type": kind, "action_id": action_id}
    common = {"organizer", "action_id", "type"}
    if kind in ("drop", "reinstate", "seed"):
        known_fields(body, common | {"player"} | ({"seed"} if kind == "seed" else set()))
        player = _player(state, body)
        _between_rounds(state)
        if kind == "reinstate" and not state.holds_place(state.players[player]):
            _room_for_one_more(state)  # it gave its place back when dropped
        entry = {**base, "player": player}
        if kind == "seed":
            if state.rounds:
                raise conflict("registration_closed", "seeds order round 1 only")
            seed = body.get("seed")
            if seed is not None:
                seed = integer(body, "seed", 1, 999)
            entry["seed"] = seed
        return entry
    if kind in ("close_registration", "open_registration"):
        known_fields(body, common)
        if state.rounds or state.status != "registration":
            raise conflict("registration_closed", "registration closes by itself when the "
                           "first round is paired; the organizer adds players after")
        return base
    if kind == "pair":
        known_fields(body, common)
        _may_pair(state)
        proposal = propose(state)
        return {**base, "type": "paired", "round": proposal.round,
                "tables": [list(t) for t in proposal.tables],
                "bye": proposal.bye}
    if kind == "swap":
        known_fields(body, common | {"players", "reason"})
        if state.proposal is None or state.status != "paired":
            raise conflict("not_paired", "swaps change a proposal: pair the round first")
        players = body.get("players")
        seated = {p for t in state.proposal.tables for p in t} | (
            {state.proposal.bye} if state.proposal.bye else set())
        if (not isinstance(players, list) or len(players) != 2 or players[0] == players[1]
                or not all(isinstance(p, str) for p in players)):
            raise Refused("bad_field", "players must be two different player ids")
        for player in players:
            if player not in seated:
                raise Refused("unknown_player", f"{player[:20]} is not in the proposal", 404)
        reason = body.get("reason", "")
        if not isinstance(reason, str) or len(reason) > 200:
            raise Refused("bad_field", "reason must be text of at most 200 characters")
        return {**base, "players": players, "reason": reason}
    if kind in ("correct", "close"):
        known_fields(body, common | {"round", "table", "result", "reason"})
        return {**base, **_result_change(state, body, kind)}
    if kind == "set_mission":
        known_fields(body, common | {"round", "mission"})
        round_number = integer(body, "round", 1, state.settings.rounds)
        if round_number <= state.round:
            raise conflict("round_already_started", f"round {round_number} has started: its "
                           "games are played on the mission its rooms were made with")
        mission = checked_mission(body.get("mission"), state.settings.ruleset)
        return {**base, "type": "mission_set", "round": round_number, "mission": mission}
    if kind == "start_round":
        raise AssertionError("start_round is planned by round_start_plan")
    raise Refused("unknown_action", f"type must be one of {list(ORGANIZER_ACTIONS)}")


def round_start_plan(state: Tournament, body: Mapping[str, Any]) -> tuple[Proposal, bool]:
    """The pairings a ``start_round`` starts, and whether they were proposed before it."""
    known_fields(body, {"organizer", "action_id", "type"})
    action_id_of(body)
    if state.proposal is not None and state.status == "paired":
        return state.proposal, True
    _may_pair(state)
    return propose(state), False


def round_started(state: Tournament, body: Mapping[str, Any], proposal: Proposal,
                  rooms: list[dict[str, Any]]) -> dict[str, Any]:
    """``rooms``: per table, in order, {room, layout, seat_a, seat_b, room_organizer}, each
    made with the round's mission (``Tournament.mission_for``), which the entry records."""
    tables = [{"table": n, "a": a, "b": b, **room}
              for n, ((a, b), room) in enumerate(zip(proposal.tables, rooms, strict=True), 1)]
    entry = {"type": "round_started", "action_id": action_id_of(body),
             "round": proposal.round, "tables": tables, "bye": proposal.bye,
             "swaps": [{"players": list(s.players), "reason": s.reason}
                       for s in proposal.swaps]}
    mission = state.mission_for(proposal.round)
    if mission:
        entry["mission"] = mission
    return entry


def game_result(round_number: int, table: int, winner: str | None, vp: Mapping[str, int],
                op: Mapping[str, int], reason: str) -> dict[str, Any]:
    """A game's own result (its winner, VP and OP as the game decided them): its action id
    is the table's, so it is stored once however many nodes read the finished game."""
    return {"type": "result", "action_id": f"{RESULT_PREFIX}{round_number}:{table}",
            "round": round_number, "table": table, "winner": winner, "vp": dict(vp),
            "op": dict(op), "reason": reason}


def _player(state: Tournament, body: Mapping[str, Any]) -> str:
    player = body.get("player")
    if not isinstance(player, str) or player not in state.players:
        raise Refused("unknown_player", "no such player in this tournament", 404)
    return player


def _between_rounds(state: Tournament) -> None:
    if state.status == "playing":
        raise conflict("round_in_progress", "this waits until every table of the round has "
                       "a result")
    if state.status == "finished":
        raise conflict("tournament_over", "the tournament is over")


def _may_pair(state: Tournament) -> None:
    _between_rounds(state)
    if state.round >= state.settings.rounds:
        raise conflict("tournament_over", "every round has been played")
    if len(state.active_players()) < 2:
        raise conflict("not_enough_players", "pairing takes at least 2 players not dropped")


def _result_change(state: Tournament, body: Mapping[str, Any], kind: str) -> dict[str, Any]:
    round_number = integer(body, "round", 1, max(1, state.round))
    table_number = integer(body, "table", 1, 1000)
    if round_number > state.round:
        raise Refused("table_not_found", "no such round", 404)
    table = state.rounds[round_number - 1].table(table_number)
    if table is None:
        raise Refused("table_not_found", "no such table in that round", 404)
    reason = text(body, "reason", 1, 200)
    if kind == "correct" and table.result is None:
        raise conflict("no_result", "this table has no result to correct: close it")
    if kind == "close":
        if table.result is not None:
            raise conflict("result_exists", "this table has a result: correct it")
        if round_number != state.round:
            raise conflict("result_exists", "only tables of the last round are closed")
    result = body.get("result")
    if not isinstance(result, dict):
        raise Refused("bad_field", "result must be {winner, vp, op}")
    known_fields(result, {"winner", "vp", "op"})
    winner = result.get("winner")
    pair = (table.a, table.b)
    if winner is not None and winner not in pair:
        raise Refused("bad_field", "result.winner must be a player of the table or null")
    vp = _per_player(result.get("vp"), pair, "vp", 10_000, required=True)
    op = _per_player(result.get("op"), pair, "op", None, required=False)  # 0..10: below
    check_consistent(winner, vp, op, pair, state.players)
    return {"round": round_number, "table": table_number, "winner": winner, "vp": vp,
            "op": op, "reason": reason}


def _per_player(value: Any, pair: tuple[str, str], name: str, high: int | None, *,
                required: bool) -> dict[str, int]:
    """Each player's points; ``high`` None: any whole number (its range is checked with
    a reason of its own, ``result_checks``)."""
    if value is None and not required:
        return {pair[0]: 0, pair[1]: 0}
    if not isinstance(value, dict) or set(value) != set(pair):
        raise Refused("bad_field", f"result.{name} must give both players of the table")
    for points in value.values():
        if isinstance(points, bool) or not isinstance(points, int):
            raise Refused("bad_field", f"result.{name} must be whole numbers")
        if high is not None and not 0 <= points <= high:
            raise Refused("bad_field", f"result.{name} must be whole numbers in 0..{high}")
    return {player: int(value[player]) for player in pair}
