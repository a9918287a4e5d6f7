# policyc ordinary sample: an everyday pytest module with HTTP mocking (respx) and monkeypatch.
# Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

from __future__ import annotations

import httpx
import pytest
import respx

from tidyfeed import fetch
from tidyfeed.store import Feed

RSS = b"""<?xml version="1.0"?>
<rss version="2.0"><channel><title>Example</title>
<item><title>First post</title><link>https://example.com/1</link><guid>1</guid>
<pubDate>Tue, 02 Apr 2024 10:00:00 GMT</pubDate></item>
<item><title>Second post</title><link>https://example.com/2</link></item>
</channel></rss>"""

FEED = Feed(id=1, url="https://example.com/feed.xml", name="Example", tags=())


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch):
    monkeypatch.setattr(fetch.time, "sleep", lambda seconds: None)


@respx.mock
def test_entries_are_parsed():
    respx.get(FEED.url).mock(return_value=httpx.Response(200, content=RSS))

    [result] = fetch.fetch_all([FEED])

    assert result.error is None
    assert [e["title"] for e in result.entries] == ["First post", "Second post"]
    assert result.entries[0]["published"].startswith("2024-04-02T10:00:00")
    assert result.entries[1]["guid"] == "https://example.com/2"


@respx.mock
def test_server_errors_are_retried():
    route = respx.get(FEED.url).mock(
        side_effect=[httpx.Response(503), httpx.Response(503), httpx.Response(200, content=RSS)]
    )

    [result] = fetch.fetch_all([FEED])

    assert route.call_count == 3
    assert result.error is None


@respx.mock
def test_not_found_is_not_retried():
    route = respx.get(FEED.url).mock(return_value=httpx.Response(404))

    [result] = fetch.fetch_all([FEED])

    assert route.call_count == 1
    assert result.error == "HTTP 404"


@respx.mock
def test_network_errors_are_reported():
    respx.get(FEED.url).mock(side_effect=httpx.ConnectError("refused"))

    [result] = fetch.fetch_all([FEED])

    assert result.entries == []
    assert result.error.startswith("network error")


def test_no_feeds_no_requests():
    assert fetch.fetch_all([]) == []
