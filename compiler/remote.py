"""Remote targets (spec §1): GitHub shorthand and https URLs on an allowlist.

A host off the allowlist, or any scheme but https, is refused before a
connection is opened; redirects are followed only to allowlisted https
hosts; bodies are capped and reads time out. The fetcher is a parameter so
tests serve fixtures without the internet, while the command line always
uses `fetch_https` with the fixed allowlist.
"""

from __future__ import annotations

import hashlib
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

ALLOWED_HOSTS = frozenset({"github.com", "raw.githubusercontent.com", "gitlab.com"})
MAX_BYTES = 2 * 1024 * 1024
TIMEOUT_SECONDS = 15
_SHORTHAND = re.compile(r"^(?:gh:)?([\w.-]+)/([\w.-]+)(?:/(.+))?$")

Fetcher = Callable[[str], bytes]


class RemoteError(Exception):
    """A remote target that cannot be used; the message is one line."""


@dataclass(frozen=True, slots=True)
class Remote:
    label: str  # what the user sees: gh:owner/repo/path or the URL
    group_id: str  # gh:owner/repo/path or url:host/path
    url: str  # where the content came from
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def is_remote(target: str) -> bool:
    return target.startswith(("https://", "http://", "gh:"))


def looks_like_shorthand(target: str) -> bool:
    return bool(_SHORTHAND.match(target))


def checked_request(url: str) -> urllib.request.Request:
    """The request urllib will send for `url`, refused before any connection unless it is https to an allowlisted host.

    The URL is parsed once, by urllib's own Request (what the connection then
    uses), and its host must be exactly an allowlisted name: no user info
    (`user@host`), no port, no other spelling.
    """
    try:
        request = urllib.request.Request(url)
    except ValueError as exc:
        raise RemoteError(f"{url}: not a URL ({exc})") from None
    if request.type != "https":
        raise RemoteError(f"{url}: only https URLs are fetched")
    host = request.host or ""
    if "@" in host:
        raise RemoteError(f"{url}: URLs with user info (user@host) are refused")
    if ":" in host:
        raise RemoteError(f"{url}: URLs with a port are refused")
    if host.lower() not in ALLOWED_HOSTS:
        raise RemoteError(f"{url}: host {host!r} is not on the allowlist ({', '.join(sorted(ALLOWED_HOSTS))})")
    return request


def check_url(url: str) -> None:
    """Refuse, before any connection, a URL that is not https on an allowlisted host."""
    checked_request(url)


class _AllowlistRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        check_url(newurl)  # a redirect off the list is refused like a direct request
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def fetch_https(url: str) -> bytes:
    """GET an allowlisted https URL: redirects checked, body capped, reads timed out."""
    request = checked_request(url)
    opener = urllib.request.build_opener(_AllowlistRedirects)
    try:
        with opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            data = response.read(MAX_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise RemoteError(f"{url}: HTTP {exc.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise RemoteError(f"{url}: {getattr(exc, 'reason', exc)}") from None
    if len(data) > MAX_BYTES:
        raise RemoteError(f"{url}: larger than {MAX_BYTES} bytes")
    return data


def _candidates(target: str) -> list[tuple[str, str]]:
    """(url, group id) in resolution order for a shorthand or URL target."""
    if target.startswith(("https://", "http://")):
        parts = urlsplit(target)
        return [(target, f"url:{parts.hostname}{parts.path}")]
    m = _SHORTHAND.match(target)
    if not m:
        raise RemoteError(f"{target}: not an owner/repo[/path] shorthand or an https URL")
    owner, repo, sub = m.group(1), m.group(2), (m.group(3) or "").strip("/")
    base = f"https://raw.githubusercontent.com/{owner}/{repo}/HEAD/"
    group = f"gh:{owner}/{repo}" + (f"/{sub}" if sub else "")
    paths = [f"{sub}/SKILL.md", sub, f"{sub}/AGENTS.md"] if sub else ["SKILL.md", "AGENTS.md"]
    return [(base + p, group) for p in paths]


def group_of(target: str) -> str:
    """The group id a remote target will have, known before anything is fetched."""
    return _candidates(target)[0][1]


def resolve(target: str, fetcher: Fetcher = fetch_https) -> Remote:
    """Fetch a remote target, trying the §1 resolution order; refused hosts never connect."""
    candidates = _candidates(target)
    for url, _ in candidates:
        check_url(url)
    errors = []
    for url, group in candidates:
        try:
            return Remote(target if target.startswith("gh:") or "://" in target else f"gh:{target}", group, url, fetcher(url))
        except RemoteError as exc:
            errors.append(str(exc))
    raise RemoteError(f"{target}: nothing to fetch ({'; '.join(errors)})")
