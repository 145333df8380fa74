"""Converters from method libraries' graph encodings to the arena's convention.

The arena's convention everywhere: ``A[i, j] = 1`` means i → j (row =
parent); an undirected CPDAG edge is ``A[i, j] = A[j, i] = 1``. Libraries
differ (case I7 in the shared cases): causal-learn stores i → j as
``G[j, i] = 1, G[i, j] = −1``; lingam's ``B[i, j] ≠ 0`` means j → i. These
functions are plain numpy on the library's matrix, so the core needs none of
those libraries; every adapter calls them instead of re-deriving a convention.
"""

from __future__ import annotations

import numpy as np


def causallearn_to_adjacency(graph: np.ndarray) -> np.ndarray:
    """Convert a causal-learn ``GeneralGraph.graph`` endpoint matrix to our adjacency.

    causal-learn encodes i → j as ``graph[j, i] = 1, graph[i, j] = -1``
    (an arrowhead at j, a tail at i) and i — j as ``graph[i, j] = graph[j, i] = -1``
    (causal-learn's ``GeneralGraph`` docstring and the ``pc``/``ges`` return values).
    A bidirected pair ``graph[i, j] = graph[j, i] = 1`` (conflicting v-structures)
    leaves the orientation unknown and is returned as undirected.

    Args:
        graph: (d × d) integer endpoint matrix.

    Returns:
        (d × d) int8, ``A[i, j] = 1`` for i → j; ``A[i, j] = A[j, i] = 1`` for an
        undirected (or bidirected) pair.

    Raises:
        ValueError: not square, or an endpoint value outside {−1, 0, 1}
            (PAG circle endpoints, value 2, are not a CPDAG).
    """
    G = np.asarray(graph)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"causal-learn graph must be square (d × d), got shape {G.shape}")
    if not np.isin(G, (-1, 0, 1)).all():
        raise ValueError(f"causal-learn graph has endpoint values {sorted(set(np.unique(G).tolist()) - {-1, 0, 1})}"
                         " outside {-1, 0, 1}: not a CPDAG")
    directed = (G == -1) & (G.T == 1)
    undirected = (G == -1) & (G.T == -1)
    bidirected = (G == 1) & (G.T == 1)
    return (directed | undirected | bidirected).astype(np.int8)


def causallearn_pag_to_adjacency(graph: np.ndarray) -> np.ndarray:
    """Convert a causal-learn PAG (FCI's ``GeneralGraph.graph``) to our adjacency, by a documented rule.

    causal-learn's endpoint codes: ``graph[i, j]`` is the mark at i on the
    edge i–j, with −1 a tail, 1 an arrowhead, 2 a circle (so i → j is
    ``graph[i, j] = -1, graph[j, i] = 1``, as for a CPDAG). Rule (CausalArena
    paper App. B.2 asks for "PAG endpoints by a documented rule"; the truth is
    a DAG over the observed variables):

    ========  ===========================  ==========================
    edge      PAG meaning                  arena adjacency
    ========  ===========================  ==========================
    i → j     i is an ancestor of j        i → j
    i —o j    i is an ancestor of j        i → j
    i o→ j    j is not an ancestor of i    i → j
    i o—o j   nothing settled              undirected (oriented by the runner)
    i ↔ j     a latent confounder          undirected (oriented by the runner)
    ========  ===========================  ==========================

    A bidirected edge asserts that neither variable causes the other, which
    cannot hold in a causally sufficient DAG; it is kept as an adjacency of
    unknown orientation rather than dropped, like a conflicting CPDAG
    collider in :func:`causallearn_to_adjacency`.

    Args:
        graph: (d × d) integer endpoint matrix with values in {−1, 0, 1, 2}.

    Returns:
        (d × d) int8, ``A[i, j] = 1`` for i → j; ``A[i, j] = A[j, i] = 1`` for an
        undirected pair.

    Raises:
        ValueError: not square, an endpoint value outside {−1, 0, 1, 2}, or a
            one-sided edge (one endpoint set, the other 0).
    """
    G = np.asarray(graph)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"causal-learn PAG must be square (d × d), got shape {G.shape}")
    if not np.isin(G, (-1, 0, 1, 2)).all():
        raise ValueError(f"causal-learn PAG has endpoint values {sorted(set(np.unique(G).tolist()) - {-1, 0, 1, 2})}"
                         " outside {-1, 0, 1, 2}")
    if np.any((G != 0) != (G.T != 0)):
        i, j = map(int, np.argwhere((G != 0) != (G.T != 0))[0])
        raise ValueError(f"causal-learn PAG has a one-sided edge between {i} and {j}")
    ancestor = (G == -1) & np.isin(G.T, (1, 2))          # i → j, i —o j
    not_ancestor_of_i = (G == 2) & (G.T == 1)             # i o→ j
    undirected = ((G == 2) & (G.T == 2)) | ((G == 1) & (G.T == 1)) | ((G == -1) & (G.T == -1))
    return (ancestor | not_ancestor_of_i | undirected).astype(np.int8)


# ---------------------------------------------------------------------------
# CPDAG scoring policies (issue 12): shared by the output check, the metrics and the runner
# ---------------------------------------------------------------------------

#: rules for orienting a CPDAG's undirected edges before the directed metrics
#: (:func:`causalarena.metrics.orient_cpdag`, ``arena run --cpdag-orientation``); the first is the default
CPDAG_ORIENTATIONS = ("mec", "linear_extension")
#: policies for a CPDAG/PAG whose directed part has a cycle (``arena run --cpdag-repair``); the
#: first is the default: ``undirect_cycles`` (:func:`causalarena.metrics.repair_cpdag_cycles`,
#: the run is flagged ``cpdag_repaired`` and scored), ``strict`` (``invalid_output``)
CPDAG_REPAIRS = ("undirect_cycles", "strict")
#: the output kinds whose undirected edges are oriented (and whose cycles may be repaired);
#: a ``dag`` output with a cycle is ``invalid_output`` under every policy (case I8)
ORIENTED_KINDS = ("cpdag", "pag")


def directed_cycle_edges(adjacency: np.ndarray) -> np.ndarray:
    """The directed edges of a PDAG that lie on a directed cycle, as a (d × d) bool mask.

    ``A[i, j] = 1, A[j, i] = 0`` is i → j; a symmetric pair is an undirected
    edge and not part of the directed part. i → j lies on a directed cycle
    exactly when j reaches i along directed edges (i and j in the same strongly
    connected component), so the mask does not depend on the node order or on
    which cycle a search finds first. Plain numpy: the reachability closure by
    repeated boolean squaring (O(d³ log d)).

    Args:
        adjacency: (d × d) 0/1 (or bool) matrix, row = parent; the diagonal is ignored.

    Raises:
        ValueError: not square.
    """
    a = np.asarray(adjacency) != 0
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency must be square (d × d), got shape {a.shape}")
    directed = a & ~a.T
    reach = directed.copy()
    while True:
        nxt = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    return directed & reach.T
