"""The Game Sequence and Orders: set-up, initiative and deployment, the Order Pool,
activation, AROs and the Order Expenditure Sequence, Command Tokens, Impetuous, Retreat!,
the Lieutenant (seeds 000-004, DIGEST 2-4, 11-12).
"""
