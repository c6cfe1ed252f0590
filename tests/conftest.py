"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; engine tests need no database and
run without one.  Keep this file small: fixtures belong next to the tests that use them.
"""
