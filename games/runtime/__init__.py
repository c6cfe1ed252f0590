"""This process's machinery (fan-out, timers, database queue, caches): may import wire and below."""
