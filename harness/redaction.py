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


def dsn_password(dsn: str) -> Optional[str]:
    """The password a DSN holds (URL form or libpq key=value form), or None."""
    if not dsn:
        return None
    if "://" in dsn:
        try:
            parts = urlsplit(dsn)
            pw = parts.password
        except ValueError:
            return None
        if pw:
            return unquote(pw)
        q = parse_qs(parts.query)
        for key in ("password", "passwd"):
            if q.get(key):
                return q[key][0]
        return None
    m = re.search(r"(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", dsn)
    if not m:
        return None
    value = m.group(1)
    if value.startswith("'") and value.endswith("'"):
        value = value[1:-1].replace("\\'", "'").replace("\\\\", "\\")
    return value


def scrub(text: str, secrets: List[str]) -> str:
    """`text` with every known secret (and its URL-quoted spelling) replaced, then `redact`ed."""
    for s in secrets:
        if s and len(s) >= 3:
            text = text.replace(s, "***").replace(quote(s, safe=""), "***")
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
