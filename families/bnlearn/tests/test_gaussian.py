"""Known answers for the linear-Gaussian networks (ecoli70, magic-niab, magic-irri, arth150).

The oracle is pgmpy's own model of the same file (``get_example_model`` →
``LinearGaussianBayesianNetwork.to_joint_gaussian``), computed independently of the SCM spec this
family builds; the figures are the bnlearn repository's.
"""

from __future__ import annotations

import warnings

import networkx as nx
import numpy as np
import pytest

from arena_family_bnlearn.family import BnlearnFamily
from arena_family_bnlearn.gaussian import gaussian_spec
from arena_family_bnlearn.networks import NETWORKS
from causalarena.family import SCMInstance
from causalarena.interventions import default_target_pool

GAUSSIAN = [n for n, net in NETWORKS.items() if net.kind == "gaussian"]


def pgmpy_joint(name):
    """(names, mean, cov) of pgmpy's joint Gaussian, in pgmpy's (topological) order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # get_example_model is deprecated in 1.1
        from pgmpy.utils import get_example_model

        model = get_example_model(name)
    names = list(nx.topological_sort(model))  # the order to_joint_gaussian uses
    mean, cov = model.to_joint_gaussian()
    return names, np.asarray(mean, dtype=float), np.asarray(cov, dtype=float)


def implied_moments(spec):
    """Mean and covariance implied by the spec's linear mechanisms and Gaussian noises/roots:
    x = B^T x + b + e  =>  mu = (I - B^T)^-1 b,  Sigma = (I - B^T)^-1 Omega (I - B^T)^-T."""
    names = spec.names
    d = len(names)
    B = np.zeros((d, d))
    b = np.zeros(d)
    omega = np.zeros(d)
    for j, node in enumerate(spec.nodes):
        if node.role == "root":
            b[j], omega[j] = node.root_distribution.params["loc"], node.root_distribution.params["scale"] ** 2
        else:
            for p, w in zip(node.parents, node.mechanism.params["weights"]):
                B[names.index(p), j] = w
            b[j], omega[j] = node.mechanism.params["bias"], node.noise.params["scale"] ** 2
    inv = np.linalg.inv(np.eye(d) - B.T)
    return inv @ b, inv @ np.diag(omega) @ inv.T


@pytest.mark.parametrize("name", GAUSSIAN)
def test_nodes_arcs_parameters_match_bnlearns_published_figures(name):
    spec = gaussian_spec(name)
    net = NETWORKS[name]
    A = spec.adjacency()
    n_params = 2 * spec.d + int(A.sum())  # intercept + variance per node, one coefficient per arc
    assert (spec.d, int(A.sum()), n_params) == (net.nodes, net.arcs, net.parameters)
    assert {"ecoli70": (46, 70, 162), "magic-niab": (44, 66, 154), "magic-irri": (64, 102, 230),
            "arth150": (107, 150, 364)}[name] == (net.nodes, net.arcs, net.parameters)


def test_ecoli70_first_node_reads_as_the_file_says():
    """aceB = 0.1324 + 1.0464 * icdA + N(0, 0.0853) (variance; the file's cpds['aceB'])."""
    spec = gaussian_spec("ecoli70")
    node = spec.nodes[spec.names.index("aceB")]
    assert node.parents == ("icdA",) and node.mechanism.kind == "linear"
    assert node.mechanism.params == {"weights": [1.0464], "bias": 0.1324}
    assert node.noise.kind == "gaussian" and node.noise.params["scale"] == pytest.approx(0.0853 ** 0.5)
    root = spec.nodes[spec.names.index("b1191")]
    assert root.role == "root" and root.root_distribution.params == {"loc": 1.273, "scale": 0.6086 ** 0.5}


@pytest.mark.parametrize("name", GAUSSIAN)
def test_the_specs_implied_moments_equal_pgmpys_joint_gaussian(name):
    names, mean, cov = pgmpy_joint(name)
    spec = gaussian_spec(name)
    mu, sigma = implied_moments(spec)
    idx = [spec.names.index(v) for v in names]
    # pgmpy rounds its moments to 8 decimals
    np.testing.assert_allclose(mu[idx], mean, rtol=0, atol=1e-7)
    np.testing.assert_allclose(sigma[np.ix_(idx, idx)], cov, rtol=0, atol=1e-7)


@pytest.mark.parametrize("name", ["ecoli70", "magic-irri"])
def test_sampled_obs_mean_and_covariance_match_pgmpys_within_sampling_error(name):
    """20,000 raw obs rows (the protocol's sampler, replicate 0): every mean and every covariance
    entry within 6 standard errors of pgmpy's joint Gaussian (SE of a covariance entry:
    sqrt((S_ii S_jj + S_ij^2) / n))."""
    names, mean, cov = pgmpy_joint(name)
    inst = BnlearnFamily().instance(name)
    ds = inst.dataset("obs", 0, standardise=False, n=20_000)
    idx = [ds.columns.index(v) for v in names]
    X = ds.X[:, idx]
    n = X.shape[0]
    z_mean = (X.mean(axis=0) - mean) / np.sqrt(np.diag(cov) / n)
    S = np.cov(X, rowvar=False, bias=True)
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov ** 2) / n)
    z_cov = (S - cov) / se
    assert np.abs(z_mean).max() < 6, np.abs(z_mean).max()
    assert np.abs(z_cov).max() < 6, np.abs(z_cov).max()
    # and the figures are not trivially close: the spread of z looks like sampling error
    assert 0.5 < np.std(z_cov[np.triu_indices(len(names))]) < 1.5


def test_a_hard_intervention_sets_the_target_and_cuts_its_parents():
    """ecoli70 as the core's SCM: do(lacZ = v) on every row of one exogenous draw sets lacZ to v,
    leaves every non-descendant unchanged, changes its children, and lacZ no longer follows its
    parents (asnA, lacA, lacY)."""
    inst = BnlearnFamily().instance("ecoli70")
    assert isinstance(inst, SCMInstance)
    scm = inst.compiled()
    names = list(scm.spec.names)
    t = names.index("lacZ")
    rng = np.random.default_rng(0)
    exo = scm.draw_exogenous(5000, rng)
    base = scm.propagate(exo)
    mask = np.zeros_like(base, dtype=bool)
    mask[:, t] = True
    values = np.zeros_like(base)
    values[:, t] = rng.uniform(-1, 1, size=base.shape[0])
    do = scm.propagate(exo, mask, values)
    assert np.array_equal(do[:, t], values[:, t])
    G = nx.from_numpy_array(scm.spec.adjacency(), create_using=nx.DiGraph)
    desc = nx.descendants(G, t)
    others = [j for j in range(len(names)) if j != t and j not in desc]
    assert np.array_equal(do[:, others], base[:, others])
    assert {names[j] for j in G.successors(t)} == {"b1583", "mopB", "yaeM"}
    assert all(not np.allclose(do[:, j], base[:, j]) for j in desc)
    parents = [names.index(p) for p in scm.spec.nodes[t].parents]
    assert sorted(names[p] for p in parents) == ["asnA", "lacA", "lacY"]
    # observationally lacZ is explained by its parents (R^2 > 0.5); under do it is not (R^2 < 0.01)
    for X, lo, hi in ((base, 0.5, 1.0), (do, 0.0, 0.01)):
        P = np.column_stack([X[:, parents], np.ones(len(X))])
        resid = X[:, t] - P @ np.linalg.lstsq(P, X[:, t], rcond=None)[0]
        r2 = 1 - resid.var() / X[:, t].var()
        assert lo <= r2 <= hi, r2


def test_obs_int_split_is_the_protocols_hard_resampling():
    """800 + 200 rows; the 200 interventional rows each set one target of the core's pool (drawn from
    the spec id) to a value inside the target's observational [q10, q90]."""
    inst = BnlearnFamily().instance("magic-niab")
    ds = inst.dataset("obs_int", 0, standardise=False)
    assert ds.X.shape == (1000, 44) and ds.metadata["n_obs"] == 800 and ds.metadata["n_int"] == 200
    mask = ds.intervention_mask
    assert not mask[:800].any() and (mask[800:].sum(axis=1) == 1).all()
    pool = default_target_pool(inst.compiled(), inst.spec.id)
    assert ds.metadata["target_pool"] == [ds.columns[j] for j in pool]
    assert set(np.flatnonzero(mask.any(axis=0))) == set(pool.tolist())
    for j in pool:
        q10, q90 = np.percentile(ds.X[:800, j], [10, 90])
        v = ds.X[800:][mask[800:, j], j]
        assert v.size > 0 and (v >= q10 - 1e-12).all() and (v <= q90 + 1e-12).all()
