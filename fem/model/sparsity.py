"""Sparsity pattern computed once, reused for every assembly of a matrix on the same dofs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class SparsityPattern:
    """CSR structure of a matrix assembled from element blocks.

    Attributes
    ----------
    n : matrix size (number of dofs).
    indptr, indices : CSR structure (sorted column indices, no duplicates).
    slot : (n_entries,) int, CSR data position of every element-matrix entry, in the order of
        ``element_dofs`` blocks flattened row-major (block k, row i, column j).
    diagonal : (n,) int, CSR data position of each diagonal entry.
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    slot: np.ndarray
    diagonal: np.ndarray

    @classmethod
    def from_element_dofs(cls, n: int, element_dofs: list[np.ndarray]) -> "SparsityPattern":
        """Pattern of the union of element blocks.

        Parameters
        ----------
        n : number of dofs.
        element_dofs : list of int arrays (n_elements, n_dofs_per_element), one per element family.
            The diagonal is always included.
        """
        rows = [np.repeat(d, d.shape[1], axis=1).ravel() for d in element_dofs]
        cols = [np.tile(d, (1, d.shape[1])).ravel() for d in element_dofs]
        diag = np.arange(n)
        r = np.concatenate(rows + [diag]).astype(np.int64)
        c = np.concatenate(cols + [diag]).astype(np.int64)
        key = r * n + c
        unique, inverse = np.unique(key, return_inverse=True)
        ur, uc = np.divmod(unique, n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.add.at(indptr, ur + 1, 1)
        indptr = np.cumsum(indptr)
        n_elem = key.size - n
        return cls(n, indptr, uc.astype(np.int32), inverse[:n_elem], inverse[n_elem:])

    @property
    def nnz(self) -> int:
        return int(self.indices.size)

    def assemble(self, values: list[np.ndarray]) -> sp.csr_matrix:
        """CSR matrix from element matrices, one array (n_elements, n_dofs, n_dofs) per family, in
        the order given to :meth:`from_element_dofs`."""
        return self.matrix(self.assemble_data(values))

    def assemble_data(self, values: list[np.ndarray]) -> np.ndarray:
        """CSR data (nnz,) of the matrix assembled from element matrices (see :meth:`assemble`)."""
        flat = np.concatenate([v.ravel() for v in values]) if values else np.zeros(0)
        return np.bincount(self.slot, weights=flat, minlength=self.nnz).astype(float, copy=False)

    def matrix(self, data: np.ndarray) -> sp.csr_matrix:
        """CSR matrix with this pattern and the given data (nnz,)."""
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.n, self.n))


@dataclass(frozen=True)
class SparseRows:
    """An operator (n_rows, n_cols) whose rows have at most k entries each, stored densely by row:
    ``columns`` (n_rows, k) int and ``values`` (n_rows, k). Unused entries have the value 0 (their
    column is any valid one). Contact rows (a slave node and the nodes of its master segment) are
    of this kind; products cost O(n_rows k), with no sparse-matrix object built.
    """

    columns: np.ndarray
    values: np.ndarray
    n_cols: int

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """A x, (n_rows,), for x (n_cols,)."""
        return np.einsum("rk,rk->r", self.values, x[self.columns])

    def transpose_times(self, y: np.ndarray) -> np.ndarray:
        """A^T y, (n_cols,), for y (n_rows,)."""
        return np.bincount(self.columns.ravel(), weights=(self.values * y[:, None]).ravel(), minlength=self.n_cols)

    def with_values(self, values: np.ndarray) -> "SparseRows":
        """The same columns with other values (n_rows, k)."""
        return SparseRows(self.columns, values, self.n_cols)

    def tocsr(self) -> sp.csr_matrix:
        """The operator as a CSR matrix (n_rows, n_cols), duplicates summed."""
        n, k = self.columns.shape
        return sp.csr_matrix((self.values.ravel(), (np.repeat(np.arange(n), k), self.columns.ravel())),
                             shape=(n, self.n_cols))
