# policyc ordinary sample: an everyday pytest module for a FastAPI app (TestClient, fixtures).
# Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from app.db import Base, get_session
from app.main import app
from app.security import CurrentUser, get_current_user


@pytest.fixture
def session() -> Session:
    engine = create_engine("sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool)
    Base.metadata.create_all(engine)
    factory = sessionmaker(bind=engine)
    with factory() as session:
        yield session


@pytest.fixture
def client(session: Session) -> TestClient:
    app.dependency_overrides[get_session] = lambda: session
    app.dependency_overrides[get_current_user] = lambda: CurrentUser(id=1, email="ada@example.com")
    yield TestClient(app)
    app.dependency_overrides.clear()


def make_item(client: TestClient, **overrides) -> dict:
    payload = {"name": "Desk lamp", "price_cents": 2999, "tags": ["home"], **overrides}
    response = client.post("/items", json=payload)
    assert response.status_code == 201, response.text
    return response.json()


def test_create_and_fetch(client):
    created = make_item(client)

    response = client.get(f"/items/{created['id']}")

    assert response.status_code == 200
    assert response.json()["name"] == "Desk lamp"
    assert response.json()["owner_id"] == 1


def test_list_is_paginated_and_newest_first(client):
    for n in range(5):
        make_item(client, name=f"Item {n}")

    page = client.get("/items", params={"limit": 2, "offset": 1}).json()

    assert page["total"] == 5
    assert [item["name"] for item in page["items"]] == ["Item 3", "Item 2"]


def test_search_is_case_insensitive(client):
    make_item(client, name="Blue Mug")
    make_item(client, name="Teapot")

    page = client.get("/items", params={"q": "mug"}).json()

    assert [item["name"] for item in page["items"]] == ["Blue Mug"]


@pytest.mark.parametrize(
    "payload",
    [
        {"name": "", "price_cents": 1},
        {"name": "Chair", "price_cents": -5},
        {"name": "Chair", "price_cents": 1, "tags": ["t"] * 11},
    ],
)
def test_invalid_payloads_are_rejected(client, payload):
    response = client.post("/items", json=payload)

    assert response.status_code == 422


def test_update_replaces_fields(client):
    created = make_item(client)

    response = client.put(f"/items/{created['id']}", json={"name": "Floor lamp", "price_cents": 4999})

    assert response.json()["name"] == "Floor lamp"
    assert response.json()["tags"] == []


def test_delete_then_404(client):
    created = make_item(client)

    assert client.delete(f"/items/{created['id']}").status_code == 204
    assert client.get(f"/items/{created['id']}").status_code == 404
