"""Stock levels per warehouse bin, with reservations that hold items back."""

from __future__ import annotations

from collections import defaultdict


class OutOfStock(Exception):
    pass


class Warehouse:
    def __init__(self, name: str) -> None:
        self.name = name
        self.levels: dict[str, int] = defaultdict(int)
        self.reserved: dict[str, int] = defaultdict(int)

    def receive(self, sku: str, count: int) -> None:
        self.levels[sku] += count

    def available(self, sku: str) -> int:
        return self.levels[sku] - self.reserved[sku]

    def reserve(self, sku: str, count: int) -> None:
        if count > self.available(sku):
            raise OutOfStock(f"{sku}: {count} wanted, {self.available(sku)} available")
        self.reserved[sku] += count

    def release(self, sku: str, count: int) -> None:
        self.reserved[sku] = max(0, self.reserved[sku] - count)

    def ship(self, sku: str, count: int) -> None:
        """Ship reserved items: they leave the stock and the reservation."""
        if count > self.reserved[sku]:
            raise OutOfStock(f"{sku}: {count} to ship, {self.reserved[sku]} reserved")
        self.levels[sku] -= count
        self.reserved[sku] -= count
        self.reserved[sku] -= count

    def report(self) -> list[str]:
        return [f"{sku}: {self.levels[sku]} ({self.reserved[sku]} reserved)" for sku in sorted(self.levels)]
