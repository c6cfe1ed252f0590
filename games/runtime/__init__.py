"""This process's machinery (fan-out, timers, database queue, caches, saturation), its state held by
one object (process.py): may import wire and below."""
