"""Hot-path queries compiled to SQL once, not on every step.

Django compiles a QuerySet to SQL each time it runs it, and ``Model.save`` / ``bulk_create``
build their statements anew each time too.  On the live table's write path (games.services.play:
two steps per player action, hundreds per second at 200 tables) that compiling cost more than
the database itself: locking and loading a hand with its table took 553 µs through the ORM and
141 µs as the same SQL (docs/performance.md).  The classes here keep Django's own compilation —
the same SQL, the same column list, the same value conversion both ways — but do it once per
database thread and then only execute:

- :class:`PreparedSelect`: a queryset built from placeholder arguments, compiled once; each call
  runs its SQL with the real arguments and builds model instances as the ORM does
  (``select_related`` objects included, deferred fields left deferred);
- :class:`PreparedUpdate`: ``UPDATE … SET <fields> WHERE pk = %s`` for a fixed set of fields;
- :class:`PreparedInsert`: a multi-row ``INSERT`` with the fields' ``pre_save`` (``auto_now_add``).

On SQLite each statement goes to the driver's connection directly (:func:`fetch_all`,
:func:`execute`): Django's cursor wrapper rewrote ``%s`` into ``?`` with a regular expression and
took five wrapper calls per statement, several times what SQLite itself spends on the step's
small statements.  Django's error translation and its broken-transaction check are kept, and the
wrapper's path is taken whenever Django logs queries (``DEBUG``, a test's
``CaptureQueriesContext``) or an ``execute_wrapper`` is installed, so both still see every
statement.

What they skip, on purpose: model signals (``pre_save``/``post_save`` are not sent; nothing
listens for the models written here — add a receiver for them and you must go back to the ORM),
and returning primary keys from inserts (the log rows are never read back in the step).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, models
from django.db.models.query import QuerySet, get_related_populators
from django.db.transaction import TransactionManagementError

from games.wire import fastjson

M = TypeVar("M", bound=models.Model)

# Stand-ins passed to a PreparedSelect's builder; the compiled query must carry exactly these,
# in order, as its parameters (checked when compiling).
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_PLACEHOLDERS = tuple(-7_340_000_000 - i for i in range(8))


# Django's SQLite backend turns the "format" placeholders into the driver's "qmark" ones on every
# statement (SQLiteCursorWrapper.convert_query, for a list of parameters); done once per SQL here.
_FORMAT_PLACEHOLDER = re.compile(r"(?<!%)%s")
_QMARK_SQL: dict[str, str] = {}


def _qmark(sql: str) -> str:
    found = _QMARK_SQL.get(sql)
    if found is None:
        found = _QMARK_SQL[sql] = _FORMAT_PLACEHOLDER.sub("?", sql).replace("%%", "%")
    return found


def _direct(connection: Any) -> bool:
    """May this statement skip Django's cursor wrapper?  On SQLite, unless Django logs queries or
    wraps their execution (then it must see each one)."""
    return connection.vendor == "sqlite" and not connection.queries_logged and not connection.execute_wrappers


def fetch_all(connection: Any, sql: str, params: Sequence[Any]) -> list[Any]:
    """The rows of ``sql`` (``%s`` placeholders) run with ``params``: what
    ``cursor.execute(sql, params); cursor.fetchall()`` gives, without the wrapper on SQLite."""
    if _direct(connection):
        connection.validate_no_broken_transaction()
        connection.ensure_connection()
        with connection.wrap_database_errors:
            return connection.connection.execute(_qmark(sql), params).fetchall()  # type: ignore[no-any-return]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()  # type: ignore[no-any-return]


def execute(connection: Any, sql: str, params: Sequence[Any]) -> int:
    """Run a writing statement; answers the rows it changed (``cursor.rowcount``)."""
    if _direct(connection):
        connection.validate_no_broken_transaction()
        connection.ensure_connection()
        with connection.wrap_database_errors:
            return int(connection.connection.execute(_qmark(sql), params).rowcount)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


class _Compiled:
    """A compiled select: its SQL and what turning its rows into instances needs."""

    def __init__(self, queryset: QuerySet[Any], arity: int, using: str) -> None:
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        if tuple(params) != _PLACEHOLDERS[:arity]:
            raise ValueError(
                f"a prepared query's parameters must be exactly its {arity} argument(s), in order; got {params!r}"
            )
        self.sql = sql
        self.compiler = compiler
        self.for_update = queryset.query.select_for_update
        select, klass_info = compiler.select, compiler.klass_info
        assert klass_info is not None and not compiler.annotation_col_map, "model querysets only"
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [column[0].target.attname for column in select[self.start : self.end]]
        # (django-stubs describe Django 6, whose signature gained a fetch_mode argument)
        self.populators = get_related_populators(klass_info, select, using)  # type: ignore[call-arg]
        self.converters = compiler.get_converters([column[0] for column in select[0 : compiler.col_count]])


class PreparedSelect(Generic[M]):
    """``PreparedSelect(lambda pk: Hand.objects.select_related("table").filter(pk=pk))`` then
    ``hands = prepared(hand_id)``: the list the queryset would give, without recompiling it.
    Arguments are used as given (no field conversion): pass values of the column's type."""

    def __init__(self, build: Callable[..., QuerySet[M]], arity: int = 1) -> None:
        self.build = build
        self.arity = arity
        self._local = threading.local()  # compiled per thread: a compiler holds its connection

    def _compiled(self, using: str) -> _Compiled:
        cache: dict[str, _Compiled] | None = getattr(self._local, "cache", None)
        if cache is None:
            cache = self._local.cache = {}
        compiled = cache.get(using)
        if compiled is None:
            compiled = cache[using] = _Compiled(self.build(*_PLACEHOLDERS[: self.arity]), self.arity, using)
        return compiled

    def __call__(self, *args: Any, using: str = DEFAULT_DB_ALIAS) -> list[M]:
        if len(args) != self.arity:
            raise TypeError(f"expected {self.arity} argument(s), got {len(args)}")
        if any(isinstance(a, int) and not _INT64_MIN <= a <= _INT64_MAX for a in args):
            # The ORM answers an out-of-range integer lookup with no rows (the drivers would
            # raise OverflowError): no 64-bit key can equal it.
            return []
        compiled = self._compiled(using)
        connection = connections[using]
        if compiled.for_update and connection.get_autocommit():
            # What the ORM checks on every run of a select_for_update() queryset.
            raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
        rows: Any = fetch_all(connection, compiled.sql, args)
        if compiled.converters:
            rows = compiled.compiler.apply_converters(rows, compiled.converters)
        start, end = compiled.start, compiled.end
        found: list[M] = []
        for row in rows:
            obj = compiled.model.from_db(using, compiled.init_list, row[start:end])
            for populator in compiled.populators:
                populator.populate(row, obj)
            found.append(obj)
        return found


Preparer = Callable[[Any, Any], Any]


def _preparer(field: models.Field[Any, Any]) -> Preparer:
    """How a value of ``field`` is made ready for the driver: the field's own
    ``get_db_prep_save``, except a plain ``JSONField``'s (no custom encoder), which encodes with
    games.wire.fastjson — the same JSON, a tenth of the time (the snapshot, the log rows)."""
    if isinstance(field, models.JSONField) and field.encoder is None:
        return fastjson.for_column
    return field.get_db_prep_save


# SQLite takes a plain int, bool or str as it is, and a datetime as its naive UTC text: what the
# fields' own preparation gives for a value already of its column's type, at a tenth of the cost
# (about 20 µs a log row and 30 µs the step's UPDATE went into it).  Any other value — None, an
# expression, a naive or non-UTC datetime, a str for an int column — takes the field's own way.
# PostgreSQL keeps the fields' way throughout: its integers are bound with their column's size.
_PLAIN_TYPES: tuple[tuple[type[models.Field[Any, Any]], type], ...] = (
    (models.BooleanField, bool),  # before the integers: a bool is an int too
    (models.IntegerField, int),  # (every integer field, and a foreign key's id below)
    (models.CharField, str),
    (models.TextField, str),
)


def _sqlite_preparer(field: models.Field[Any, Any]) -> Preparer:
    slow = _preparer(field)
    target = field.target_field if isinstance(field, models.ForeignKey) else field
    if isinstance(target, models.DateTimeField):

        def prepare_datetime(value: Any, connection: Any) -> Any:
            if type(value) is datetime and value.tzinfo is UTC:
                return str(value.replace(tzinfo=None))
            return slow(value, connection)

        return prepare_datetime
    # Only fields that keep the base class's preparation (a subclass may convert on its own).
    plain = next(
        (
            kind
            for base, kind in _PLAIN_TYPES
            if isinstance(target, base) and type(target).get_prep_value is base.get_prep_value
        ),
        None,
    )
    if plain is None or slow != field.get_db_prep_save:
        return slow

    def prepare_plain(value: Any, connection: Any) -> Any:
        return value if type(value) is plain else slow(value, connection)

    return prepare_plain


class _Preparers:
    """A statement's value preparers by database vendor (``_sqlite_preparer`` or the fields' own)."""

    def __init__(self, fields: Sequence[models.Field[Any, Any]]) -> None:
        self.fields = fields
        self._by_vendor: dict[str, list[Preparer]] = {}

    def __call__(self, connection: Any) -> list[Preparer]:
        found = self._by_vendor.get(connection.vendor)
        if found is None:
            make = _sqlite_preparer if connection.vendor == "sqlite" else _preparer
            found = self._by_vendor[connection.vendor] = [make(f) for f in self.fields]
        return found


class PreparedUpdate:
    """``UPDATE <table> SET <fields> WHERE <pk> = %s`` for instances already loaded (the fields'
    values are prepared for the database as ``Model.save(update_fields=…)`` would)."""

    def __init__(self, model: type[models.Model], field_names: Sequence[str]) -> None:
        meta = model._meta
        fields = [meta.get_field(name) for name in field_names]
        self.fields = [f for f in fields if isinstance(f, models.Field) and f.concrete]
        if len(self.fields) != len(fields):
            raise ValueError(f"{model.__name__}: only concrete fields can be updated: {list(field_names)}")
        assert meta.pk is not None
        self.pk_column = str(meta.pk.column)
        self.table = meta.db_table
        self._prepare = _Preparers(self.fields)
        self._sql: dict[str, str] = {}

    def __call__(self, obj: models.Model, using: str = DEFAULT_DB_ALIAS) -> None:
        connection = connections[using]
        sql = self._sql.get(using)
        if sql is None:
            quote = connection.ops.quote_name
            assignments = ", ".join(f"{quote(str(f.column))} = %s" for f in self.fields)
            sql = self._sql[using] = f"UPDATE {quote(self.table)} SET {assignments} WHERE {quote(self.pk_column)} = %s"
        prepare = self._prepare(connection)
        values = [prep(getattr(obj, f.attname), connection) for f, prep in zip(self.fields, prepare, strict=True)]
        if execute(connection, sql, [*values, obj.pk]) != 1:
            raise DatabaseError(f"{type(obj).__name__} {obj.pk}: the update did not affect exactly one row")


class PreparedInsert:
    """A multi-row ``INSERT`` of new instances (every concrete field but an auto primary key)."""

    def __init__(self, model: type[models.Model]) -> None:
        meta = model._meta
        self.fields = [f for f in meta.concrete_fields if not isinstance(f, models.AutoField)]
        self.table = meta.db_table
        self._prepare = _Preparers(self.fields)
        self._sql: dict[tuple[str, int], str] = {}

    def __call__(self, objs: Sequence[models.Model], using: str = DEFAULT_DB_ALIAS) -> None:
        """Insert model instances: their fields' values as :meth:`rows` (``pre_save`` first, so
        ``auto_now_add`` fields are stamped as ``Model.save`` would)."""
        self.rows([[f.pre_save(obj, True) for f in self.fields] for obj in objs], using)

    def rows(self, rows: Sequence[Sequence[Any]], using: str = DEFAULT_DB_ALIAS) -> None:
        """Insert plain rows: one tuple per row with a value per field, in ``self.fields``'
        order (``field_names``), foreign keys as their ids and ``auto_now_add`` fields given
        like any other.  No model instance is built — on the step's path (two log INSERTs a
        step) building them cost about what the INSERT did (docs/performance.md); the values are
        still prepared for the database by each field, as ``__call__`` does."""
        if not rows:
            return
        connection = connections[using]
        prepare = self._prepare(connection)
        values: list[Any] = []
        for row in rows:
            if len(row) != len(prepare):
                raise ValueError(
                    f"{self.table}: a row needs {len(prepare)} values ({self.field_names}), got {len(row)}"
                )
            values.extend(prep(v, connection) for prep, v in zip(prepare, row, strict=True))
        self._execute(connection, using, len(rows), values)

    @property
    def field_names(self) -> list[str]:
        return [f.attname for f in self.fields]

    def _execute(self, connection: Any, using: str, count: int, values: list[Any]) -> None:
        key = (using, count)
        sql = self._sql.get(key)
        if sql is None:
            quote = connection.ops.quote_name
            columns = ", ".join(quote(str(f.column)) for f in self.fields)
            row = "(" + ", ".join(["%s"] * len(self.fields)) + ")"
            sql = self._sql[key] = f"INSERT INTO {quote(self.table)} ({columns}) VALUES " + ", ".join([row] * count)
        execute(connection, sql, values)
