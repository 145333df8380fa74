"""CausalArena's diagnosis layer: where and why each method fails (paper §5-6).

Slice scores (Eq. 6, graph- and edge-level), pairwise win rates (Fig. 1, 19),
double-centred interaction scores (Eq. 7), d / n curves, the protocol table
(Table 3), domain shifts (Fig. 17), real data per table (Fig. 5), the
accuracy-cost frontier (Fig. 9), pretraining exposure (§6.2, Eq. 8-10),
figures (PNG + SVG) and a static HTML report. Registered with ``arena report``
through the core's ``arena_reports()`` hook.
"""

__version__ = "0.2.0"
