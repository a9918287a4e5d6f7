# policyc ordinary sample: an everyday Python networking module (httpx, concurrency, retries).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

"""Fetch many feeds at once, with retries and a shared connection pool."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone

import feedparser
import httpx

from .store import Feed

log = logging.getLogger(__name__)

RETRY_STATUS = {429, 500, 502, 503, 504}
USER_AGENT = "tidyfeed/1.4 (+https://github.com/example/tidyfeed)"


@dataclass
class FetchResult:
    feed: Feed
    entries: list[dict] = field(default_factory=list)
    error: str | None = None


def _published(entry) -> str:
    parsed = entry.get("published_parsed") or entry.get("updated_parsed")
    moment = datetime(*parsed[:6], tzinfo=timezone.utc) if parsed else datetime.now(timezone.utc)
    return moment.isoformat()


def parse(feed: Feed, body: bytes) -> list[dict]:
    document = feedparser.parse(body)
    entries = []
    for entry in document.entries:
        link = entry.get("link") or ""
        entries.append(
            {
                "guid": entry.get("id") or link or entry.get("title", ""),
                "title": entry.get("title", "(untitled)").strip(),
                "link": link,
                "summary": entry.get("summary", ""),
                "published": _published(entry),
            }
        )
    return entries


def fetch_one(client: httpx.Client, feed: Feed, attempts: int = 3) -> FetchResult:
    delay = 0.5
    for attempt in range(1, attempts + 1):
        try:
            response = client.get(feed.url, follow_redirects=True)
        except httpx.TransportError as exc:
            if attempt == attempts:
                return FetchResult(feed, error=f"network error: {exc}")
        else:
            if response.status_code == 200:
                return FetchResult(feed, entries=parse(feed, response.content))
            if response.status_code not in RETRY_STATUS or attempt == attempts:
                return FetchResult(feed, error=f"HTTP {response.status_code}")
        log.debug("retrying %s in %.1fs (attempt %d)", feed.url, delay, attempt)
        time.sleep(delay)
        delay *= 2
    return FetchResult(feed, error="gave up")


def fetch_all(feeds: list[Feed], jobs: int = 8, timeout: float = 10.0) -> list[FetchResult]:
    if not feeds:
        return []
    limits = httpx.Limits(max_connections=jobs, max_keepalive_connections=jobs)
    headers = {"User-Agent": USER_AGENT, "Accept": "application/rss+xml, application/atom+xml, */*"}
    with httpx.Client(timeout=timeout, limits=limits, headers=headers) as client:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda feed: fetch_one(client, feed), feeds))
    ok = sum(1 for r in results if r.error is None)
    log.info("fetched %d of %d feeds", ok, len(feeds))
    return results
