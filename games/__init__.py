"""Games: the pure rules engine (games.engine) and the live tables built on it."""
