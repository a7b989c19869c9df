"""Resolution and dice: attacks, MODs, Normal and Face to Face Rolls, saves, damage, wounds,
States caused by ammunition, hacking, Guts (DIGEST 8-10, 13).
"""
