"""What a tournament shows (docs/tournaments.md): the public view, standings as JSON and
CSV, results, a player's own page, the organizer's registrations. Never a token but to its
holder (``player_page``); never a registered list's troopers but to its player and the
organizer (``registrations``): the public sees its name and faction only, as an opponent
sees them before the game (Private Information: who leads, who is deployed hidden)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from server.lobby.missions import mission_title
from server.tournaments.model import Outcome, Player, Round, Table, TableResult, Tournament
from server.tournaments.registered_lists import review
from server.tournaments.scoring import ScoringTable, tp_of
from server.tournaments.standings import Standing, standings

ArmyName = Callable[[str], tuple[str, str | None]]
"""A shipped list's id -> its name and faction (the id itself if no longer shipped)."""
CSV_FIELDS = ("rank", "player", "name", "army", "tp", "op", "vp", "sos", "played", "wins",
              "draws", "losses", "byes", "dropped")


def player_link(tournament_id: str, token: str) -> str:
    return f"/#tournament={tournament_id}&player={token}"


def organizer_link(tournament_id: str, token: str) -> str:
    return f"/#tournament={tournament_id}&organizer={token}"


def public_link(tournament_id: str) -> str:
    return f"/#tournament={tournament_id}"


def outcome_json(outcome: Outcome, scoring: ScoringTable) -> dict[str, Any]:
    return {"winner": outcome.winner, "tp": tp_of(outcome, scoring), "op": dict(outcome.op),
            "vp": dict(outcome.vp)}


def result_json(result: TableResult | None, scoring: ScoringTable
                ) -> dict[str, Any] | None:
    """A table's result in force with what it replaced; TP by the tournament's table."""
    if result is None:
        return None
    current = result.current
    return {**outcome_json(current, scoring), "source": result.source,
            "reason": current.reason,
            "original": None if result.original is None else {
                **outcome_json(result.original, scoring), "reason": result.original.reason},
            "corrections": [{**outcome_json(c.outcome, scoring), "reason": c.outcome.reason,
                             "kind": c.kind, "at_version": c.at_version}
                            for c in result.corrections]}


def table_json(table: Table, scoring: ScoringTable) -> dict[str, Any]:
    return {"table": table.number, "a": table.a, "b": table.b, "repeat": table.repeat,
            "room": table.room, "layout": table.layout,
            "spectator_link": f"/#room={table.room}",
            "record": f"/api/rooms/{table.room}/record",
            "result": result_json(table.result, scoring)}


def mission_json(mission: str) -> dict[str, Any] | None:
    """A round's mission by its id and title (None: no mission, the annihilation game)."""
    return {"id": mission, "title": mission_title(mission)} if mission else None


def missions_json(tournament: Tournament) -> list[dict[str, Any]]:
    """Every round's mission, planned or played (``Tournament.mission_for``)."""
    return [{"round": n, "mission": mission_json(tournament.mission_for(n))}
            for n in range(1, tournament.settings.rounds + 1)]


def _swaps(round_: Round) -> list[dict[str, Any]]:
    return [{"players": list(s.players), "reason": s.reason} for s in round_.swaps]


def player_json(player: Player, army_name: ArmyName) -> dict[str, Any]:
    if player.document is None:
        name, faction = army_name(player.army)
    else:
        name, faction = str(player.document["name"]), str(player.document["faction"])
    return {"player": player.id, "name": player.name, "army": player.army,
            "army_name": name, "army_faction": faction, "army_source": player.source,
            "seed": player.seed, "dropped": player.dropped}


def registration_json(tournament: Tournament, player: Player) -> dict[str, Any]:
    """A registration's army as the organizer and its own player see it: valid or its first
    problem, the list's figures and its coverage (``registered_lists.review``)."""
    s = tournament.settings
    return {"player": player.id, "name": player.name, "army": player.army,
            "army_source": player.source, "dropped": player.dropped,
            **review(player.document, player.army, s.ruleset, s.point_limit)}


def registrations(tournament: Tournament) -> list[dict[str, Any]]:
    """Every registration, in registration order, for the organizer's dashboard."""
    return [registration_json(tournament, p)
            for p in sorted(tournament.players.values(), key=lambda p: p.order)]


def standing_json(row: Standing) -> dict[str, Any]:
    return {"rank": row.rank, "player": row.player.id, "name": row.player.name,
            "army": row.player.army, "dropped": row.player.dropped, "played": row.played,
            "wins": row.wins, "draws": row.draws, "losses": row.losses, "byes": row.byes,
            "tp": row.tp, "op": row.op, "vp": row.vp, "sos": row.sos}


def public_view(tournament: Tournament, army_name: ArmyName) -> dict[str, Any]:
    s = tournament.settings
    proposal = tournament.proposal
    played = tournament.played_pairs()
    return {
        "tournament": tournament.id, "name": tournament.name, "version": tournament.version,
        "created_ms": tournament.created_ms,
        "settings": {"rounds": s.rounds, "ruleset": s.ruleset, "point_limit": s.point_limit,
                     "aro_window_s": s.aro_window_s, "spectator_delay_s": s.spectator_delay_s,
                     "clock_s": s.clock_s, "tables": list(s.tables),
                     "visibility": s.visibility, "max_players": s.max_players,
                     "aro_min_open_s": s.aro_min_open_s, "scoring": s.scoring.plain()},
        "missions": missions_json(tournament),
        "status": tournament.status, "round": tournament.round,
        "registration_closed": tournament.registration_closed,
        "places_taken": tournament.places_taken(),
        "players": [player_json(p, army_name)
                    for p in sorted(tournament.players.values(), key=lambda p: p.order)],
        "proposal": None if proposal is None else {
            "round": proposal.round, "bye": proposal.bye,
            "mission": mission_json(tournament.mission_for(proposal.round)),
            "tables": [{"table": n, "a": a, "b": b, "repeat": frozenset((a, b)) in played}
                       for n, (a, b) in enumerate(proposal.tables, 1)],
            "swaps": [{"players": list(x.players), "reason": x.reason} for x in proposal.swaps]},
        "rounds": [{"round": r.number, "bye": r.bye, "swaps": _swaps(r),
                    "mission": mission_json(r.mission),
                    "tables": [table_json(t, s.scoring) for t in r.tables]}
                   for r in tournament.rounds],
        "standings": [standing_json(row) for row in standings(tournament)],
    }


def listing(tournament: Tournament) -> dict[str, Any]:
    return {"tournament": tournament.id, "name": tournament.name,
            "ruleset": tournament.settings.ruleset, "rounds": tournament.settings.rounds,
            "round": tournament.round, "status": tournament.status,
            "players": len(tournament.players), "created_ms": tournament.created_ms}


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A player's name is anyone's text: one a spreadsheet would run as a formula
    (``=HYPERLINK(...)``) starts with a quote instead (OWASP's CSV injection advice)."""
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def standings_csv(tournament: Tournament) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for row in standings(tournament):
        plain = standing_json(row)
        writer.writerow([csv_cell(plain[f]) for f in CSV_FIELDS])
    return out.getvalue()


def player_page(tournament: Tournament, player: Player, army_name: ArmyName
                ) -> dict[str, Any]:
    """A player's own page: its seat token of the current table is here, and only here."""
    rows = {row.player.id: row for row in standings(tournament)}
    games = []
    current = None
    for round_ in tournament.rounds:
        for table in round_.tables:
            seat = table.seat_of(player.id)
            if seat is None:
                continue
            game = {"round": round_.number, "table": table.number,
                    "opponent": table.opponent(player.id), "seat": seat, "room": table.room,
                    "record": f"/api/rooms/{table.room}/record",
                    "mission": mission_json(round_.mission),
                    "result": result_json(table.result, tournament.settings.scoring)}
            games.append(game)
            if round_ is tournament.current:
                token = table.seat_a if seat == "A" else table.seat_b
                current = {**game, "seat_token": token,
                           "seat_link": f"/#room={table.room}&token={token}",
                           "spectator_link": f"/#room={table.room}"}
                del current["record"]
    last = tournament.current
    return {"player": player_json(player, army_name),
            "registration": registration_json(tournament, player),
            "standing": standing_json(rows[player.id]), "current": current,
            "bye": last is not None and last.bye == player.id, "games": games,
            "view": public_view(tournament, army_name)}
