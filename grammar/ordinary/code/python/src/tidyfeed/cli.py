# policyc ordinary sample: an everyday Python command-line module (argparse, subcommands, exit codes).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/python/ to measure rule breadth.

"""Command-line interface: `tidyfeed add|list|read|sync|export`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .config import Config, load_config
from .fetch import fetch_all
from .store import Store

DEFAULT_DB = Path.home() / ".local" / "share" / "tidyfeed" / "feeds.db"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tidyfeed", description="Read RSS and Atom feeds in the terminal.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, help="where entries are stored")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="print more (repeat for more)")
    commands = parser.add_subparsers(dest="command", required=True)

    add = commands.add_parser("add", help="subscribe to a feed")
    add.add_argument("url")
    add.add_argument("--name")
    add.add_argument("--tag", action="append", default=[], dest="tags")

    listing = commands.add_parser("list", help="show entries, newest first")
    listing.add_argument("--unread", action="store_true")
    listing.add_argument("--tag")
    listing.add_argument("-n", "--limit", type=int, default=30)

    read = commands.add_parser("read", help="open an entry and mark it read")
    read.add_argument("entry_id", type=int)

    sync = commands.add_parser("sync", help="fetch all feeds now")
    sync.add_argument("--only", metavar="TAG")
    sync.add_argument("--jobs", type=int, default=8)

    export = commands.add_parser("export", help="write subscriptions as OPML")
    export.add_argument("output", type=Path, nargs="?", default=Path("feeds.opml"))
    return parser


def cmd_add(store: Store, args: argparse.Namespace) -> int:
    if store.has_feed(args.url):
        print(f"already subscribed: {args.url}", file=sys.stderr)
        return 1
    feed = store.add_feed(args.url, name=args.name, tags=args.tags)
    print(f"added {feed.name or feed.url} (#{feed.id})")
    return 0


def cmd_list(store: Store, args: argparse.Namespace) -> int:
    entries = store.entries(unread_only=args.unread, tag=args.tag, limit=args.limit)
    if not entries:
        print("nothing new")
        return 0
    width = max(len(str(entry.id)) for entry in entries)
    for entry in entries:
        marker = " " if entry.read else "*"
        print(f"{marker} {entry.id:>{width}}  {entry.published:%Y-%m-%d}  {entry.feed_name}: {entry.title}")
    return 0


def cmd_read(store: Store, args: argparse.Namespace) -> int:
    entry = store.entry(args.entry_id)
    if entry is None:
        print(f"no entry {args.entry_id}", file=sys.stderr)
        return 1
    print(entry.title)
    print(entry.link)
    print()
    print(entry.summary_text())
    store.mark_read(entry.id)
    return 0


def cmd_sync(store: Store, config: Config, args: argparse.Namespace) -> int:
    feeds = store.feeds(tag=args.only)
    results = fetch_all(feeds, jobs=args.jobs, timeout=config.timeout_seconds)
    failed = 0
    for result in results:
        if result.error:
            failed += 1
            print(f"{result.feed.url}: {result.error}", file=sys.stderr)
        else:
            store.add_entries(result.feed, result.entries)
    new = sum(len(r.entries) for r in results if not r.error)
    print(f"{new} new entries from {len(feeds) - failed} feeds")
    return 1 if failed and failed == len(feeds) else 0


def cmd_export(store: Store, args: argparse.Namespace) -> int:
    args.output.write_text(store.to_opml(), encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    config = load_config()
    args.db.parent.mkdir(parents=True, exist_ok=True)
    with Store.open(args.db) as store:
        if args.command == "add":
            return cmd_add(store, args)
        if args.command == "list":
            return cmd_list(store, args)
        if args.command == "read":
            return cmd_read(store, args)
        if args.command == "sync":
            return cmd_sync(store, config, args)
        return cmd_export(store, args)


if __name__ == "__main__":
    raise SystemExit(main())
