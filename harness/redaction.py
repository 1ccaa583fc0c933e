"""The one place secrets are taken out of text: DSN passwords, key=value passwords, known secrets.

Both sides use it (the worker scrubs driver error messages, the runner scrubs stderr tails,
reasons and the recorded command), so it is Python 3.9 compatible and standard library only.
"""
from __future__ import annotations

import re
from typing import List, Optional
from urllib.parse import parse_qs, quote, unquote, urlsplit

# scheme://user:PASSWORD@host: greedy up to the last "@" of the token, so a password holding an
# unencoded "@" is hidden whole rather than leaking its tail
# (the user part may hold an unencoded "@" too: over-redacting a host beats leaking a password)
_URL_PASSWORD = re.compile(r"(://[^:/\s]*:)\S*@")
_KEY_PASSWORD = re.compile(r"(?i)\b(password|passwd|pwd)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&;]+)")
# "password": "..." in JSON or a Python dict's repr
_QUOTED_KEY_PASSWORD = re.compile(r"""(?i)(["'](?:password|passwd|pwd)["']\s*:\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def redact(text: str) -> str:
    """`text` with passwords in URL DSNs and in key=value pairs replaced by ***."""
    text = _URL_PASSWORD.sub(r"\1***@", text)
    text = _QUOTED_KEY_PASSWORD.sub(r'\1"***"', text)
    return _KEY_PASSWORD.sub(r"\1=***", text)


_URL_USERINFO = re.compile(r"^[A-Za-z][\w+.-]*://[^:/@\s]*:(.*)@[^@]*$", re.S)
_URL_QUERY_PASSWORD = re.compile(r"(?i)[?&;](?:password|passwd|pwd)=([^&#;]*)")
# libpq key=value: a value is '...' (with \' and \\ escapes) or a run of non-space characters
# (a backslash escapes the next one); `&`, `;`, `=`, quotes and `@` are ordinary characters there
_KV_PAIR = re.compile(r"([A-Za-z_][\w.-]*)\s*=\s*('(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.?)+)", re.S)


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value, flags=re.S)


def _is_url(dsn: str) -> bool:
    """A URL DSN (scheme://...) rather than libpq key=value pairs."""
    return re.match(r"^[A-Za-z][\w+.-]*://", dsn) is not None


def dsn_secrets(dsn: str) -> List[str]:
    """Every spelling of the password a DSN holds, as it may appear in text: as typed, decoded,
    and percent-encoded (URL form, user info or query), or as typed with and without its quotes
    and unescaped (libpq key=value form). Longest first, so a scrub replaces whole spellings.
    Why: the recorded command holds the password as typed, a driver's message as decoded."""
    dsn = (dsn or "").strip()
    found = []  # type: List[str]
    if _is_url(dsn):
        m = _URL_USERINFO.match(dsn)
        if m and m.group(1):
            found += [m.group(1), unquote(m.group(1))]
        found += [v for q in _URL_QUERY_PASSWORD.findall(dsn) for v in (q, unquote(q.replace("+", " ")))]
    else:
        for key, value in _KV_PAIR.findall(dsn):
            if key.lower() not in ("password", "passwd", "pwd"):
                continue
            inner = value[1:-1] if value.startswith("'") and value.endswith("'") and len(value) > 1 else \
                value.lstrip("'")
            found += [value, inner, _unescape(inner)]
    out = []  # type: List[str]
    for v in found:
        for spelling in (v, quote(v, safe="")):
            if spelling and spelling not in out:
                out.append(spelling)
    return sorted(out, key=len, reverse=True)


def dsn_password(dsn: str) -> Optional[str]:
    """The password a DSN holds (URL form or libpq key=value form), decoded, or None."""
    if not dsn:
        return None
    if "://" in dsn:
        m = _URL_USERINFO.match(dsn.strip())
        if m and m.group(1):  # up to the last "@": a password holding "#", "?" or "/" whole
            return unquote(m.group(1))
        try:
            q = parse_qs(urlsplit(dsn).query)
        except ValueError:
            return None
        for key in ("password", "passwd"):
            if q.get(key):
                return q[key][0]
        return None
    for key, value in _KV_PAIR.findall(dsn):
        if key.lower() == "password":
            if value.startswith("'") and value.endswith("'") and len(value) > 1:
                return _unescape(value[1:-1])
            return _unescape(value)
    return None


def dsn_args_secrets(dsn_args: List[str]) -> List[str]:
    """The secrets of every `--dsn FAMILY=DSN` given (the family prefix removed), longest first."""
    out = []  # type: List[str]
    for item in dsn_args or []:
        _, sep, dsn = item.partition("=")
        for s in dsn_secrets(dsn if sep else item):
            if s not in out:
                out.append(s)
    return sorted(out, key=len, reverse=True)


def scrub(text: str, secrets: List[str]) -> str:
    """`text` with every known secret (and its URL-quoted spelling) replaced, longest first (a
    secret that holds another is replaced whole), then `redact`ed as a second net."""
    spellings = {q for s in secrets if s and len(s) >= 3 for q in (s, quote(s, safe=""))}
    for s in sorted(spellings, key=len, reverse=True):
        text = text.replace(s, "***")
    return redact(text)


_URL_WITH_PASSWORD = re.compile(r"^([A-Za-z][\w+.-]*://)([^:/@]*):(.*)@([^@]*)$")


def normalize_dsn(dsn: str) -> str:
    """A URL DSN whose password holds unencoded reserved characters (`@`, `/`, `?`, `#`) with the
    password percent-encoded, so drivers parse it as the user meant: otherwise a driver takes
    the password's tail for the host and repeats it in its error messages, where no redaction
    can know it is a secret. Every other DSN is returned unchanged."""
    m = _URL_WITH_PASSWORD.match(dsn.strip())
    if not m:
        return dsn
    scheme, user, password, rest = m.groups()
    if not re.search(r"[@/?#]", password):
        return dsn
    return "%s%s:%s@%s" % (scheme, user, quote(unquote(password), safe=""), rest)
