"""CPDAG orientation inside the Markov equivalence class, and the repair of cyclic CPDAGs (issue 12, items 12–13).

* ``orient_cpdag(..., rule="mec")`` (the default) draws a random consistent
  extension: same skeleton and v-structures as the CPDAG (and as
  causal-learn's deterministic ``pdag2dag``), acyclic, deterministic per seed,
  varying with it, reaching every member of small classes;
  ``rule="linear_extension"`` is the old rule, which can add v-structures.
* ``repair_cpdag_cycles`` makes the directed edges on directed cycles
  undirected; the runner scores such a run flagged ``cpdag_repaired``, or
  refuses it as ``invalid_output`` under ``cpdag_repair="strict"``; a
  DAG-kind cycle stays ``invalid_output`` (case I8).

The runner tests' methods live in this module (workers import it by its
factory path, ``test_cpdag_orientation:CyclicCPDAG``).
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from causalarena import metrics as M
from causalarena.checks import check_output
from causalarena.data import Prediction
from causalarena.hookspecs import hookimpl
from causalarena.method import Method
from causalarena.records import MethodInfo

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
CYCLE = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1], [0, 0, 0, 0]], dtype=np.int8)  # 0→1→2→0, 2→3


# --------------------------------------------------------------------------- graph helpers (own code)


def random_dag(rng: np.random.Generator, d: int, p: float) -> np.ndarray:
    """An Erdős–Rényi DAG over a random node order."""
    order = rng.permutation(d)
    upper = np.triu(rng.random((d, d)) < p, 1)
    a = np.zeros((d, d), dtype=np.int8)
    a[np.ix_(order, order)] = upper
    return a


def skeleton(a: np.ndarray) -> np.ndarray:
    return (a | a.T).astype(bool)


def v_structures(a: np.ndarray) -> set:
    """``{(i, k, j)}`` with i → k ← j, i < j, i and j not adjacent; undirected edges are no arrowheads."""
    a = np.asarray(a, dtype=bool)
    directed = a & ~a.T
    adj = a | a.T
    out = set()
    for k in range(a.shape[0]):
        parents = np.flatnonzero(directed[:, k])
        for i, j in itertools.combinations(parents, 2):
            if not adj[i, j]:
                out.add((int(i), int(k), int(j)))
    return out


def cpdag_of(dag: np.ndarray) -> np.ndarray:
    """The CPDAG of a DAG: skeleton, its v-structures, closed under Meek's rules R1–R3 (Meek 1995)."""
    d = dag.shape[0]
    adj = skeleton(dag)
    g = adj.copy()  # g[i, j] & ~g[j, i]: i → j; both: undirected
    for i, k, j in v_structures(dag):
        g[k, i] = g[k, j] = False
    changed = True
    while changed:
        changed = False
        for x, y in zip(*np.nonzero(g & g.T)):
            if not (g[x, y] and g[y, x]):
                continue
            directed = g & ~g.T
            # R1: z → x — y, z and y not adjacent  ⇒  x → y
            r1 = any(directed[z, x] and not adj[z, y] for z in range(d))
            # R2: x → z → y  ⇒  x → y
            r2 = any(directed[x, z] and directed[z, y] for z in range(d))
            # R3: x — z1 → y, x — z2 → y, z1, z2 not adjacent  ⇒  x → y
            zs = [z for z in range(d) if g[x, z] and g[z, x] and directed[z, y]]
            r3 = any(not adj[z1, z2] for z1, z2 in itertools.combinations(zs, 2))
            if r1 or r2 or r3:
                g[y, x] = False
                changed = True
    return g.astype(np.int8)


def mec_members(cpdag: np.ndarray) -> set:
    """Every DAG of the class, by brute force over the orientations of the undirected edges."""
    und = [(int(i), int(j)) for i, j in np.argwhere(np.triu(cpdag & cpdag.T, 1))]
    directed = (cpdag & ~cpdag.T).astype(np.int8)
    target = v_structures(cpdag)
    out = set()
    for bits in itertools.product((0, 1), repeat=len(und)):
        a = directed.copy()
        for (i, j), b in zip(und, bits):
            a[(i, j) if b else (j, i)] = 1
        if M.is_dag(a) and v_structures(a) == target:
            out.add(a.tobytes())
    return out


def assert_in_class(dag: np.ndarray, cpdag: np.ndarray) -> None:
    assert dag.dtype == np.int8
    assert M.is_dag(dag)
    assert np.array_equal(skeleton(dag), skeleton(cpdag))
    assert v_structures(dag) == v_structures(cpdag)
    directed = (cpdag == 1) & (cpdag.T == 0)
    assert np.all(dag[directed] == 1)


def random_cpdags(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        d = int(rng.integers(2, 13))
        dag = random_dag(rng, d, float(rng.uniform(0.15, 0.6)))
        yield dag, cpdag_of(dag)


# --------------------------------------------------------------------------- item 13: orientation in the class


def test_mec_draws_stay_in_the_equivalence_class():
    n_undirected = 0
    for k, (dag, cpdag) in enumerate(random_cpdags(300)):
        n_undirected += int((cpdag & cpdag.T).sum())
        assert_in_class(dag, cpdag)  # own CPDAG: the truth itself is in its class
        for seed in (k, k + 10_000):
            assert_in_class(M.orient_cpdag(cpdag, seed), cpdag)
            assert_in_class(M.orient_cpdag(cpdag, seed, rule="mec"), cpdag)
    assert n_undirected > 1000  # the sample has real undirected components


def test_default_rule_never_adds_the_v_structure_of_case_m5():
    """Case M5: the path 0 — 2 — 1 has 3 class members; the v-structure 0 → 2 ← 1 is not one."""
    path = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=np.int8)
    collider = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=np.int8).tobytes()
    mec = {M.orient_cpdag(path, s).tobytes() for s in range(60)}
    assert mec == mec_members(path) and len(mec) == 3 and collider not in mec
    old = {M.orient_cpdag(path, s, rule="linear_extension").tobytes() for s in range(60)}
    assert collider in old and len(old) == 4  # the old rule, kept as an option, leaves the class


def test_linear_extension_leaves_the_class_on_random_cpdags_and_mec_does_not():
    left = 0
    for k, (_, cpdag) in enumerate(random_cpdags(150, seed=1)):
        target = v_structures(cpdag)
        old = M.orient_cpdag(cpdag, k, rule="linear_extension")
        assert M.is_dag(old) and np.array_equal(skeleton(old), skeleton(cpdag))
        left += v_structures(old) != target
        assert v_structures(M.orient_cpdag(cpdag, k)) == target
    assert left > 10


def test_draws_are_seeded_vary_with_the_seed_and_reach_every_member():
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 25:
        dag = random_dag(rng, int(rng.integers(4, 8)), 0.45)
        cpdag = cpdag_of(dag)
        members = mec_members(cpdag)
        if len(members) < 2:
            continue
        checked += 1
        for s in (0, 1, 2**40 + 3):  # fixed per-file seed (App. B.2): byte-identical
            assert M.orient_cpdag(cpdag, s).tobytes() == M.orient_cpdag(cpdag.copy(), s).tobytes()
        small = len(members) <= 6
        draws = {M.orient_cpdag(cpdag, s).tobytes() for s in range(100 * len(members) if small else 60)}
        assert draws <= members and len(draws) >= 2
        if small:  # every member has positive probability (not uniform: see orient_cpdag)
            assert draws == members


def test_a_dag_passes_through_and_a_cyclic_directed_part_is_refused():
    dag = random_dag(np.random.default_rng(3), 9, 0.4)
    for rule in M.CPDAG_ORIENTATIONS:
        assert np.array_equal(M.orient_cpdag(dag, 11, rule=rule), dag)
        with pytest.raises(ValueError, match=r"cycle \(0 -> 1 -> 2 -> 0\).*repair_cpdag_cycles"):
            M.orient_cpdag(CYCLE, 0, rule=rule)
    with pytest.raises(ValueError, match="expected one of"):
        M.orient_cpdag(dag, 0, rule="uniform")


def test_a_pdag_without_consistent_extension_is_still_oriented_and_flagged():
    """The 4-cycle 0 — 1 — 2 — 3 — 0 (not chordal) has no extension without a new v-structure."""
    square = np.zeros((4, 4), dtype=np.int8)
    for i, j in ((0, 1), (1, 2), (2, 3), (3, 0)):
        square[i, j] = square[j, i] = 1
    flags: list = []
    out = M.orient_cpdag(square, 4, flags=flags)
    assert M.is_dag(out) and np.array_equal(skeleton(out), skeleton(square))
    assert len(flags) == 1 and flags[0].startswith("cpdag_not_extendable")
    flags = []
    M.orient_cpdag(cpdag_of(random_dag(np.random.default_rng(0), 8, 0.5)), 4, flags=flags)
    assert flags == []


def _causallearn():
    pytest.importorskip("causallearn")
    from causallearn.graph.Dag import Dag
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.utils.DAG2CPDAG import dag2cpdag
    from causallearn.utils.PDAG2DAG import pdag2dag

    from causalarena.conventions import causallearn_to_adjacency

    def to_dag(a):
        nodes = [GraphNode(f"X{i}") for i in range(a.shape[0])]
        g = Dag(nodes)
        for i, j in np.argwhere(a):
            g.add_directed_edge(nodes[i], nodes[j])
        return g

    def to_pdag(a):
        nodes = [GraphNode(f"X{i}") for i in range(a.shape[0])]
        g = GeneralGraph(nodes)
        for i, j in np.argwhere(a):
            if a[j, i] and i < j:
                g.add_edge(Edge(nodes[i], nodes[j], Endpoint.TAIL, Endpoint.TAIL))
            elif not a[j, i]:
                g.add_directed_edge(nodes[i], nodes[j])
        return g

    def cl_cpdag(dag):
        return causallearn_to_adjacency(dag2cpdag(to_dag(dag)).graph)

    def cl_extension(cpdag):
        return causallearn_to_adjacency(pdag2dag(to_pdag(cpdag)).graph)

    return cl_cpdag, cl_extension


def test_against_causallearn_pdag2dag_over_random_cpdags():
    """causal-learn's ``dag2cpdag`` builds the CPDAGs; its deterministic ``pdag2dag`` is the reference."""
    cl_cpdag, cl_extension = _causallearn()
    for k, (dag, own) in enumerate(random_cpdags(120, seed=2)):
        cpdag = cl_cpdag(dag)
        assert np.array_equal(cpdag, own)  # the test's own Meek closure agrees with causal-learn
        reference = cl_extension(cpdag)
        assert_in_class(reference, cpdag)
        draws = [M.orient_cpdag(cpdag, s) for s in (k, k + 1, k + 2)]
        for draw in draws:
            assert np.array_equal(skeleton(draw), skeleton(reference))
            assert v_structures(draw) == v_structures(reference) == v_structures(cpdag)
            assert M.is_dag(draw)


# --------------------------------------------------------------------------- item 12: cyclic CPDAGs


def test_repair_undirects_exactly_the_edges_on_directed_cycles():
    repaired, undirected = M.repair_cpdag_cycles(CYCLE)
    assert undirected == [(0, 1), (1, 2), (2, 0)]
    expected = np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 0, 0]], dtype=np.int8)
    assert np.array_equal(repaired, expected)  # 2 → 3 is on no cycle and stays
    assert M.repair_cpdag_cycles(repaired)[1] == []  # idempotent


def test_repair_makes_the_directed_part_acyclic_on_random_pdags():
    rng = np.random.default_rng(7)
    for _ in range(300):
        d = int(rng.integers(2, 12))
        kind = rng.choice(3, size=(d, d), p=[0.6, 0.25, 0.15])  # none, directed, undirected
        a = np.zeros((d, d), dtype=np.int8)
        for i, j in itertools.permutations(range(d), 2):
            if i < j and kind[i, j] == 2:
                a[i, j] = a[j, i] = 1
            elif kind[i, j] == 1 and not a[j, i]:
                a[i, j] = 1
        repaired, undirected = M.repair_cpdag_cycles(a)
        directed = repaired & (1 - repaired.T)
        assert M.is_dag(directed)
        assert np.array_equal(skeleton(repaired), skeleton(a))
        on_cycle = M.cycle_edges(a)
        assert sorted(map(tuple, np.argwhere(on_cycle).tolist())) == undirected
        kept = (a == 1) & (a.T == 0) & ~on_cycle
        assert np.all(directed[kept] == 1)  # directed edges on no cycle are kept
        assert M.is_dag(M.orient_cpdag(repaired, 0))
        # a cycle-free PDAG is returned unchanged
        if M.is_dag(a & (1 - a.T)):
            assert undirected == [] and np.array_equal(repaired, a)


def _pred(a, kind):
    return Prediction(adjacency=np.asarray(a, dtype=float), kind=kind)


def test_check_output_flags_a_cyclic_cpdag_under_the_repair_and_refuses_it_when_strict():
    names = ["a", "b", "c", "d"]
    for kind in ("cpdag", "pag"):
        res = check_output(_pred(CYCLE, kind), 4, columns=names, cpdag_repair="undirect_cycles")
        assert res.ok, res.problems
        assert res.flags == ["cpdag_repaired: 3 directed edge(s) on directed cycles made undirected "
                             "(a -> b, b -> c, c -> a)"]
        strict = check_output(_pred(CYCLE, kind), 4, columns=names, cpdag_repair="strict")
        assert strict.problems == [f"directed cycle in a promised {kind.upper()}: a -> b -> c -> a"]
    assert check_output(_pred(CYCLE, "cpdag"), 4).problems  # check_output's own default is strict
    # case I8: a DAG-kind output with a cycle stays invalid whatever the CPDAG policy
    res = check_output(_pred(CYCLE, "dag"), 4, columns=names, cpdag_repair="undirect_cycles")
    assert res.problems == ["directed cycle in a promised DAG: a -> b -> c -> a"]
    with pytest.raises(ValueError, match="cpdag_repair 'undirect-cycle'"):
        check_output(_pred(CYCLE, "cpdag"), 4, cpdag_repair="undirect-cycle")


def test_scoring_config_only_for_oriented_kinds():
    assert M.scoring_config("dag", "linear_extension", "strict") is None
    assert M.scoring_config("cpdag") == "orientation=mec, cpdag_repair=undirect_cycles"
    assert M.scoring_config("pag", "linear_extension", "strict") == "orientation=linear_extension, cpdag_repair=strict"
    with pytest.raises(ValueError, match="expected one of"):
        M.scoring_config("cpdag", "random")


# --------------------------------------------------------------------------- the runner


class CyclicCPDAG(Method):
    """A 'CPDAG' 0 → 1 → 2 → 0 (a PC orientation conflict) over the chain instance's 3 variables."""

    output_kind = "cpdag"

    def fit(self, dataset):
        self.adjacency_ = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.int8)
        return self


class CyclicDAG(Method):
    """The same cycle in a promised DAG (case I8)."""

    def fit(self, dataset):
        self.adjacency_ = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.int8)
        return self


class PathCPDAG(Method):
    """The CPDAG 0 — 1 — 2 (the chain's class): every MEC draw is a chain or a fork."""

    output_kind = "cpdag"

    def fit(self, dataset):
        self.adjacency_ = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.int8)
        return self


def _info(name, cls, **kw):
    return MethodInfo(name=name, factory=f"test_cpdag_orientation:{cls}", **kw)


def test_runner_repairs_and_scores_cyclic_cpdags_and_keeps_strict_as_an_option(tmp_path):
    from fault_methods import CHAIN, ChainInstance

    from causalarena.plugins import get_registry
    from causalarena.runner import grid_keys, make_cells, run_grid
    from causalarena.store import Store

    registry = get_registry()
    env = {"PYTHONPATH": TESTS_DIR}
    inst = ChainInstance("chain-cyc", splits=("obs",), n_replicates=2)
    methods = [_info("cyclic", "CyclicCPDAG", output_kind="cpdag"), _info("cyclic_dag", "CyclicDAG"),
               _info("path", "PathCPDAG", output_kind="cpdag")]
    cells = make_cells([inst], methods)
    store = Store(str(tmp_path / "r.sqlite"))
    run_grid(cells, registry, store, env=env, progress=False)  # defaults: mec, undirect_cycles
    run_grid(cells, registry, store, env=env, progress=False, cpdag_orientation="linear_extension",
             cpdag_repair="strict")
    rows = store.rows()
    # the DAG-kind method's cells are the same under both policies (one row each), the CPDAG ones are not
    assert len(rows) == 2 + 2 * 2 * 2
    by = {(r["method"], r["replicate"], r["scoring"]): r for r in rows}
    default, strict = "orientation=mec, cpdag_repair=undirect_cycles", "orientation=linear_extension, cpdag_repair=strict"
    for rep in (0, 1):
        repaired = by[("cyclic", rep, default)]
        assert repaired["status"] == "ok", repaired["error"]
        assert any(f.startswith("cpdag_repaired: 3 directed edge(s)") for f in repaired["flags"])
        # the repaired graph is the complete undirected triangle: every draw is a DAG on 3 edges
        assert repaired["metrics"]["n_edges"] == 3.0 and repaired["metrics"]["sid"] is not None
        refused = by[("cyclic", rep, strict)]
        assert refused["status"] == "invalid_output" and "directed cycle in a promised CPDAG" in refused["error"]
        dag = by[("cyclic_dag", rep, None)]
        assert dag["status"] == "invalid_output" and "directed cycle in a promised DAG" in dag["error"]
        # the stored scores are those of the policy's orientation with the cell seed
        path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.int8)
        for scoring, rule in ((default, "mec"), (strict, "linear_extension")):
            r = by[("path", rep, scoring)]
            assert r["metrics"]["shd"] == M.shd(CHAIN, M.orient_cpdag(path, r["seed"], rule=rule))
    # grid_keys (the invocation's rows) follow the policy
    assert set(grid_keys(cells)) == {tuple(r[k] for k in ("family", "scm_id", "split", "replicate", "method",
                                                          "config_hash")) for r in rows
                                     if r["scoring"] in (default, None)}
    store.close()


def test_report_labels_the_orientation_rule_when_it_differs():
    import pandas as pd

    from causalarena.report import config_labels

    base = {"family": "toy", "scm_id": "s", "split": "obs", "replicate": 0, "status": "ok",
            "standardise": True, "protocol": "default", "params": "{}", "n_override": None}
    runs = pd.DataFrame([
        {**base, "method": "pc", "output_kind": "cpdag", "scoring": "orientation=mec, cpdag_repair=undirect_cycles"},
        {**base, "method": "pc", "output_kind": "cpdag",
         "scoring": "orientation=linear_extension, cpdag_repair=undirect_cycles"},
        {**base, "method": "ges", "output_kind": "cpdag", "scoring": "orientation=mec, cpdag_repair=strict"},
        {**base, "method": "ges", "output_kind": "cpdag", "scoring": "orientation=mec, cpdag_repair=undirect_cycles"},
        # a run stored before the policy existed: the linear-extension rule and strict
        {**base, "method": "fci", "output_kind": "pag", "scoring": None},
        {**base, "method": "fci", "output_kind": "pag", "scoring": "orientation=mec, cpdag_repair=undirect_cycles"},
        {**base, "method": "chain", "output_kind": "dag", "scoring": None},
    ])
    assert list(config_labels(runs)) == [
        "pc [orientation=mec]", "pc [orientation=linear_extension]",
        "ges [cpdag_repair=strict]", "ges [cpdag_repair=undirect_cycles]",
        "fci [orientation=linear_extension, cpdag_repair=strict]",
        "fci [orientation=mec, cpdag_repair=undirect_cycles]", "chain"]


# --------------------------------------------------------------------------- arena run --cpdag-orientation / --cpdag-repair


class _ToyPlugins:
    __distribution__ = "arena-test-cpdag-orientation"

    @hookimpl
    def arena_families(self):
        from causalarena.records import FamilyInfo

        yield FamilyInfo(name="toy", kind="synthetic", factory="family_toys:GoodFamily")

    @hookimpl
    def arena_methods(self):
        yield _info("cyclic", "CyclicCPDAG", output_kind="cpdag")
        yield _info("path", "PathCPDAG", output_kind="cpdag")


def test_cli_options_choose_the_policy_and_each_policy_is_its_own_labelled_configuration(tmp_path, capsys,
                                                                                         monkeypatch):
    from causalarena.cli import main
    from causalarena.plugins import get_registry
    from causalarena.store import Store

    monkeypatch.setenv("PYTHONPATH", TESTS_DIR)
    reg = get_registry(strict=False, extra_plugins=[_ToyPlugins()])
    results = tmp_path / "r"
    argv = ["run", "--results", str(results), "--families", "toy", "--methods", "cyclic,path", "--splits", "obs",
            "--replicates", "1", "--no-progress", "--isolation", "none", "--jobs", "1"]
    for bad, message in ((["--cpdag-orientation", "uniform"],
                          "--cpdag-orientation 'uniform': expected one of ['mec', 'linear_extension']"),
                         (["--cpdag-repair", "drop"], "--cpdag-repair 'drop': expected one of "
                                                      "['undirect-cycles', 'strict']")):
        assert main(argv + bad, registry=reg) == 2
        assert message in capsys.readouterr().err
    assert main(argv, registry=reg) == 0
    assert main(argv + ["--cpdag-orientation", "linear_extension", "--cpdag-repair", "strict"], registry=reg) == 0
    out = capsys.readouterr().out
    assert main(argv + ["--cpdag-repair", "undirect-cycles"], registry=reg) == 0  # the default again: resumed
    with Store(str(results / "arena.sqlite"), readonly=True) as st:
        rows = st.rows()
    n_cells = len(rows) // 2  # one row per cell and policy
    assert f"this invocation: nothing new; skipped {n_cells} already stored" in capsys.readouterr().out
    assert {(r["method"], r["scoring"], r["status"]) for r in rows} == {
        ("cyclic", "orientation=mec, cpdag_repair=undirect_cycles", "ok"),
        ("cyclic", "orientation=linear_extension, cpdag_repair=strict", "invalid_output"),
        ("path", "orientation=mec, cpdag_repair=undirect_cycles", "ok"),
        ("path", "orientation=linear_extension, cpdag_repair=strict", "ok")}
    assert n_cells >= 2
    # the second invocation printed its own grid only; the folder's leaderboard labels both configurations
    assert "orientation=linear_extension" not in out
    board = (results / "leaderboard.md").read_text()
    assert "path [orientation=linear_extension, cpdag_repair=strict]" in board
    assert "path [orientation=mec, cpdag_repair=undirect_cycles]" in board
