# policyc ordinary sample: an everyday pytest module (fixtures, parametrize, raises).
# Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

from decimal import Decimal

import pytest

from app.services.orders import Order, OrderNotFound, OrderService


class InMemoryRepository:
    def __init__(self) -> None:
        self.orders: dict[int, Order] = {}

    def get(self, order_id: int) -> Order | None:
        return self.orders.get(order_id)

    def save(self, order: Order) -> None:
        self.orders[order.id] = order


@pytest.fixture
def repository() -> InMemoryRepository:
    return InMemoryRepository()


@pytest.fixture
def service(repository: InMemoryRepository) -> OrderService:
    return OrderService(repository, tax_rate=Decimal("0.10"))


def test_create_saves_the_order(service, repository):
    order = service.create(1, customer_id=7, items=[("book", 2, Decimal("12.50"))])

    assert repository.get(1) is order
    assert order.count == 2


def test_adding_the_same_sku_twice_merges_the_lines():
    order = Order(id=1, customer_id=1)
    order.add_item("pen", 1, Decimal("1.00"))
    order.add_item("pen", 3, Decimal("1.00"))

    assert len(order.items) == 1
    assert order.items[0].quantity == 4


@pytest.mark.parametrize("quantity", [0, -1, -20])
def test_non_positive_quantities_are_rejected(quantity):
    order = Order(id=1, customer_id=1)
    with pytest.raises(ValueError, match="quantity must be positive"):
        order.add_item("pen", quantity, Decimal("1.00"))


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (None, Decimal("27.50")),
        ("WELCOME10", Decimal("24.75")),
        ("SPRING15", Decimal("23.38")),
    ],
)
def test_total_includes_discount_and_tax(service, code, expected):
    service.create(1, customer_id=7, items=[("book", 2, Decimal("12.50"))])
    if code:
        service.apply_discount(1, code)

    assert service.total(1) == expected


def test_unknown_discount_code(service):
    service.create(1, customer_id=7, items=[])
    with pytest.raises(ValueError, match="unknown discount code"):
        service.apply_discount(1, "FREE")


def test_missing_order(service):
    with pytest.raises(OrderNotFound):
        service.total(404)
