"""Missions (issue 37): objectives, Objective Points and Classified Objectives."""
