# policyc ordinary sample: an everyday FastAPI router (Pydantic models, dependencies, pagination).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db import get_session
from app.models import Item
from app.security import CurrentUser, get_current_user

router = APIRouter(prefix="/items", tags=["items"])

SessionDep = Annotated[Session, Depends(get_session)]
UserDep = Annotated[CurrentUser, Depends(get_current_user)]


class ItemIn(BaseModel):
    name: str = Field(min_length=1, max_length=120)
    description: str | None = Field(default=None, max_length=2000)
    price_cents: int = Field(ge=0)
    tags: list[str] = Field(default_factory=list, max_length=10)


class ItemOut(ItemIn):
    model_config = ConfigDict(from_attributes=True)

    id: int
    owner_id: int
    created_at: datetime


class Page(BaseModel):
    items: list[ItemOut]
    total: int
    limit: int
    offset: int


@router.get("", response_model=Page)
def list_items(
    session: SessionDep,
    user: UserDep,
    q: str | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> Page:
    query = select(Item).where(Item.owner_id == user.id)
    if q:
        query = query.where(Item.name.ilike(f"%{q}%"))
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    rows = session.scalars(query.order_by(Item.created_at.desc()).limit(limit).offset(offset)).all()
    return Page(items=[ItemOut.model_validate(row) for row in rows], total=total, limit=limit, offset=offset)


@router.post("", response_model=ItemOut, status_code=status.HTTP_201_CREATED)
def create_item(payload: ItemIn, session: SessionDep, user: UserDep) -> Item:
    item = Item(**payload.model_dump(), owner_id=user.id)
    session.add(item)
    session.commit()
    session.refresh(item)
    return item


def _owned_item(item_id: int, session: Session, user: CurrentUser) -> Item:
    item = session.get(Item, item_id)
    if item is None or item.owner_id != user.id:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail="Item not found")
    return item


@router.get("/{item_id}", response_model=ItemOut)
def get_item(item_id: int, session: SessionDep, user: UserDep) -> Item:
    return _owned_item(item_id, session, user)


@router.put("/{item_id}", response_model=ItemOut)
def update_item(item_id: int, payload: ItemIn, session: SessionDep, user: UserDep) -> Item:
    item = _owned_item(item_id, session, user)
    for field, value in payload.model_dump().items():
        setattr(item, field, value)
    session.commit()
    session.refresh(item)
    return item


@router.delete("/{item_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_item(item_id: int, session: SessionDep, user: UserDep) -> None:
    item = _owned_item(item_id, session, user)
    session.delete(item)
    session.commit()
