"""Check a TPC-H query's answer against the answer sets, with the spec's precision rules.

Worker side: standard library only, Python 3.9 compatible. The benchmark worker calls
`load_expected` in its untimed setup and `compare` after each iteration; `check_answer` does both.

Answer sets (directory `tpch-answers`, found as $CROSSINGS_TPCH_ANSWERS or
`<project root>/data/tpch-answers`, shipped with the project; see its README for provenance):
- ``sf1/q<N>.out``: the official TPC-H 2.14 kit answers (authoritative): a header line, then rows of
  ``|``-separated values padded with spaces, numbers already reported to 1/100.
- ``sf0.01/q<NN>.csv``, ``sf0.1/q<NN>.csv``: computed by DuckDB on dbgen-identical data; ``|``-separated
  with a header, numbers at full precision.

Precision rules (TPC-H spec, clause 2.1.3.5, and the kit's ``check_answers/colprecision.txt``, which
classes each output column):
- ``str``: identical text (trailing blanks ignored: the official answers pad CHAR columns);
- ``int``, ``cnt``: identical integers (singleton integers, COUNT results);
- ``num``: singleton decimals, identical when reported to 1/100;
- ``sum``: SUM results, within $100 when reported to 1/100;
- ``avg``: AVG results, within 1% when reported to 1/100;
- ``rat``: ratios (results of divisions), within 1% when reported to 1/100.
"Reported to 1/100" is rounding half up, applied to both sides. A value computed in binary floating
point can sit a hair below a .xx5 boundary (0.034999999999999996 for 0.035); such a value passes if
either neighbouring rounding passes, so float noise never fails an answer, a real difference does.
"""
from __future__ import annotations

import csv
import datetime
import decimal
import os

from harness.fsutil import PROJECT_ROOT

# colprecision.txt from the TPC-H 2.14 kit, one line per query (also in sf1/colprecision.txt; a test
# keeps the two identical).
COLPRECISION = {
    1: "str str sum sum sum sum avg avg avg cnt",
    2: "num str str int str str str str",
    3: "int sum str int",
    4: "str cnt",
    5: "str sum",
    6: "sum",
    7: "str str int sum",
    8: "int rat",
    9: "str int sum",
    10: "int str sum num str str str str",
    11: "int sum",
    12: "str sum sum",
    13: "cnt cnt",
    14: "rat",
    15: "int str str str sum",
    16: "str str num cnt",
    17: "avg",
    18: "str int int str num sum",
    19: "sum",
    20: "str str",
    21: "str cnt",
    22: "num cnt sum",
}

_CENT = decimal.Decimal("0.01")
_TOL_SUM = decimal.Decimal("100")
_TOL_REL = decimal.Decimal("0.01")
_FLOAT_NOISE = decimal.Decimal("1e-9")
_MAX_NUDGE = decimal.Decimal("0.004")


class Expected(object):
    """One query's expected answer: column classes and rows of text values."""

    __slots__ = ("query_no", "sf", "source", "classes", "header", "rows")

    def __init__(self, query_no, sf, source, classes, header, rows):
        self.query_no = query_no
        self.sf = sf
        self.source = source
        self.classes = classes
        self.header = header
        self.rows = rows

    def __repr__(self):
        return "Expected(q%d, sf%s, %d rows from %s)" % (self.query_no, self.sf, len(self.rows), self.source)


def format_sf(sf):
    """0.01 -> '0.01', 1.0 -> '1' (the answer directories are named sf0.01, sf0.1, sf1)."""
    text = repr(float(sf))
    return text[:-2] if text.endswith(".0") else text


def default_answers_dir():
    env = os.environ.get("CROSSINGS_TPCH_ANSWERS")
    if env:
        return env
    return os.path.join(str(PROJECT_ROOT), "data", "tpch-answers")


def answer_file(query_no, sf, answers_dir=None):
    """Path of the answer file for (query, sf), or None if that scale factor has no answer set."""
    base = os.path.join(answers_dir or default_answers_dir(), "sf" + format_sf(sf))
    for name in ("q%d.out" % query_no, "q%02d.csv" % query_no):
        path = os.path.join(base, name)
        if os.path.exists(path):
            return path
    return None


def available_sfs(answers_dir=None):
    """Scale factors (as text) that have answer files."""
    base = answers_dir or default_answers_dir()
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return []
    return [n[2:] for n in names if n.startswith("sf") and answer_file(1, n[2:], base)]


def load_expected(query_no, sf, answers_dir=None):
    """Read the expected answer of query `query_no` at scale factor `sf`. Raises LookupError if the
    answer set has no file for it."""
    query_no = int(query_no)
    if query_no not in COLPRECISION:
        raise LookupError("TPC-H has queries 1..22, not %r" % (query_no,))
    path = answer_file(query_no, sf, answers_dir)
    if path is None:
        raise LookupError(
            "no TPC-H answer for q%d at sf%s under %s (answer sets exist for sf %s)"
            % (query_no, format_sf(sf), answers_dir or default_answers_dir(),
               ", ".join(available_sfs(answers_dir)) or "none")
        )
    classes = COLPRECISION[query_no].split()
    with open(path, newline="") as fh:
        if path.endswith(".out"):
            lines = [line.rstrip("\r\n") for line in fh]
            lines = [line for line in lines if line.strip()]
            header = [h.strip() for h in lines[0].split("|")]
            rows = [_split_out_line(line, classes) for line in lines[1:]]
        else:
            reader = csv.reader(fh, delimiter="|")
            header = next(reader)
            rows = [list(r) for r in reader if r]
    for i, row in enumerate(rows):
        if len(row) != len(classes):
            raise ValueError("%s line %d: %d values, colprecision has %d" % (path, i + 2, len(row), len(classes)))
    return Expected(query_no, format_sf(sf), path, classes, header, rows)


def _split_out_line(line, classes):
    values = line.split("|")
    out = []
    for value, cls in zip(values, classes):
        # strings are right-padded (and may start with a blank); numbers are left-padded
        out.append(value.rstrip() if cls == "str" else value.strip())
    out.extend(values[len(classes):])
    return out


def _text(value):
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()[:10] if not isinstance(value, datetime.datetime) else value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _decimal(value):
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, float):
        return decimal.Decimal(repr(value))  # shortest round-trip text: 0.035 stays 0.035
    if isinstance(value, bool):
        raise TypeError("boolean")
    if isinstance(value, int):
        return decimal.Decimal(value)
    return decimal.Decimal(_text(value).strip())


def _roundings(value):
    """The value reported to 1/100 (half up), plus the neighbour if the value is within float noise
    of a rounding boundary."""
    exact = _decimal(value)
    result = [exact.quantize(_CENT, rounding=decimal.ROUND_HALF_UP)]
    if isinstance(value, float) and exact != 0:
        # accumulated float error of an aggregate, relative; capped below half a cent so the
        # candidates are never more than the two cents either side of a .xx5 boundary
        eps = min(abs(exact) * _FLOAT_NOISE, _MAX_NUDGE)
        for nudged in (exact - eps, exact + eps):
            r = nudged.quantize(_CENT, rounding=decimal.ROUND_HALF_UP)
            if r not in result:
                result.append(r)
    return result


def compare_value(cls, got, expected):
    """None if `got` (a driver value) matches `expected` (text) under column class `cls`, else a
    short reason."""
    if expected.strip() in ("NULL", ""):
        return None if got is None else "got %r, expected NULL" % (got,)
    if got is None:
        return "got NULL, expected %s" % (expected,)
    try:
        if cls == "str":
            text = _text(got).rstrip()
            return None if text == expected.rstrip() else "got %r, expected %r" % (text, expected.rstrip())
        if cls in ("int", "cnt"):
            g = _decimal(got)
            e = decimal.Decimal(expected.strip())
            if g != g.to_integral_value() or g != e:
                return "got %s, expected %s (exact)" % (got, expected)
            return None
        e = _decimal(expected).quantize(_CENT, rounding=decimal.ROUND_HALF_UP)
        candidates = _roundings(got)
        if cls == "num":
            tol = decimal.Decimal(0)
            what = "identical to 1/100"
        elif cls == "sum":
            tol = _TOL_SUM
            what = "within 100"
        elif cls in ("avg", "rat"):
            tol = abs(e) * _TOL_REL
            what = "within 1%"
        else:
            raise ValueError("unknown column class %r" % (cls,))
        for g in candidates:
            if abs(g - e) <= tol:
                return None
        return "got %s (reported %s), expected %s (%s)" % (got, candidates[0], e, what)
    except (decimal.InvalidOperation, ValueError, TypeError) as exc:
        return "got %r, expected %r (%s)" % (got, expected, exc)


def compare(expected, rows):
    """None if `rows` (a list of tuples from the driver, in the query's order) matches `expected`
    (from `load_expected`), else a reason naming the first difference."""
    if len(rows) != len(expected.rows):
        return "q%d: %d rows, expected %d" % (expected.query_no, len(rows), len(expected.rows))
    width = len(expected.classes)
    for i, (got_row, exp_row) in enumerate(zip(rows, expected.rows)):
        if len(got_row) != width:
            return "q%d row %d: %d columns, expected %d" % (expected.query_no, i + 1, len(got_row), width)
        for j in range(width):
            reason = compare_value(expected.classes[j], got_row[j], exp_row[j])
            if reason is not None:
                name = expected.header[j] if j < len(expected.header) else str(j + 1)
                return "q%d row %d column %d (%s, %s): %s" % (
                    expected.query_no, i + 1, j + 1, name, expected.classes[j], reason)
    return None


def expected_from_rows(query_no, rows, source="another engine"):
    """Build an `Expected` from another engine's result rows (cross-engine comparison)."""
    classes = COLPRECISION[int(query_no)].split()
    return Expected(int(query_no), "?", source, classes, [str(i + 1) for i in range(len(classes))],
                    [[_text(v) if v is not None else "NULL" for v in r] for r in rows])


_CACHE = {}


def check_answer(query_no, rows, sf, answers_dir=None):
    """None if `rows` is the right answer for TPC-H query `query_no` at scale factor `sf`, else a
    reason. Expected answers are read once per process and cached."""
    key = (int(query_no), format_sf(sf), answers_dir)
    expected = _CACHE.get(key)
    if expected is None:
        expected = _CACHE[key] = load_expected(query_no, sf, answers_dir)
    return compare(expected, rows)
