# policyc ordinary sample: an everyday Python data-access module (sqlite3, context managers).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

"""The SQLite store for feeds and entries."""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Iterator
from xml.sax.saxutils import escape

SCHEMA = """
CREATE TABLE IF NOT EXISTS feeds (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    name TEXT,
    tags TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    guid TEXT NOT NULL,
    title TEXT NOT NULL,
    link TEXT NOT NULL,
    summary TEXT NOT NULL DEFAULT '',
    published TEXT NOT NULL,
    read INTEGER NOT NULL DEFAULT 0,
    UNIQUE (feed_id, guid)
);
"""


@dataclass(frozen=True)
class Feed:
    id: int
    url: str
    name: str | None
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Entry:
    id: int
    feed_name: str
    title: str
    link: str
    summary: str
    published: datetime
    read: bool

    def summary_text(self) -> str:
        return " ".join(self.summary.split())


class Store:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.executescript(SCHEMA)

    @classmethod
    @contextmanager
    def open(cls, path: Path) -> Iterator["Store"]:
        connection = sqlite3.connect(path)
        try:
            yield cls(connection)
            connection.commit()
        finally:
            connection.close()

    def has_feed(self, url: str) -> bool:
        return self._db.execute("SELECT 1 FROM feeds WHERE url = ?", (url,)).fetchone() is not None

    def add_feed(self, url: str, name: str | None = None, tags: list[str] | None = None) -> Feed:
        cursor = self._db.execute(
            "INSERT INTO feeds (url, name, tags) VALUES (?, ?, ?)", (url, name, ",".join(tags or []))
        )
        return Feed(cursor.lastrowid, url, name, tuple(tags or ()))

    def feeds(self, tag: str | None = None) -> list[Feed]:
        rows = self._db.execute("SELECT * FROM feeds ORDER BY id").fetchall()
        feeds = [Feed(r["id"], r["url"], r["name"], tuple(filter(None, r["tags"].split(",")))) for r in rows]
        return [f for f in feeds if tag is None or tag in f.tags]

    def add_entries(self, feed: Feed, entries: list[dict]) -> int:
        before = self._db.total_changes
        self._db.executemany(
            "INSERT OR IGNORE INTO entries (feed_id, guid, title, link, summary, published)"
            " VALUES (:feed_id, :guid, :title, :link, :summary, :published)",
            [{**entry, "feed_id": feed.id} for entry in entries],
        )
        return self._db.total_changes - before

    def entries(self, unread_only: bool = False, tag: str | None = None, limit: int = 30) -> list[Entry]:
        query = (
            "SELECT e.*, coalesce(f.name, f.url) AS feed_name, f.tags FROM entries e"
            " JOIN feeds f ON f.id = e.feed_id"
        )
        conditions, params = [], []
        if unread_only:
            conditions.append("e.read = 0")
        if tag:
            conditions.append("(',' || f.tags || ',') LIKE ?")
            params.append(f"%,{tag},%")
        if conditions:
            query += " WHERE " + " AND ".join(conditions)
        query += " ORDER BY e.published DESC LIMIT ?"
        params.append(limit)
        return [self._entry(row) for row in self._db.execute(query, params)]

    def entry(self, entry_id: int) -> Entry | None:
        row = self._db.execute(
            "SELECT e.*, coalesce(f.name, f.url) AS feed_name FROM entries e JOIN feeds f ON f.id = e.feed_id"
            " WHERE e.id = ?",
            (entry_id,),
        ).fetchone()
        return self._entry(row) if row else None

    def mark_read(self, entry_id: int) -> None:
        self._db.execute("UPDATE entries SET read = 1 WHERE id = ?", (entry_id,))

    def to_opml(self) -> str:
        outlines = "\n".join(
            f'    <outline type="rss" text="{escape(f.name or f.url)}" xmlUrl="{escape(f.url)}"/>' for f in self.feeds()
        )
        return f'<?xml version="1.0"?>\n<opml version="2.0">\n  <body>\n{outlines}\n  </body>\n</opml>\n'

    @staticmethod
    def _entry(row: sqlite3.Row) -> Entry:
        return Entry(
            id=row["id"],
            feed_name=row["feed_name"],
            title=row["title"],
            link=row["link"],
            summary=row["summary"],
            published=datetime.fromisoformat(row["published"]),
            read=bool(row["read"]),
        )
