"""Finished hands (replays, when secrets may be disclosed): may import only rules, models and engine."""
