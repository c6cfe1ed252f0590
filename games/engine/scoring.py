"""Shared settlement primitives.  Every payment moves points from one seat to another,
so a hand's deltas sum to zero by construction; :func:`check_zero_sum` guards it anyway
(:func:`games.engine.win.payments_total` asks it of every result it builds)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.engine.state import seat_name


class Ledger:
    """Per-seat deltas of one hand, built from payments."""

    def __init__(self) -> None:
        self.deltas = [0, 0, 0, 0]

    def pay(self, payer: int, payee: int, amount: int) -> None:
        if payer == payee:
            raise ValueError("a seat cannot pay itself")
        self.deltas[payer] -= amount
        self.deltas[payee] += amount

    def each_pays(self, payers: Iterable[int], payee: int, amount: int) -> None:
        for payer in payers:
            self.pay(payer, payee, amount)

    def named(self) -> dict[str, int]:
        """Non-zero deltas by seat name, for a breakdown line."""
        return {seat_name(i): d for i, d in enumerate(self.deltas) if d}


def others(seat: int) -> list[int]:
    return [s for s in range(4) if s != seat]


def check_zero_sum(deltas: Sequence[int]) -> None:
    if sum(deltas) != 0:
        raise AssertionError(f"hand deltas must sum to zero, got {list(deltas)}")
