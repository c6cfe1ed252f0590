"""The load benchmark behind ``manage.py loadtest`` (docs/performance.md).

``setup`` seats four socket clients per table in the server's own database, ``client`` drives
them over real WebSockets and measures, ``cpu`` reads the server processes' CPU time.
"""
