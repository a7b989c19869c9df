"""N5 Fireteams (DIGEST 3.5, 3.4): composition, forming, one Order for the team, Level,
integrity.

Read from the Infinity wiki's N5 pages "Fireteams Module" (who may not be in a Fireteam,
2 to 5 Troopers on one Regular Order, Coherency in the leader's Zone of Control, members of
a Fireteam never in a Coordinated Order), "Fireteams: Basic Rules" (created in the
Deployment Phase, or during the game by spending a Command Token; the player declares the
members), "Fireteam: Core" / "Fireteam: Haris" / "Fireteam: Duo" (sizes), "Fireteams Chart"
(how many of each type at once), "Fireteam Bonuses" (the Level: members of the same unit)
and "Coherency" (checked at the end of an Order). Judgement calls:
docs/rules-decisions/fireteams.md.
"""

from __future__ import annotations

from typing import Any

from server.rules.decision import Rejected
from server.rules.events import CommandTokenSpent, FireteamFormed, FireteamLeft, OrderResolved, OrderSpent
from server.rules.evolve import replace
from server.rules.ids import Side, TrooperId
from server.rules.orders.fireteams import fireteam_level
from server.rules.state import GameState, Phase
from server.rules.views import view_event, view_state
from tests.support.games import close_aro_window, decide, idle_out, new_game_in_deployment, play
from tests.support.scenarios import build_state

A, B = Side.A, Side.B
L7, L8, L9, SPRAY = "A-t7", "A-t8", "A-t9", "A-t10"  # Lancers (G1) and the Chain Spray Lancer (G1)
L11 = "A-t11"  # a Lancer of Combat Group 2
WARDEN, BULWARK, TINKER = "A-t1", "A-t2", "A-t4"


def _able(state: GameState, ids: list[str], **flags: Any) -> GameState:
    """Give these troopers' profiles the Fireteam fields (what the Fireteams Chart lists)."""
    for trooper_id in ids:
        trooper = state.trooper(TrooperId(trooper_id))
        profile = replace(trooper.profile, **flags)
        state = state.with_trooper(replace(trooper, entry=replace(trooper.entry, profile=profile)))
    return state


def _table(placements: dict[str, list[float]] | None = None) -> GameState:
    """A's first Orders Phase, N5; four Lancers of G1 side by side 2" apart, all able to
    join any Fireteam type; the spray Lancer counts as a Lancer for the Level."""
    spots = {L7: [10, 10, 90], L8: [12, 10, 90], L9: [14, 10, 90], SPRAY: [16, 10, 90],
             L11: [18, 10, 90], WARDEN: [10, 12, 90], BULWARK: [12, 12, 90],
             TINKER: [14, 12, 90], "B-t1": [40, 40, 270]}
    state = build_state({"ruleset": "n5", "terrain": [], "placements": {**spots, **(placements or {})}})
    state = _able(state, [L7, L8, L9, L11, WARDEN, TINKER],
                  fireteam_core=True, fireteam_haris=True, fireteam_duo=True)
    return _able(state, [SPRAY], fireteam_core=True, fireteam_unit="Lancer Line Trooper")


def _form(kind: str, leader: str, *members: str) -> dict[str, Any]:
    return {"type": "form_fireteam", "kind": kind, "leader": leader, "members": list(members)}


def _refused(state: GameState, body: dict[str, Any]) -> Rejected:
    decision = decide(state, A, body)
    assert isinstance(decision, Rejected), decision
    return decision


def test_a_core_formed_during_the_game_costs_a_command_token_and_is_open_to_the_opponent() -> None:
    """"Fireteams: Basic Rules": during the game, spend a Command Token and declare the
    members. Four Lancers: Level 4 (four of the same unit)."""
    state = _table()
    tokens = state.command_tokens.held[A]
    state, events = play(state, A, _form("core", L7, L8, L9, SPRAY))
    spent, formed = events[:2]
    assert isinstance(spent, CommandTokenSpent) and spent.use == "form_fireteam"
    assert spent.left == tokens - 1 and state.command_tokens.held[A] == tokens - 1
    assert formed == FireteamFormed(A, "core", TrooperId(L7), (L7, L8, L9, SPRAY), 4)
    (team,) = state.fireteams
    assert team.members == (L7, L8, L9, SPRAY) and team.leader == L7
    # Open information: the opponent's view of the table and of the event name the team and
    # its Level.
    assert view_state(state, B)["fireteams"] == [
        {"side": "A", "kind": "core", "leader": L7, "members": [L7, L8, L9, SPRAY], "level": 4}]
    assert view_event(formed, B, state) is not None


def test_the_level_counts_the_members_of_the_same_unit() -> None:
    """"Fireteam Bonuses": Level 1 when all differ, else how many share one unit."""
    state = _table()
    assert fireteam_level(state, [L7, WARDEN]) == 1
    assert fireteam_level(state, [L7, L8, WARDEN]) == 2
    assert fireteam_level(state, [L7, L8, L9, SPRAY, WARDEN]) == 4


def test_composition_refusals_say_why_in_a_players_words() -> None:
    state = _table()
    not_listed = _refused(state, _form("duo", L7, BULWARK))
    assert not_listed.code == "fireteam_not_allowed"
    assert "Bulwark Heavy Trooper (A-t2) may not join a Fireteam: Duo" in not_listed.message
    assert "same Combat Group" in _refused(state, _form("duo", L7, L11)).message
    assert "3 members" in _refused(state, _form("haris", L7, L8)).message
    assert "2 members" in _refused(state, _form("duo", L7, L8, L9)).message
    assert "2 to 5 members" in _refused(state, _form("core", L7)).message
    controller = _refused(state, _form("duo", L7, TINKER)).message
    assert "Peripheral or a Controller" in controller
    assert "Haris" in _refused(state, _form("haris", SPRAY, L7, L8)).message  # not listed for Haris


def test_members_must_stand_in_the_leaders_zone_of_control() -> None:
    """"Coherency": the members inside the leader's Zone of Control (8")."""
    state = _table({L9: [30, 10, 90]})  # 16" from L7
    message = _refused(state, _form("core", L7, L8, L9)).message
    assert "Lancer Line Trooper (A-t9) is not in Coherency" in message


def test_one_core_at_a_time_and_a_trooper_in_one_team_only() -> None:
    """"Fireteams Chart": the number of each type on the table at once (default: one Core,
    one Haris, Duos unlimited)."""
    state, _ = play(_table(), A, _form("duo", L7, L8))
    assert "already in a Fireteam" in _refused(state, _form("duo", L8, L9)).message
    state, _ = play(state, A, _form("core", L9, SPRAY))
    assert "only 1 Fireteam: Core" in _refused(state, _form("core", WARDEN, L11)).message


def test_forming_in_the_deployment_step_is_free_and_codeone_has_none() -> None:
    """"Fireteams: Basic Rules": during the Deployment Phase, with a Coherency check, no
    Command Token."""
    state = new_game_in_deployment("n5")
    side = state.initiative.deploys_first
    assert side is A
    first, second = (_game_id(state, A, entry) for entry in ("t7", "t8"))
    state = _able(state, [first, second], fireteam_duo=True)
    assert "on the table as a Model" in _refused(state, _form("duo", first, second)).message
    for trooper, spot in ((first, (10.0, 4.0)), (second, (12.0, 4.0))):
        state, _ = play(state, A, {"type": "deploy", "trooper": trooper, "position": list(spot),
                                   "facing": 90})
    tokens = state.command_tokens.held[A]
    state, events = play(state, A, _form("duo", first, second))
    assert [type(e) for e in events] == [FireteamFormed]
    assert state.command_tokens.held[A] == tokens
    codeone = new_game_in_deployment("codeone")
    ids = [t.id for t in codeone.troopers_of(A)][:2]
    assert _refused(codeone, _form("duo", *ids)).code == "not_allowed_by_ruleset"


def _game_id(state: GameState, side: Side, entry_id: str) -> str:
    return next(t.id for t in state.troopers_of(side) if t.entry.id == entry_id)


def test_one_regular_order_activates_the_whole_team_and_members_follow_in_coherency() -> None:
    """"Fireteams Module": one Regular Order; the members move with the leader and stay in
    its Zone of Control; they do not attack (they declare Idle when the leader does not
    move)."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    pool = state.orders.pools[1]
    state, events = play(state, A, {"type": "activate_fireteam", "leader": L8})
    (spent,) = [e for e in events if isinstance(e, OrderSpent)]
    assert spent.trooper == L8 and set(spent.peripherals) == {L7, L9}
    assert state.orders.pools[1] == pool - 1 and state.fireteams[0].leader == L8
    move = {"type": "declare_skill", "skill": {"type": "move", "route": [[12, 10], [12, 6]]},
            "peripherals": [{"trooper": L7, "skill": {"type": "move", "route": [[10, 10], [10, 6]]}},
                            {"trooper": L9, "skill": {"type": "move", "route": [[14, 10], [14, 7]]}}]}
    state, _ = play(state, A, move)
    assert state.trooper(TrooperId(L7)).position == (10, 6)
    state, _ = close_aro_window(state)
    shoot = {"type": "declare_skill",
             "skill": {"type": "bs_attack", "weapon": "line_rifle",
                       "targets": [{"trooper": "B-t1", "burst": 3}]},
             "peripherals": [{"trooper": L7, "skill": {"type": "bs_attack", "weapon": "line_rifle",
                                                       "targets": [{"trooper": "B-t1", "burst": 3}]}},
                             {"trooper": L9, "skill": {"type": "idle"}}]}
    refused = decide(state, A, shoot)
    assert isinstance(refused, Rejected) and refused.code == "fireteam_not_allowed"
    assert "only the leader performs bs_attack" in refused.message


def test_a_member_that_ends_a_move_out_of_coherency_is_refused() -> None:
    state, _ = play(_table({L7: [10, 30, 90], L8: [12, 30, 90]}), A, _form("duo", L7, L8))
    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    body = {"type": "declare_skill", "skill": {"type": "move", "route": [[10, 30], [6, 30]]},
            "peripherals": [{"trooper": L8, "skill": {"type": "move", "route": [[12, 30], [16, 30]]}}]}
    refused = decide(state, A, body)
    assert isinstance(refused, Rejected) and refused.code == "fireteam_not_allowed"
    assert "Coherency" in refused.message


def test_a_member_activated_alone_leaves_and_a_duo_is_cancelled() -> None:
    state, _ = play(_table(), A, _form("duo", L7, L8))
    state, events = play(state, A, {"type": "activate", "trooper": L8, "order": "regular"})
    assert events[0] == FireteamLeft(A, TrooperId(L7), TrooperId(L8), "activated_alone", True)
    assert state.fireteams == ()


def test_a_member_activated_alone_leaves_and_the_team_goes_on_without_it() -> None:
    """"Fireteam Integrity" (N5): a member that stops being part of the team leaves it; the
    team keeps its other members (and its Level falls with them)."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    state, events = play(state, A, {"type": "activate", "trooper": L9, "order": "regular"})
    assert events[0] == FireteamLeft(A, TrooperId(L7), TrooperId(L9), "activated_alone", False, 2)
    (team,) = state.fireteams
    assert team.members == (TrooperId(L7), TrooperId(L8)) and fireteam_level(state, team.members) == 2


def test_the_leader_activated_alone_cancels_the_team() -> None:
    """"Fireteam Integrity" (N5): the Fireteam Leader leaving the team cancels it."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    state, events = play(state, A, {"type": "activate", "trooper": L7, "order": "regular"})
    assert events[0] == FireteamLeft(A, TrooperId(L7), TrooperId(L7), "activated_alone", True)
    assert state.fireteams == ()


def _impetuous_team(leader: str) -> GameState:
    """B (vesper-raiders) in its Impetuous Phase; its Razorback (B-t6, Impetuous) in a
    Core with B-t1 and B-t2, led by ``leader``."""
    from server.rules.state import Fireteam

    spots = {"B-t6": [20, 20, 90], "B-t1": [22, 20, 90], "B-t2": [24, 20, 90], "A-t7": [20, 40, 270]}
    state = build_state({"ruleset": "n5", "terrain": [], "first": "B", "placements": spots})
    assert state.phase is Phase.IMPETUOUS
    members = (TrooperId("B-t6"), TrooperId("B-t1"), TrooperId("B-t2"))
    return replace(state, fireteams=(Fireteam(Side.B, "core", TrooperId(leader), members),))


def test_an_impetuous_member_taking_its_impetuous_order_leaves_the_team() -> None:
    """"Fireteam Integrity" (N5): an Impetuous member activated on its Impetuous Order in
    the Impetuous Phase acts alone, so it leaves (reason `impetuous`); the others stay a
    team. Were it the Fireteam Leader, the team would be cancelled."""
    impetuous = {"type": "activate", "trooper": "B-t6", "order": "impetuous"}
    state, events = play(_impetuous_team("B-t1"), Side.B, impetuous)
    assert events[0] == FireteamLeft(Side.B, TrooperId("B-t1"), TrooperId("B-t6"), "impetuous", False, 1)
    assert state.fireteams[0].members == (TrooperId("B-t1"), TrooperId("B-t2"))
    state, events = play(_impetuous_team("B-t6"), Side.B, impetuous)
    assert events[0] == FireteamLeft(Side.B, TrooperId("B-t6"), TrooperId("B-t6"), "impetuous", True)
    assert state.fireteams == ()


def test_a_null_member_leaves_between_orders_and_the_team_goes_on() -> None:
    """"Fireteams Module": troopers in a Null State are not part of a Fireteam."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    dead = state.trooper(TrooperId(L9))
    state = state.with_trooper(replace(dead, condition=dead.condition.__class__("dead")))
    state, _ = play(state, A, {"type": "activate", "trooper": WARDEN, "order": "regular"})
    assert len(state.fireteams[0].members) == 3, "checked between Orders, at the Order's end"
    state, events = idle_out(state)
    left = [e for e in events if isinstance(e, FireteamLeft)]
    assert left == [FireteamLeft(A, TrooperId(L7), TrooperId(L9), "null", False, 2)]
    assert state.fireteams[0].members == (L7, L8)


def test_a_null_leader_cancels_the_team() -> None:
    """DIGEST 3.5: the leader Null or Isolated cancels the team."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    leader = state.trooper(TrooperId(L7))
    state = state.with_trooper(replace(leader, isolated=True))
    state, _ = play(state, A, {"type": "activate", "trooper": WARDEN, "order": "regular"})
    state, events = idle_out(state)
    assert [e for e in events if isinstance(e, FireteamLeft)] == [
        FireteamLeft(A, TrooperId(L7), TrooperId(L7), "isolated", True)]
    assert state.fireteams == ()


def test_fireteam_members_take_no_part_in_a_coordinated_order() -> None:
    """DIGEST 3.4: Fireteam members are excluded from Coordinated Orders."""
    state, _ = play(_table(), A, _form("duo", L7, L8))
    body = {"type": "coordinate_order", "spearhead": L9, "troopers": [L7]}
    refused = decide(state, A, body)
    assert isinstance(refused, Rejected)
    assert state.phase is Phase.ORDERS


def test_options_offer_the_teams_the_rules_accept_and_members_only_follow() -> None:
    """`options` tells the truth: each offered leader with its listed troopers is accepted;
    in the team's Order a member is offered movement and Idle, never an attack."""
    from server.rules.options import seat_options

    state = _table()
    offered = seat_options(state, A)["fireteams"]
    assert offered["cost"] == "command_token"
    duo = offered["form"]["duo"]
    assert duo["sizes"] == [2, 2] and set(duo["leaders"][L7]) >= {L8, L9, WARDEN}
    assert TINKER not in duo["leaders"] and L11 not in duo["leaders"][L7]
    for member in duo["leaders"][L7]:
        assert not isinstance(decide(state, A, _form("duo", L7, member)), Rejected), member
    state, _ = play(state, A, _form("core", L7, L8, L9))
    offered = seat_options(state, A)["fireteams"]
    assert "core" not in offered["form"]
    assert set(offered["activate"]) == {L7, L8, L9}
    assert offered["teams"] == [{"kind": "core", "leader": L7, "members": [L7, L8, L9], "level": 3}]
    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    skills = seat_options(state, A)["skills"]
    assert skills["fireteam"] is True and skills["bs_attack"], "the leader may shoot"
    for member in (L8, L9):
        assert skills["peripherals"][member]["bs_attack"] == {}
        assert skills["peripherals"][member]["idle"] is True
        assert "move" in skills["peripherals"][member]["route_skills"]


def _leader_shot(state: GameState) -> dict[str, Any]:
    from server.rules.options import seat_options

    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    shot: dict[str, Any] = seat_options(state, A)["skills"]["bs_attack"]["line_rifle"]["shots"]["B-t1"]
    return shot


def test_level_4_gives_the_leaders_bs_attack_plus_1_shown_in_options_and_rolled() -> None:
    """"Fireteam Bonuses" (DIGEST 3.5): Level 4, +1 BS; Level 3 has no such bonus. `options`
    shows the final Success Value with it, and Resolution rolls with it."""
    four, _ = play(_table(), A, _form("core", L7, L8, L9, SPRAY))
    three, _ = play(_table(), A, _form("core", L7, L8, L9))
    with_bonus, without = _leader_shot(four), _leader_shot(three)
    assert {"source": "fireteam", "value": 1} in with_bonus["mods"]
    assert all(m["source"] != "fireteam" for m in without["mods"])
    assert with_bonus["sv"] == without["sv"] + 1
    state, _ = play(four, A, {"type": "activate_fireteam", "leader": L7})
    shoot = {"type": "declare_skill",
             "skill": {"type": "bs_attack", "weapon": "line_rifle",
                       "targets": [{"trooper": "B-t1", "burst": 3}]},
             "peripherals": [{"trooper": m, "skill": {"type": "idle"}} for m in (L8, L9, SPRAY)]}
    state, _ = play(state, A, shoot)
    state, _ = close_aro_window(state)
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "idle"},
                               "peripherals": [{"trooper": m, "skill": {"type": "idle"}}
                                               for m in (L8, L9, SPRAY)]})
    _, events = close_aro_window(state)
    (resolved,) = [e for e in events if isinstance(e, OrderResolved)]
    (roll,) = [r for r in resolved.outcome.rolls if r.trooper == L7]
    assert roll.success_value == with_bonus["sv"]


def test_level_3_gives_plus_3_to_discover() -> None:
    """"Fireteam Bonuses" (DIGEST 3.5): Level 3, +3 Discover; a Level 2 team has none."""
    from server.rules.combat.fireteam_bonuses import fireteam_mods
    from server.rules.combat.rolls import Mod

    three, _ = play(_table(), A, _form("core", L7, L8, L9))
    two, _ = play(_table(), A, _form("core", L7, L8, WARDEN))
    assert fireteam_mods(three, TrooperId(L8), "discover") == (Mod("fireteam", 3),)
    assert fireteam_mods(two, TrooperId(L8), "discover") == ()
    assert fireteam_mods(three, TrooperId(L8), "bs_attack") == ()


def test_level_5_gives_every_member_sixth_sense() -> None:
    """"Fireteam Bonuses" (DIGEST 3.5, DIGEST 13): Level 5, Sixth Sense: an attacked member
    facing away, beyond the attacker's Zone of Control, may react to it; a Level 4 team's
    may not."""
    from server.rules.events import AroWindowOpened
    from server.rules.state import Fireteam
    from tests.support.skirmish import skirmish

    members = ("B-t3", "B-t4", "B-t5", "B-t14", "B-t15")  # Enforcers, all counted as one unit
    spots = {"A-t7": (30, 4, 90.0), "B-t3": (30, 14, 90.0), "B-t4": (32, 16, 90.0),
             "B-t5": (34, 16, 90.0), "B-t14": (36, 16, 90.0), "B-t15": (38, 16, 90.0),
             "B-t1": (46, 46, 90.0), "A-t1": (1, 1, 270.0)}
    shot = {"type": "declare_skill", "skill": {"type": "bs_attack", "weapon": "line_rifle",
                                               "targets": [{"trooper": "B-t3", "burst": 3}]}}

    def eligible(team: tuple[str, ...]) -> set[str]:
        state = _able(skirmish(spots, ruleset="n5"), list(members), fireteam_unit="Enforcer")
        state = replace(state, fireteams=(Fireteam(B, "core", TrooperId(team[0]),
                                                   tuple(TrooperId(t) for t in team)),))
        state, _ = play(state, A, {"type": "activate", "trooper": "A-t7", "order": "regular"})
        _, events = play(state, A, shot)
        window = next(e for e in events if isinstance(e, AroWindowOpened))
        return {e.trooper for e in window.eligible if e.sixth_sense}

    assert eligible(members) == {"B-t3"}
    assert eligible(members[:4]) == set()


def test_a_member_whose_state_bars_the_movement_stays_idle_and_the_others_move() -> None:
    """DIGEST 3.4's rule for a joint activation, applied to a Fireteam's Order: a member that
    cannot perform the leader's movement (its state forbids it) declares Idle; any other
    member declares the same movement, not another one."""
    state, _ = play(_table(), A, _form("core", L7, L8, L9))
    stunned = state.trooper(TrooperId(L9))
    state = state.with_trooper(replace(stunned, immobilized_b=True))
    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    move = {"type": "declare_skill", "skill": {"type": "move", "route": [[10, 10], [10, 7]]},
            "peripherals": [{"trooper": L8, "skill": {"type": "move", "route": [[12, 10], [12, 7]]}},
                            {"trooper": L9, "skill": {"type": "idle"}}]}
    lazy = {**move, "peripherals": [{"trooper": L8, "skill": {"type": "idle"}},
                                    {"trooper": L9, "skill": {"type": "idle"}}]}
    assert decide(state, A, lazy).code == "illegal_skill_combination"  # type: ignore[union-attr]
    jump = {**move, "peripherals": [{"trooper": L8, "skill": {"type": "jump", "route": [[12, 10], [12, 7]]}},
                                    {"trooper": L9, "skill": {"type": "idle"}}]}
    assert decide(state, A, jump).code == "fireteam_not_allowed"  # type: ignore[union-attr]
    state, _ = play(state, A, move)
    assert state.trooper(TrooperId(L8)).position == (12, 7)


def test_teams_and_their_events_survive_the_plain_form_and_the_replay() -> None:
    """Implementation check beside DIGEST 3.5: a stored game (plain state, recorded events)
    reads back with its Fireteams."""
    from server.rules import engine
    from server.rules.events import Event
    from server.rules.plain import from_plain, to_plain

    start = _table()
    state, events = play(start, A, _form("core", L7, L8, L9))
    state, more = play(state, A, {"type": "activate_fireteam", "leader": L8})
    assert engine.state_from_plain(engine.state_to_plain(state)) == state
    log = [*events, *more]
    assert [from_plain(Event, to_plain(e), "event") for e in log] == log  # type: ignore[type-abstract]
    assert engine.apply_all(start, log) == state


def test_a_members_allowances_are_its_own_as_the_rules_core_judges_its_movement() -> None:
    """DIGEST 9 (a second movement in an Order uses the second MOV value) in a Fireteam's
    Order (DIGEST 3.5): each member moves with its own MOV. `options` gave a member no
    `allowances` at all, so a player (or the random player) drew the leader's 4 inches for a
    Door Gunner (MOV 4-2) on its second Move and the rules core refused it ("this Move
    allows 2"). Each member's `allowances` now says what the rules core accepts."""
    from server.rules.options import seat_options

    state = _able(_table({L7: [10, 30, 90], L8: [12, 30, 90]}), [L8], mov=(4, 2))
    state, _ = play(state, A, _form("duo", L7, L8))
    state, _ = play(state, A, {"type": "activate_fireteam", "leader": L7})
    state, _ = play(state, A, {"type": "declare_skill", "skill": {"type": "move", "route": [[10, 30], [10, 28]]},
                               "peripherals": [{"trooper": L8, "skill": {"type": "move", "route": [[12, 30], [12, 28]]}}]})
    state, _ = close_aro_window(state)
    skills = seat_options(state, A)["skills"]
    assert skills["allowances"]["move"] == 4.0
    assert skills["peripherals"][L8]["allowances"]["move"] == 2.0

    def second(member_end: float) -> dict[str, Any]:
        return {"type": "declare_skill", "skill": {"type": "move", "route": [[10, 28], [10, 24.01]]},
                "peripherals": [{"trooper": L8, "skill": {"type": "move", "route": [[12, 28], [12, member_end]]}}]}

    too_far = decide(state, A, second(24.01))  # the leader's 3.99 inches
    assert isinstance(too_far, Rejected) and too_far.code == "route_too_long"
    assert "allows 2" in too_far.message
    assert not isinstance(decide(state, A, second(26.0)), Rejected)  # its own 2 inches
