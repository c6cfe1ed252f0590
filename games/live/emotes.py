"""Quick phrases at the table: a fixed list sent by code, never free text.

Nothing to moderate: a client sends ``{"type": "emote", "code": "thanks"}``, the server checks the
code against :data:`CODES` and the seat's rate, and every reader of the table (seats and watchers)
gets ``{"type": "emote", "position": chair, "code": code}``; each browser shows it in its own
language (static/js/i18n.js, ``emote.<code>``).
"""

from __future__ import annotations

import time

from games.runtime.process import runtime

# The phrases, by code (the order the table page lists them).
CODES: tuple[str, ...] = (
    "hello",  # 你好
    "hurry",  # 快点吧
    "well_played",  # 打得好
    "thanks",  # 谢谢
    "sorry",  # 不好意思
    "good_luck",  # 祝你好运
    "nice_tile",  # 好牌
    "oops",  # 哎呀
    "again",  # 再来一局
    "bye",  # 再见
)

# Per seat: at most RATE_COUNT emotes in any RATE_WINDOW seconds.  Kept per process
# (``runtime().emotes``): a seat's sockets normally share one process, and the socket's own token
# bucket bounds the rest.
RATE_COUNT = 3
RATE_WINDOW = 10.0


def allow(table_id: int, position: int, now: float | None = None) -> bool:
    """Whether chair ``position`` of the table may send an emote now (and count it if so)."""
    now = time.monotonic() if now is None else now
    sent = runtime().emotes[(table_id, position)]
    while sent and now - sent[0] >= RATE_WINDOW:
        sent.popleft()
    if len(sent) >= RATE_COUNT:
        return False
    sent.append(now)
    return True
