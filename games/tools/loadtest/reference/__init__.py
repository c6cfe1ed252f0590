"""The reference table server of the load benchmark (docs/performance.md, "Reference server").

A trivial table on the real server's stack — the same daphne, the same Channels consumer base
class, the same database and channel layer, the same process tuning — so that
``manage.py loadtest --baseline`` can put the real server's CPU per step next to what the stack
alone costs.  Each seat's only legal action is a discard of one fixed tile, the turn passes
round the four seats, and every action is answered by exactly one UPDATE of the hand's row
(its ``seq``) and one ``group_send`` to the table's four seats.  No rules engine, no log, no
timers.

``consumer`` is the socket, ``asgi`` the application daphne serves
(``daphne games.tools.loadtest.reference.asgi:application``).
"""
