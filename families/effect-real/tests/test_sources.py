"""The shipped tables, read in place: row counts, columns and hand-checked values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arena_family_effect_real import sources


def test_nsw_as_shipped_and_outcome_is_pre_treatment():
    tab = sources.nsw_table()
    assert tab.X.shape == (445, 7) and int(tab.T.sum()) == 185
    assert tab.columns == ("age", "educ", "black", "hisp", "marr", "nodegree", "re74")
    # the negative-control outcome is the 1975 earnings, never the post-programme re78
    assert tab.outcome == "re75" and "re78" not in tab.columns and "re75" not in tab.columns
    assert np.all(tab.tau == 0.0)
    assert tab.source == ("causaldata==0.1.5:causaldata/nsw_mixtape/nsw_mixtape.dta",)


def test_nsw_read_matches_causaldata_loader():
    from causaldata import nsw_mixtape

    frame = nsw_mixtape.load_pandas().data
    tab = sources.nsw_table()
    np.testing.assert_array_equal(tab.Y, frame["re75"].to_numpy(dtype=float))
    np.testing.assert_array_equal(tab.X, frame[list(sources.NSW_COVARIATES)].to_numpy(dtype=float))
    assert set(frame.columns) == set(sources.NSW_COVARIATES) | {"treat", "re75"} | set(sources.NSW_UNUSED)


def test_nsw_cps_rows_are_nsw_treated_over_cps_controls():
    tab = sources.nsw_cps_table()
    nsw = sources.nsw_table()
    assert tab.X.shape == (185 + 15_992, 7)
    assert int(tab.T.sum()) == 185 and np.all(tab.T[:185] == 1) and np.all(tab.T[185:] == 0)
    np.testing.assert_array_equal(tab.X[:185], nsw.X[nsw.T == 1])
    assert tab.outcome == "re75" and np.all(tab.tau == 0.0)
    # the confounding that makes it a harder null: CPS controls earned far more in 1975
    assert tab.Y[185:].mean() - tab.Y[:185].mean() > 10_000


def test_acic16_covariates_as_shipped_with_ordinal_codes():
    X, columns, source = sources.acic16_covariates()
    assert X.shape == (4802, 58) and columns == tuple(f"x_{j}" for j in range(1, 59))
    assert source == "causallib==0.10.0:causallib/datasets/data/acic_challenge_2016/x.csv"
    # first data row of x.csv: 29,"C",1,7,60,... x_21 = "J", x_24 = "B"; sorted levels coded from 0
    assert X[0, 0] == 29 and X[0, 1] == 2.0 and X[0, 2] == 1 and X[0, 20] == 9.0 and X[0, 23] == 1.0
    assert sorted(np.unique(X[:, 1])) == [0, 1, 2, 3, 4, 5]  # A..F
    assert sorted(np.unique(X[:, 20])) == list(range(16))  # A..P
    assert sorted(np.unique(X[:, 23])) == [0, 1, 2, 3, 4]  # A..E


def test_acic16_tau_is_mu1_minus_mu0_by_hand():
    tab = sources.acic16_table(1)
    # row 0 of zymu_1.csv: z=0, y0=3.15772731741586, y1=7.44133576762315, mu0=3.89056346452065, mu1=5.71610839400229
    assert tab.T[0] == 0
    assert tab.Y[0] == pytest.approx(3.15772731741586, abs=1e-14)
    assert tab.tau[0] == pytest.approx(5.71610839400229 - 3.89056346452065, abs=1e-14)
    assert tab.tau[0] == pytest.approx(1.82554492948164, abs=1e-13)
    path, _ = sources.package_file("causallib", f"{sources.ACIC_DIR}/zymu_1.csv")
    z = pd.read_csv(path)
    treated = int(np.flatnonzero(z["z"].to_numpy() == 1)[0])
    assert tab.Y[treated] == z["y1"][treated]  # a treated row observes y1


def test_acic16_ten_instances_and_bad_instance():
    assert sources.ACIC_INSTANCES == tuple(range(1, 11))
    assert all(sources.acic16_table(k).X.shape == (4802, 58) for k in (1, 10))
    with pytest.raises(ValueError, match="1..10"):
        sources.acic16_table(11)


def test_ihdp_747_rows_and_surfaces():
    X, T, source = sources.ihdp_covariates()
    assert X.shape == (747, 25) and int(T.sum()) == 139
    assert source == "econml==0.17.0:econml/data/ihdp/sim.csv"
    a = sources.ihdp_table("A", 7)
    assert np.all(a.tau == 4.0)  # surface A: constant effect 4 (Hill 2011)
    b = sources.ihdp_table("B", 7)
    # surface B: omega is set so that the mean effect on the treated is exactly 4 (Hill 2011, §4.1)
    assert b.tau[b.T == 1].mean() == pytest.approx(4.0, abs=1e-9)
    assert b.tau.std() > 0.1  # heterogeneous
    np.testing.assert_array_equal(sources.ihdp_table("B", 7).Y, b.Y)  # the draw is the seed's
    with pytest.raises(ValueError, match="'A' or 'B'"):
        sources.ihdp_table("C", 0)


def test_ihdp_native_covariates_map_to_econml_design():
    from econml.data import dgps

    X, T, _ = sources.ihdp_covariates()
    _, T_e, X_e, _ = dgps.ihdp_surface_A(random_state=0)
    np.testing.assert_array_equal(T_e, T)
    bmarr = sources.IHDP_COVARIATES.index("b.marr")
    np.testing.assert_array_equal(X_e[:, 1 + bmarr], X[:, bmarr])  # column 0 of econml's design is the intercept
    # econml z-scores the first six columns over the 747 rows: an affine map of the native ones
    z = (X[:, :6] - X[:, :6].mean(0)) / X[:, :6].std(0)
    np.testing.assert_allclose(X_e[:, 1:7], z, atol=1e-12)


def test_missing_distribution_is_named():
    with pytest.raises(ModuleNotFoundError, match="not-a-real-dist"):
        sources.package_file("not-a-real-dist", "x.csv")
    with pytest.raises(FileNotFoundError, match="does not ship"):
        sources.package_file("econml", "econml/data/ihdp/nope.csv")


def test_ihdp_beta_reproduces_econml_surface_b():
    from econml.data import dgps

    X, T, _ = sources.ihdp_covariates()
    for seed in (0, 11):
        _, _, X_e, tau = dgps.ihdp_surface_B(random_state=seed)
        beta = sources.ihdp_beta("B", seed)
        offset = np.r_[0.0, np.full(X_e.shape[1] - 1, 0.5)]
        omega = np.mean((X_e @ beta - np.exp((X_e + offset) @ beta))[T == 1]) - 4
        np.testing.assert_allclose(X_e @ beta - omega - np.exp((X_e + offset) @ beta), tau, rtol=0, atol=1e-10)
    assert sources.ihdp_beta("A", 5).shape == (26,)
    assert set(np.unique(sources.ihdp_beta("A", 5))) <= {0, 1, 2, 3, 4}
