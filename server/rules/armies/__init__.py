"""Armies: troop profiles, skills, weapons, army lists and the sample catalogue.
"""
