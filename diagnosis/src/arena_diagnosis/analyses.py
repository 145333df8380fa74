"""The diagnosis analyses of issue 13, one import point (paper §5–6).

Long-format pandas tables, pure pandas / numpy:

* :func:`unit_scores` — replicate means per unit (method, family, scm_id, split), §5.1;
* :func:`slice_scores` — Eq. 6 by any graph-level factor;
* :func:`edge_slice_scores` — §6.1 edge-level precision / recall / F1 by the child's mechanism or noise;
* :func:`win_rates` — pairwise win rates, Fig. 1 and 19;
* :func:`interaction_scores` — Eq. 7, double-centred;
* :func:`d_curve`, :func:`n_curve`, :func:`protocol_table`, :func:`domain_shift`,
  :func:`real_data` — Fig. 11, 6a, Table 3, Fig. 17, Fig. 5;
* :func:`frontier` — accuracy–cost frontier, Fig. 9;
* :func:`exposure` — pretraining exposure, §6.2 Eq. 8–10.

Definitions live in the modules :mod:`.slices`, :mod:`.winrates`,
:mod:`.interactions`, :mod:`.curves`, :mod:`.frontier`, :mod:`.exposure`.
"""

from .curves import (
    D_CURVE_COLUMNS,
    DOMAIN_COLUMNS,
    MISSING_COLUMNS,
    N_CURVE_COLUMNS,
    PAIR_COLUMNS,
    PAIR_METRIC,
    PROTOCOL_COLUMNS,
    REAL_COLUMNS,
    d_curve,
    domain_shift,
    n_curve,
    pair_families,
    pair_track,
    protocol_table,
    real_data,
    real_missing,
)
from .exposure import (
    AXES,
    AXES_COLUMNS,
    AXIS_KEYS,
    COVERAGE_COLUMNS,
    DEFAULT_REFERENCE,
    NO_PRIOR,
    NOTES_COLUMNS,
    SKIPPED_COLUMNS,
    SUMMARY_COLUMNS,
    Exposure,
    exposure,
)
from .frontier import FRONTIER_COLUMNS, average_f1, frontier, pareto_mask
from .interactions import INTERACTION_COLUMNS, double_centre, interaction_scores
from .slices import (
    EDGE_FACTORS,
    EDGE_SLICE_COLUMNS,
    NO_PREDICTIONS,
    SLICE_COLUMNS,
    UNIT_KEY,
    available_factors,
    discovery_mask,
    discovery_rows,
    edge_slice_scores,
    edge_unit_scores,
    main_rows,
    slice_scores,
    unit_levels,
    unit_scores,
)
from .winrates import WinRates, win_rates

__all__ = [
    "AXES", "AXES_COLUMNS", "AXIS_KEYS", "COVERAGE_COLUMNS", "DEFAULT_REFERENCE", "D_CURVE_COLUMNS",
    "DOMAIN_COLUMNS", "EDGE_FACTORS", "EDGE_SLICE_COLUMNS", "FRONTIER_COLUMNS", "INTERACTION_COLUMNS",
    "MISSING_COLUMNS", "NOTES_COLUMNS", "NO_PREDICTIONS", "NO_PRIOR", "N_CURVE_COLUMNS", "PAIR_COLUMNS", "PAIR_METRIC", "PROTOCOL_COLUMNS", "REAL_COLUMNS",
    "SKIPPED_COLUMNS", "SLICE_COLUMNS", "SUMMARY_COLUMNS", "UNIT_KEY",
    "Exposure", "WinRates",
    "available_factors", "average_f1", "d_curve", "discovery_mask", "discovery_rows", "domain_shift",
    "double_centre", "edge_slice_scores",
    "edge_unit_scores", "exposure", "frontier", "interaction_scores", "main_rows", "n_curve", "pareto_mask",
    "pair_families", "pair_track", "protocol_table", "real_data", "real_missing", "slice_scores", "unit_levels", "unit_scores", "win_rates",
]
