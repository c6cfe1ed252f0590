"""The pure rules engine: deterministic, typed, and free of Django.

Nothing under ``games.engine`` may import Django (an import-linter contract,
checked by the test suite, enforces it).  Time and randomness come in as
arguments so that a variant, its options, a wall and a list of actions always
yield exactly one history.
"""
