"""The table: geometry, terrain, Line of Fire, cover, Zone of Control, routes and the ruler
(DIGEST 5-7, 10.4). The mypyc-compiled modules live here (``native``).
"""
