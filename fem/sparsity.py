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
        flat = np.concatenate([v.ravel() for v in values]) if values else np.zeros(0)
        data = np.bincount(self.slot, weights=flat, minlength=self.nnz).astype(float, copy=False)
        return self.matrix(data)

    def matrix(self, data: np.ndarray) -> sp.csr_matrix:
        """CSR matrix with this pattern and the given data (nnz,)."""
        return sp.csr_matrix((data, self.indices, self.indptr), shape=(self.n, self.n))
