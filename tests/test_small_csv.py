"""swarmstats.io.small_csv: a small table of plain numbers parsed by numpy reads as pandas reads
it, and anything else is left to pandas."""

import io

import numpy as np
import pandas as pd
import pytest

from swarmstats.io.small_csv import SMALL_TABLE_BYTES, numeric_rows


@pytest.mark.parametrize("text", [
    "a,b\n1,2\n3,4\n",
    "a,b\r\n1,2\r\n3,4\r\n",                       # Windows line ends
    "a,b,c\n1,,3\n,5,\n7,8,9",                      # empty cells, no final newline
    "step,x\n0,nan\n1,inf\n2,-inf\n3,1e-300\n",     # what float() and pandas both read
    "x\n1\n2\n",                                    # one column
    "mean 100 episode reward,steps\n-3.1,1874\n",   # a header name with spaces (baselines)
    "a,b\n0.1,2.000000000000001\n-0.0,12345678901234\n",
    "a,b\n1,2\n\n",                                 # blank lines at the end
])
def test_what_numpy_reads_equals_pandas(text):
    names, rows = numeric_rows(text)
    expected = pd.read_csv(io.StringIO(text)).astype(float)
    assert names == expected.columns.tolist()
    np.testing.assert_array_equal(rows, expected.to_numpy())


@pytest.mark.parametrize("text, why", [
    ('a,b\n1,"2"\n', "a quoted cell"),
    ("a,b\n1,NA\n", "a missing-value token pandas knows"),
    ("a,b\n1,None\n", "a word"),
    ("a,b\n1,True\n", "a boolean"),
    ("a,b\n1, 2\n", "a space"),
    ("a,b\n1;2\n", "another separator"),
    ("a,b\n# note\n1,2\n", "a comment line"),
    ("a,b\n1,2,3\n", "a long row"),
    ("a,b\n1\n", "a short row"),
    ("x\n1\n\n2\n", "a blank line inside (pandas skips it)"),
    ("a,a\n1,2\n", "a repeated name"),
    ("a,\n1,2\n", "a blank name"),
    (" a,b\n1,2\n", "a name with spaces around it"),
    ("a,b\n", "no rows"),
    ("a,b\n" + "1,2\n" * (SMALL_TABLE_BYTES // 4), "too big to gain"),
])
def test_anything_else_is_left_to_pandas(text, why):
    assert numeric_rows(text) is None, why
