"""Plumbing every app shares: the one settings object, client addresses, JSON and value limits,
strict serializers.  Imports Django and DRF only, never an app of the project (an import-linter
contract), so every app — and the Django project package above them — may import it."""
