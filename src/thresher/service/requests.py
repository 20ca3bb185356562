"""A request's page and options, read within the service's limits.

Every refusal is a :class:`Problem`: an HTTP status, a short machine-readable code and a
one-line message, which the application sends as a JSON body.
"""
from __future__ import annotations

import json
import typing
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .. import algorithms
from ..options import ALIASES, VALID_NAMES, Options, options_from

# Switches a client may not set: a model file path names a file on the server, and ``params``
# is a Python object no request can carry.
SERVER_ONLY = frozenset({"model", "params"})
# Query parameters of a raw-body request that are not extraction switches.
REQUEST_PARAMETERS = frozenset({"url"})
TRUE, FALSE = frozenset({"1", "true", "yes", "on"}), frozenset({"0", "false", "no", "off", ""})


class Problem(Exception):
    """A request the service refuses or could not serve: sent as ``{"error": code, "message": ...}``."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}


def client_names() -> tuple[str, ...]:
    """The switches a request may set: :func:`thresher.extract`'s, less the server-only ones."""
    return tuple(name for name in VALID_NAMES if name not in SERVER_ONLY)


async def read_body(chunks: AsyncIterator[bytes], declared: str | None, max_bytes: int) -> bytes:
    """The whole body, refused with 413 as soon as it is known to pass ``max_bytes``: from a
    declared ``Content-Length`` before anything is read, else while it streams in."""
    if declared is not None and declared.strip().isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes)
    parts, size = [], 0
    async for chunk in chunks:
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(max_bytes)
        parts.append(chunk)
    return b"".join(parts)


def _too_large(max_bytes: int) -> Problem:
    return Problem(413, "body_too_large", f"the request body is larger than {max_bytes:,} bytes",
                   max_bytes=max_bytes)


def _kinds() -> dict[str, str]:
    """Each switch's kind of value ("bool", "int", "list" or "str"), read from :class:`Options`."""
    hints = typing.get_type_hints(Options)
    kinds = {}
    for f in fields(Options):
        hint = str(hints[f.name])
        kinds[f.name] = ("bool" if "bool" in hint else "int" if "int" in hint else
                         "list" if "tuple" in hint else "str")
    return kinds


@dataclass(frozen=True)
class Switches:
    """Reads switches from a query string (text) or a JSON object (typed values) into :class:`Options`."""

    kinds: Mapping[str, str] = field(default_factory=_kinds)

    def kind(self, name: str) -> str:
        return self.kinds.get(ALIASES.get(name, name), "str")

    def _check_names(self, names: set[str]) -> None:
        valid = client_names()
        refused = sorted(names & SERVER_ONLY)
        if refused:
            raise Problem(422, "option_not_allowed", f"{', '.join(refused)}: set on the server only, "
                          "not by a request", valid=list(valid))
        unknown = sorted(names - set(valid))
        if unknown:
            raise Problem(422, "unknown_option", f"unknown option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(unknown)}; valid ones: {', '.join(valid)}", valid=list(valid))

    def from_query(self, query: Mapping[str, list[str]]) -> Options:
        """Options from query parameters (``prune`` may repeat; booleans are 1/0, true/false, yes/no, on/off)."""
        names = set(query) - REQUEST_PARAMETERS
        self._check_names(names)
        values: dict[str, Any] = {}
        for name in names:
            texts, kind = query[name], self.kind(name)
            if kind == "list":
                values[name] = tuple(texts)
                continue
            text = texts[-1]
            if kind == "bool":
                if text.strip().lower() not in TRUE | FALSE:
                    raise Problem(422, "invalid_option", f"{name}: {text!r} is not a boolean (use true or false)")
                values[name] = text.strip().lower() in TRUE
            elif kind == "int":
                try:
                    values[name] = int(text) if text.strip() else None
                except ValueError:
                    raise Problem(422, "invalid_option", f"{name}: {text!r} is not an integer") from None
            else:
                values[name] = text or None
        return self._options(values)

    def from_json(self, options: Any) -> Options:
        """Options from a JSON object: booleans as booleans, ``prune`` a string or a list of strings."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise Problem(422, "invalid_option", "options: expected a JSON object")
        self._check_names(set(options))
        for name, value in options.items():
            kind = self.kind(name)
            ok = (value is None or isinstance(value, bool) if kind == "bool" else
                  value is None or (isinstance(value, int) and not isinstance(value, bool)) if kind == "int" else
                  isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
                  if kind == "list" else value is None or isinstance(value, str))
            if not ok:
                expected = {"bool": "a boolean", "int": "an integer", "list": "a string or a list of strings",
                            "str": "a string"}[kind]
                raise Problem(422, "invalid_option", f"{name}: expected {expected}, got {json.dumps(value)}")
        return self._options({name: value for name, value in options.items() if value is not None})

    @staticmethod
    def _options(values: dict[str, Any]) -> Options:
        try:
            options = options_from(values)
        except (TypeError, ValueError) as exc:
            raise Problem(422, "invalid_option", str(exc)) from None
        known = algorithms.names()
        if options.algorithm not in known:
            raise Problem(422, "invalid_option", f"algorithm: unknown {options.algorithm!r}; known: "
                          f"{', '.join(known)}", valid=known)
        return options


@dataclass(frozen=True)
class PageRequest:
    """What to extract: a page's bytes (or a URL to fetch), the page's URL, and the options."""

    html: bytes | str | None
    url: str | None
    options: Options
    fetch: bool  # True: ``url`` is to be fetched (no html was given)


def json_request(body: bytes, switches: Switches) -> PageRequest:
    """``{"html": ..., "url": ..., "options": {...}}``: html, url or both (then url is the page's URL)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Problem(400, "invalid_json", f"the body is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise Problem(400, "invalid_json", "the body must be a JSON object with html or url")
    unknown = sorted(set(data) - {"html", "url", "options"})
    if unknown:
        raise Problem(422, "unknown_field", f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                      "valid ones: html, url, options")
    html, url = data.get("html"), data.get("url")
    if html is not None and not isinstance(html, str):
        raise Problem(422, "invalid_field", "html: expected a string")
    if url is not None and not isinstance(url, str):
        raise Problem(422, "invalid_field", "url: expected a string")
    if html is None and not url:
        raise Problem(422, "missing_page", "give html (the page) or url (a page to fetch)")
    options = switches.from_json(data.get("options"))
    return PageRequest(html, url, options, fetch=html is None)


def raw_request(body: bytes, query: Mapping[str, list[str]], switches: Switches,
                content_type: str | None = None) -> PageRequest:
    """A raw page body, with its options (and its ``url``) in the query string. A charset in the
    request's ``content_type`` is the page's, unless the ``content_type`` option says otherwise."""
    options = switches.from_query(query)
    if content_type and "charset=" in content_type.lower() and options.content_type is None:
        options = options_from({"content_type": content_type}, options)
    url = query.get("url", [None])[-1] or None
    return PageRequest(body, url, options, fetch=False)
