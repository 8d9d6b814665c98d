"""swarmstats.io.plain_csv: a table of plain numbers read by numpy (small) or by pandas told
there is no header (larger) reads as pandas' ordinary read_csv reads it, and anything else is
left to the ordinary read."""

import io

import numpy as np
import pandas as pd
import pytest

from swarmstats.io import plain_csv
from swarmstats.io.plain_csv import PLAIN_TABLE_BYTES, numeric_table


@pytest.fixture(params=["numpy", "pandas"])
def parser(request, monkeypatch):
    """Each test runs through both parsers: the size limit between them moved out of the way."""
    monkeypatch.setattr(plain_csv, "NUMPY_TABLE_BYTES", PLAIN_TABLE_BYTES if request.param == "numpy" else -1)
    return request.param


@pytest.mark.parametrize("text", [
    "a,b\n1,2\n3,4\n",
    "a,b\r\n1,2\r\n3,4\r\n",                       # Windows line ends
    "a,b,c\n1,,3\n,5,\n7,8,9",                      # empty cells, no final newline
    "a,b\n1,\n2,\n",                                # a column empty but for... nothing
    "step,x\n0,1e-300\n1,-2.5E+3\n2,-0.0\n",
    "x\n1\n2\n",                                    # one column
    "mean 100 episode reward,steps\n-3.1,1874\n",   # a header name with spaces (baselines)
    "a,b\n0.1,2.000000000000001\n-0.0,12345678901234\n",
    "a,b\n1,2\n\n",                                 # blank lines at the end
    "a,b\n1,inf\n-inf,2\n",                         # a word that is a number: missing-value tokens of our own
])
def test_what_each_parser_reads_equals_pandas(text, parser):
    names, rows = numeric_table(text.encode())
    expected = pd.read_csv(io.StringIO(text)).astype(float)
    assert names == expected.columns.tolist()
    np.testing.assert_array_equal(rows, expected.to_numpy())


@pytest.mark.parametrize("text, why", [
    ('a,b\n1,"2"\n', "a quoted cell"),
    ("a,b\n1,NA\n", "a missing-value token pandas knows"),
    ("a,b\n1,None\n", "a word"),
    ("a,b\n1,True\n", "a boolean"),
    ("a,b\n1, 2\n", "a space"),
    ("a,b\n1\t2\n", "a tab"),
    ("a,b\n1;2\n", "another separator"),
    ("a,b\n# note\n1,2\n", "a comment line"),
    ("a,b\n1,2,3\n", "a long row"),
    ("a,b\n1,2\n3,4,5\n", "a long row further down"),
    ("a,b\n1\n", "a short row"),
    ("a,b\na,b\n1,2\n", "the header again"),
    ("a,a\n1,2\n", "a repeated name"),
    ("a,\n1,2\n", "a blank name"),
    (" a,b\n1,2\n", "a name with spaces around it"),
    ('"a",b\n1,2\n', "a quoted name"),
    ("a,b\n", "no rows"),
    ("a,b\n\n\n", "blank lines only"),
])
def test_anything_else_is_left_to_the_ordinary_read(text, why, parser):
    assert numeric_table(text.encode()) is None, why


def test_a_blank_line_inside_is_skipped_by_pandas_and_left_alone_by_numpy(parser):
    # pandas skips it (as the ordinary read does); numpy would read a row of NaN: refused
    got = numeric_table(b"x\n1\n\n2\n")
    if parser == "numpy":
        assert got is None
    else:
        assert got[0] == ["x"] and got[1].tolist() == [[1.0], [2.0]]


def test_a_table_too_big_to_gain_is_left_alone():
    assert numeric_table(b"a,b\n" + b"1,2\n" * (PLAIN_TABLE_BYTES // 4)) is None


def test_the_size_decides_the_parser(monkeypatch):
    calls = []
    monkeypatch.setattr(plain_csv, "_numpy_rows", lambda body: calls.append("numpy"))
    monkeypatch.setattr(plain_csv, "_pandas_rows", lambda body: calls.append("pandas"))
    small = b"a,b\n" + b"1,2\n" * 10
    numeric_table(small)
    numeric_table(b"a,b\n" + b"1,2\n" * (plain_csv.NUMPY_TABLE_BYTES // 4 + 1))
    assert calls == ["numpy", "pandas"]


def test_a_byte_that_is_not_utf8_is_left_to_the_caller_to_name(parser):
    with pytest.raises(UnicodeDecodeError):
        numeric_table(b"a,b\n1,2\n\xe9,3\n" + b"1,2\n" * 10)


def test_the_nan_cells_marked_written_are_the_cells_written_as_a_token(parser):
    """Each NaN the log wrote (``nan`` in any case, a sign allowed) is marked as written and
    an empty cell is not: on random tables with and without empty cells (without them, numpy's
    parse is read off directly; with them, the cells are found in the bytes)."""
    from swarmstats.io.written_nan import is_written

    rng = np.random.default_rng(3)
    tokens = ["nan", "NaN", "NAN", "-nan", "+NAN", "-NaN"]
    for _ in range(200):
        shape = rng.integers(1, 6, size=2)
        cells = rng.choice(["0.5", "-2", "1e3", "nan", ""], size=shape, p=[0.4, 0.2, 0.1, 0.2, 0.1])
        cells = np.where(cells == "nan", rng.choice(tokens, size=shape), cells)
        if rng.random() < 0.5:
            cells[cells == ""] = "7"  # tables without an empty cell
        if shape[1] == 1:
            cells[cells == ""] = "7"  # (a one-column empty cell is a blank line: another test's)
        text = "\n".join([",".join(f"c{j}" for j in range(shape[1]))] + [",".join(row) for row in cells])
        got = numeric_table(text.encode())
        assert got is not None, text
        expected = np.isin(np.char.lower(np.char.lstrip(cells.astype(str), "+-")), ["nan"])
        np.testing.assert_array_equal(is_written(got[1]), expected, err_msg=text)
        np.testing.assert_array_equal(np.isnan(got[1]), expected | (cells == ""), err_msg=text)
