# policyc ordinary sample: an everyday Python service module (dataclasses, typing, logging).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

"""Order service: creates orders, applies discounts and computes totals."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Iterable, Protocol

logger = logging.getLogger(__name__)


class OrderRepository(Protocol):
    def get(self, order_id: int) -> "Order | None": ...

    def save(self, order: "Order") -> None: ...


@dataclass
class LineItem:
    sku: str
    quantity: int
    unit_price: Decimal

    @property
    def subtotal(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass
class Order:
    id: int
    customer_id: int
    items: list[LineItem] = field(default_factory=list)
    created_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    discount_code: str | None = None

    def add_item(self, sku: str, quantity: int, unit_price: Decimal) -> None:
        if quantity <= 0:
            raise ValueError(f"quantity must be positive, got {quantity}")
        for item in self.items:
            if item.sku == sku:
                item.quantity += quantity
                return
        self.items.append(LineItem(sku, quantity, unit_price))

    @property
    def count(self) -> int:
        return sum(item.quantity for item in self.items)


DISCOUNTS = {
    "WELCOME10": Decimal("0.10"),
    "SPRING15": Decimal("0.15"),
}


class OrderNotFound(Exception):
    """Raised when an order id does not exist."""


class OrderService:
    def __init__(self, repository: OrderRepository, tax_rate: Decimal = Decimal("0.20")) -> None:
        self._repository = repository
        self._tax_rate = tax_rate

    def create(self, order_id: int, customer_id: int, items: Iterable[tuple[str, int, Decimal]]) -> Order:
        order = Order(id=order_id, customer_id=customer_id)
        for sku, quantity, price in items:
            order.add_item(sku, quantity, price)
        self._repository.save(order)
        logger.info("created order %s with %d items", order.id, order.count)
        return order

    def apply_discount(self, order_id: int, code: str) -> Order:
        order = self._load(order_id)
        if code not in DISCOUNTS:
            raise ValueError(f"unknown discount code: {code}")
        order.discount_code = code
        self._repository.save(order)
        return order

    def total(self, order_id: int) -> Decimal:
        order = self._load(order_id)
        subtotal = sum((item.subtotal for item in order.items), Decimal("0"))
        if order.discount_code:
            subtotal -= subtotal * DISCOUNTS[order.discount_code]
        total = subtotal * (1 + self._tax_rate)
        return total.quantize(Decimal("0.01"))

    def _load(self, order_id: int) -> Order:
        order = self._repository.get(order_id)
        if order is None:
            raise OrderNotFound(order_id)
        return order
