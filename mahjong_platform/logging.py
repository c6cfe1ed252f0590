"""Structured logs: one line per record, carrying the table, hand, seat and ``seq`` it concerns.

Code logs with ``extra``::

    log.info("hand step", extra={"table": 7, "hand": 42, "seq": 18})

and the formatters put those fields on the line, as JSON (``CAISHEN_LOG_FORMAT=json``, the
scaled mode's choice: one object per line for a log shipper) or as ``key=value`` pairs after the
message (``plain``, the default, for people reading a terminal).  Each line also says which
process wrote it (``CAISHEN_PROCESS_NAME``, e.g. ``web1``; the Procfile sets it), so the lines of
several daphne processes and the Celery worker can be told apart once merged.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime
from typing import Any

# The fields a game record may carry, in the order they are printed.
GAME_FIELDS = ("table", "hand", "seat", "seq")

# Everything a LogRecord has by itself: whatever else is on a record came from ``extra``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


# A record's attribute names -> (its game fields' names, all its extra fields' names): the records
# of one call site share their names, and the table writes one line per step.
_EXTRA_NAMES: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _extra_names(attributes: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = _EXTRA_NAMES.get(attributes)
    if found is None:
        games = tuple(name for name in GAME_FIELDS if name in attributes)
        extras = tuple(name for name in attributes if name not in _STANDARD and not name.startswith("_"))
        found = (games, extras)
        if len(_EXTRA_NAMES) < 1024:  # (call sites are few; never let odd records grow it)
            _EXTRA_NAMES[attributes] = found
    return found


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The ``extra`` fields of a record, game fields first (a game field only when it is set)."""
    attributes = record.__dict__
    games, extras = _extra_names(tuple(attributes))
    fields = {name: value for name in games if (value := attributes[name]) is not None}
    for name in extras:
        if name not in fields:
            fields[name] = attributes[name]
    return fields


def _scalar(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


# One encoder for every line: json.dumps with an option of its own builds a new encoder per
# call, and a step's log line (the live table writes one per step) has half a dozen fields.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def _pair_value(value: Any) -> str:
    """``json.dumps(_scalar(value), ensure_ascii=False)``, with plain ints (most fields) as they are."""
    if type(value) is int:
        return str(value)
    return _ENCODE(_scalar(value))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, process, message, then the extra fields.
    The process is ``process_name`` (``CAISHEN_PROCESS_NAME``), else its pid."""

    def __init__(self, process_name: str = "") -> None:
        super().__init__()
        self.process_name = process_name

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "process": self.process_name or record.process,
            "message": record.getMessage(),
        }
        for name, value in extra_fields(record).items():
            line.setdefault(name, _scalar(value))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _ENCODE(line)


class KeyValueFormatter(logging.Formatter):
    """``asctime level logger: message table=7 hand=42 seq=18`` (the extra fields as key=value)."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self._second: tuple[int, tuple[str, str]] | None = None  # (second, time zone) -> its text
        self._second_text = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 (logging's name)
        """logging's own ``2026-12-06 23:04:26,314``, its seconds part formatted once a second."""
        if datefmt is not None:
            return super().formatTime(record, datefmt)
        key = (int(record.created), time.tzname)
        if key != self._second:
            self._second_text = time.strftime(self.default_time_format, self.converter(record.created))
            self._second = key
        return f"{self._second_text},{int(record.msecs):03d}"  # logging's default_msec_format

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info or record.exc_text or record.stack_info:
            text = super().format(record)
        else:
            # What Formatter.format gives for this format without a traceback, without its
            # style machinery (the table writes a line per step).
            record.message = record.getMessage()
            record.asctime = self.formatTime(record)
            text = f"{record.asctime} {record.levelname} {record.name}: {record.message}"
        fields = extra_fields(record)
        if not fields:
            return text
        pairs = " ".join([f"{name}={_pair_value(value)}" for name, value in fields.items()])
        head, newline, rest = text.partition("\n")  # keep a traceback below the fields
        return f"{head} {pairs}{newline}{rest}"


class ClientErrorsOnOneLine(logging.Filter):
    """A refused request is the client's doing, not ours: one line, no traceback.

    Django's ``django.request`` logger logs a ``PermissionDenied`` (403), a ``BadRequest`` and an
    unparsable body (400) as warnings *with* the exception's traceback, a dozen lines for every
    player who opens a staff page.  This keeps the record (status, path, and the exception's
    message as ``reason``) and drops the traceback; 5xx records keep theirs."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.name == "django.request" and isinstance(status, int) and 400 <= status < 500 and record.exc_info:
            exc = record.exc_info[1]
            if exc is not None and str(exc):
                record.reason = f"{type(exc).__name__}: {exc}"
            record.exc_info = None
            record.exc_text = None
        return True


def logging_config(
    level: str = "INFO", fmt: str = "plain", celery_level: str | None = None, process_name: str = ""
) -> dict[str, Any]:
    """The LOGGING dict of settings.py: everything to stdout, in the chosen format.

    ``celery_level`` is the Celery loggers' own level (``CELERY_LOG_LEVEL``, what the Procfile
    passes as ``-l``): the worker does not install its own logging (it would replace this
    format), so ``-l`` alone changed nothing, and at INFO it writes two lines per task — two per
    timer, i.e. per discard, at scale."""
    formatter = "json" if fmt == "json" else "plain"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "plain": {"()": KeyValueFormatter},
            "json": {"()": JsonFormatter, "process_name": process_name},
        },
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": formatter,
                "filters": ["client_errors_on_one_line"],
            },
        },
        "filters": {"client_errors_on_one_line": {"()": ClientErrorsOnOneLine}},
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            "django": {"handlers": ["stdout"], "level": level, "propagate": False},
            "daphne": {"handlers": ["stdout"], "level": level, "propagate": False},
            "celery": {"handlers": ["stdout"], "level": celery_level or level, "propagate": False},
        },
    }
