"""Armies: troop profiles, skills, weapons, army lists, army codes and the sample catalogue.
"""
