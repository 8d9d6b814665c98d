"""Other libraries' objects as the arrays, series and frames the estimators read.

pyarrow and polars tables become pandas DataFrames (one column per run, as a pandas frame
is read) and their arrays and series numpy arrays: numpy's own conversion of a table gives a
rows x columns array, which would be read as one run per *row*.  xarray and ArviZ objects are
read by their dimensions:

MCMC output arrives as an ArviZ ``InferenceData`` or an xarray ``Dataset`` / ``DataArray`` whose
dimensions say what each axis is: ``chain`` and ``draw``, then any dimensions of the variable
itself.  Chains are runs and draws are steps, so a ``(chain, draw)`` variable is a runs x steps
array; a variable with one dimension is one series (its coordinate the step axis).  Several
variables, or a variable with its own dimensions, need choosing: the error names them.  Neither
library is imported here: objects are recognised by the module their type comes from.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError

#: the InferenceData groups that hold draws, in the order one is chosen
DRAW_GROUPS = ("posterior", "sample_stats", "prior")


def library_of(y) -> str | None:
    """"xarray" or "arviz" when ``y`` is one of their objects, else None."""
    root = type(y).__module__.split(".")[0]
    return root if root in ("xarray", "arviz") else None


def from_foreign(y, argname: str):
    """``y`` as numpy / pandas when it comes from pyarrow, polars, xarray or ArviZ (see the
    module docstring); anything else as it is."""
    root = type(y).__module__.split(".")[0]
    if root == "pyarrow":
        if hasattr(y, "column_names"):  # a Table or RecordBatch
            return pd.DataFrame({str(name): y.column(name).to_numpy() for name in y.column_names})
        if hasattr(y, "to_numpy"):  # an Array or ChunkedArray (nulls become NaN for floats)
            return np.asarray(y.to_numpy(zero_copy_only=False))
    if root == "polars":
        if hasattr(y, "columns") and hasattr(y, "get_column"):  # a DataFrame
            return pd.DataFrame({str(name): y.get_column(name).to_numpy() for name in y.columns})
        if hasattr(y, "to_numpy"):  # a Series
            return pd.Series(y.to_numpy(), name=y.name or None)
    return from_labelled(y, argname)


def is_labelled(y) -> bool:
    return library_of(y) is not None


def draws_dataset(y, argname: str):
    """The xarray Dataset of draws in ``y``: an InferenceData's posterior (or the first group
    holding draws), or ``y`` itself when it is a Dataset."""
    if library_of(y) == "arviz":
        groups = list(y.groups()) if hasattr(y, "groups") else []
        chosen = next((g for g in DRAW_GROUPS if g in groups), groups[0] if groups else None)
        if chosen is None:
            raise InputError(f"{argname}: the InferenceData holds no group of draws")
        return getattr(y, chosen)
    return y


def from_labelled(y, argname: str):
    """A (chain, draw) variable as a runs x steps array (one chain: a series), a 1-D variable
    as a pandas Series on its coordinate; anything else an InputError saying what to pick.
    Objects of other libraries are returned as they are.
    """
    if not is_labelled(y):
        return y
    data = draws_dataset(y, argname)
    if hasattr(data, "data_vars"):  # a Dataset: one variable, or the caller must choose
        names = [str(name) for name in data.data_vars]
        if len(names) != 1:
            raise InputError(f"{argname}: {len(names)} variables ({', '.join(names[:8])}"
                             f"{', ...' if len(names) > 8 else ''}); pass one, e.g. "
                             f"idata.posterior[{names[0]!r}] (read_log reads them all, each "
                             "chain a run)" if names else f"{argname}: the Dataset holds no variable")
        data = data[names[0]]
    dims = tuple(str(d) for d in data.dims)
    if dims[:2] == ("chain", "draw") and len(dims) == 2:
        values = np.asarray(data.values)
        return values[0] if values.shape[0] == 1 else values
    if len(dims) == 1:
        coordinate = data[dims[0]].values if dims[0] in data.coords else None
        index = (pd.Index(coordinate, name=dims[0]) if coordinate is not None
                 and np.issubdtype(np.asarray(coordinate).dtype, np.number) else None)
        return pd.Series(np.asarray(data.values), index=index, name=data.name)
    extra = [d for d in dims if d not in ("chain", "draw")]
    raise InputError(f"{argname}: the variable {data.name!r} has dimensions {dims}; select one "
                     f"element of {', '.join(extra) or 'them'} (e.g. .sel({extra[0] if extra else dims[0]}=...)) "
                     "- chains are read as runs and draws as steps")


def tidy_draws(y, source: str = "draws") -> pd.DataFrame:
    """Every variable of an InferenceData or Dataset as a tidy log: run (the chain), step (the
    draw), metric (the variable, ``name[i,j]`` for each element of its own dimensions), value."""
    data = draws_dataset(y, source)
    if not hasattr(data, "data_vars"):  # one DataArray
        data = data.to_dataset(name=str(data.name or "value"))
    parts = []
    for name in data.data_vars:
        variable = data[name]
        dims = tuple(str(d) for d in variable.dims)
        if dims[:2] != ("chain", "draw"):
            raise InputError(f"{source}: the variable {name!r} has dimensions {dims}; "
                             "draws need (chain, draw, ...)")
        values = np.asarray(variable.values, dtype=float)
        chains, draws = values.shape[:2]
        flat = values.reshape(chains, draws, -1)
        labels = ([str(name)] if flat.shape[2] == 1 and values.ndim == 2 else
                  [f"{name}[{','.join(map(str, index))}]" for index in np.ndindex(*values.shape[2:])])
        steps = np.asarray(variable["draw"].values) if "draw" in variable.coords else np.arange(draws)
        for k, label in enumerate(labels):
            parts.append(pd.DataFrame({"run": np.repeat(np.arange(chains), draws),
                                       "step": np.tile(steps, chains),
                                       "metric": label, "value": flat[:, :, k].ravel()}))
    if not parts:
        raise InputError(f"{source}: no variable to read")
    frame = pd.concat(parts, ignore_index=True)
    return frame[np.isfinite(frame["value"].to_numpy())].reset_index(drop=True)
