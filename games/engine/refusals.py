"""Refusal reasons that carry a stable machine code beside the English text.

A rule refuses an action by returning a reason; the reason is a :class:`Refusal`, a ``str``
(the English sentence, unchanged, so every caller and test that reads the text keeps working)
that also carries ``code`` (snake_case, stable: the table page translates by it) and ``params``
(JSON values the translation fills in).  Build one with :func:`refuse`, whose template is
filled from the same parameters, so the English and the translations cannot drift apart.

Parameter names the table page knows how to show (static/js/refusals.js): ``tile`` / ``tiles``
(tile notation, "5m" / "34m"), ``seat`` / ``seats`` (seat winds, "E" / "E, S"), ``verb`` (an
action verb, "chow"); any other parameter is shown as it is.

A refusal without parameters that a hot path returns (every turn asks ``evaluate_win``) is made
once, at import, as a module constant: returning it costs no more than returning a literal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, Final

JSONValue = str | int | float | bool | None | list[Any] | dict[str, Any]
#: What a refusal built by :func:`refuse` takes as parameters: JSON scalars.
Param = str | int | float | bool | None

#: The code of a refusal given as a plain string (a rule not yet given a code).
UNSPECIFIED: Final = "unspecified"

#: What a code looks like (the tests hold every code to it).
CODE_PATTERN: Final = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
_NO_PARAMS: Final[Mapping[str, JSONValue]] = {}


class Refusal(str):
    """An English refusal reason (the string itself) with its machine ``code`` and ``params``."""

    code: str
    params: Mapping[str, JSONValue]

    def __new__(cls, code: str, text: str, params: Mapping[str, JSONValue] | None = None) -> Refusal:
        # No validation here: legal-action lists build refusals on every turn.  The codes are
        # checked once, by tests/engine/test_refusals.py (snake_case, one text per code).
        self = super().__new__(cls, text)
        self.code = code
        self.params = params if params is not None else _NO_PARAMS
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # str's own pickling would call __new__ with the text alone.
        return (Refusal, (self.code, str(self), dict(self.params)))


@functools.lru_cache(maxsize=4096)
def refuse(code: str, template: str, **params: Param) -> Refusal:
    """A refusal whose English text is ``template`` filled from ``params`` (``str.format``).

    Memoised: legal-action lists ask the refusal hooks about every held tile on every turn
    (温州's single-honour rule refuses over a hundred discards a hand), and a cached refusal
    costs about what the f-string it replaced did, where building one costs several times more.
    So the parameters are scalars (hashable), and a refusal's ``params`` are shared: read them,
    never change them (``IllegalAction`` and the platform's ``Refused`` take copies).
    """
    return Refusal(code, template.format(**params) if params else template, params)


def code_of(reason: str) -> str:
    return reason.code if isinstance(reason, Refusal) else UNSPECIFIED


def params_of(reason: str) -> dict[str, JSONValue]:
    return dict(reason.params) if isinstance(reason, Refusal) else {}


__all__ = ["CODE_PATTERN", "UNSPECIFIED", "JSONValue", "Param", "Refusal", "code_of", "params_of", "refuse"]
