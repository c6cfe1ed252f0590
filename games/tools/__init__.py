"""Measuring tools (load test, step bench, claim probe): may import anything; the product never does."""
