"""Stable reason codes for rejected game commands.

The values are part of the wire contract (clients switch on them), so they never change
meaning; new codes may be added. Each rejection also carries a message for the player.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    BAD_COMMAND = "bad_command"  # the command body does not have the right shape
    NOT_YOUR_TURN = "not_your_turn"  # the other player must act now
    WRONG_PHASE = "wrong_phase"  # the command does not fit the current phase or step
    GAME_OVER = "game_over"
    UNKNOWN_ARMY = "unknown_army"
    ALREADY_CHOSEN = "already_chosen"
    ARMY_NOT_REGISTERED = "army_not_registered"  # the table holds the seat to another army
    BAD_ARMY_LIST = "bad_army_list"  # a brought list or code that is not a legal list
    NO_ARMY_DATA = "no_army_data"  # an army code on a server without the operator's data
    UNKNOWN_TROOPER = "unknown_trooper"
    NOT_YOUR_TROOPER = "not_your_trooper"
    TROOPER_NOT_ON_TABLE = "trooper_not_on_table"
    TROOPER_NULL = "trooper_null"  # Unconscious, Dead...: cannot act
    ALREADY_DEPLOYED = "already_deployed"
    OUTSIDE_DEPLOYMENT_ZONE = "outside_deployment_zone"
    BAD_POSITION = "bad_position"  # overlaps terrain or another model, off the table
    DEPLOYMENT_INCOMPLETE = "deployment_incomplete"
    RESERVE_TROOPER = "reserve_trooper"  # the last trooper waiting in steps 1-2 is the reserve
    NO_ORDER_AVAILABLE = "no_order_available"
    ORDER_NOT_FOR_TROOPER = "order_not_for_trooper"
    ORDER_IN_PROGRESS = "order_in_progress"
    ILLEGAL_SKILL_COMBINATION = "illegal_skill_combination"
    SKILL_NOT_ALLOWED = "skill_not_allowed"  # not usable now (ARO-only, not in ARO, state...)
    STUNNED = "stunned"  # a Stunned trooper declares no Attacks (combat/stunned.py)
    BAD_ROUTE = "bad_route"
    ROUTE_TOO_LONG = "route_too_long"
    NO_LINE_OF_FIRE = "no_line_of_fire"
    OUT_OF_RANGE = "out_of_range"
    BAD_TARGET = "bad_target"
    BAD_BURST = "bad_burst"
    UNKNOWN_WEAPON = "unknown_weapon"
    NO_AMMUNITION = "no_ammunition"
    NOT_IN_BASE_CONTACT = "not_in_base_contact"
    NOT_ELIGIBLE_FOR_ARO = "not_eligible_for_aro"
    ARO_ALREADY_DECLARED = "aro_already_declared"
    ZOC_ONLY_DODGE_OR_RESET = "zoc_only_dodge_or_reset"
    STALE_WINDOW = "stale_window"  # closing an ARO window that is no longer open
    NOT_ALLOWED_BY_RULESET = "not_allowed_by_ruleset"
    NO_COMMAND_TOKEN = "no_command_token"  # none left, or held to one this turn
    COMMAND_TOKEN_USE_UNAVAILABLE = "command_token_use_unavailable"  # not now / not met / done
    IN_RETREAT = "in_retreat"  # the army is in Retreat!: the skill is not one it may declare
    IMPETUOUS_ROUTE = "impetuous_route"  # an Impetuous Move that does not follow DIGEST 3.6
    STALE_CLOCK = "stale_clock"  # a chess-clock expiry for a clock that has not run out
    STALE_GUTS_WINDOW = "stale_guts_window"  # no Guts window open for that Order and trooper
    GUTS_STILL_IN_REACH = "guts_still_in_reach"  # still in an attacker's LoF (or Hacking Area)
    GUTS_NOT_IN_COVER = "guts_not_in_cover"  # not in Partial Cover from an attacker that sees it
    GUTS_BASE_CONTACT = "guts_base_contact"  # a Guts movement ends touching an enemy
    FIRETEAM_NOT_ALLOWED = "fireteam_not_allowed"  # composition, timing or coherency of a Fireteam
    # Missions (missions/consoles.py): the Activate Short Skill.
    NO_SUCH_MARKER = "no_such_marker"  # no mission, or no marker of it an objective activates
    NOT_A_SPECIALIST = "not_a_specialist"  # the objective's markers are for Specialist troopers
    ALREADY_ACTIVATED = "already_activated"  # the side activated it (this round, or in the game)
    # --- Classified Objectives (missions/classified.py) ---
    NOT_YOUR_CLASSIFIED = "not_your_classified"  # the side holds no such card
    CLASSIFIED_ALREADY_ACHIEVED = "classified_already_achieved"  # a card scores once
    CLASSIFIED_NOT_AN_ACTION = "classified_not_an_action"  # achieved by the game, not a skill
    CLASSIFIED_REQUIREMENT = "classified_requirement"  # trooper, place or target the card needs
