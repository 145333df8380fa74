"""The catalogue: every network of the bnlearn repository that pgmpy 1.1.2 ships, with the
repository's published size figures and the network's reference.

Figures (nodes, arcs, parameters) are the ones the bnlearn Bayesian network repository
(Scutari, https://www.bnlearn.com/bnrepository/) publishes for each network; the tests
check the shipped files against them. For a linear-Gaussian network the parameter count is
2·nodes + arcs (an intercept and a residual variance per node, a coefficient per arc); for a
discrete one it is Σ_nodes (states − 1) · Π_parents states.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import attrs

#: bnlearn's size classes of the discrete networks (repository headings)
SIZE_CLASSES = ("small", "medium", "large", "very large", "massive")


@attrs.frozen
class Network:
    """One bnlearn network.

    Attributes:
        name: the bnlearn / pgmpy name (also the instance id).
        kind: ``"gaussian"`` (linear-Gaussian, parameters fitted to real data) or ``"discrete"``.
        file: the file name inside ``pgmpy/utils/example_models``.
        nodes, arcs, parameters: the repository's published figures.
        size: the repository's size class (``"small"`` … ``"massive"``; Gaussian networks: ``""``).
        domain: application domain (a factor tag).
        citation: the reference the repository gives for the network.
        file_parameters: the parameter count of the shipped file where it differs from
            ``parameters`` (pgmpy's own BIF reader gives the same count as ours), else None.
    """

    name: str
    kind: str
    file: str
    nodes: int
    arcs: int
    parameters: int
    size: str
    domain: str
    citation: str
    file_parameters: Optional[int] = None


_KORB = "Korb, K. B., & Nicholson, A. E. (2010). Bayesian Artificial Intelligence (2nd ed.). Chapman & Hall/CRC."
_MUNIN = ("Andreassen, S., Jensen, F. V., Andersen, S. K., Falck, B., Kjærulff, U., Woldbye, M., Sørensen, A. R., "
          "Rosenfalck, A., & Jensen, F. (1989). MUNIN - an Expert EMG Assistant. In J. E. Desmedt (Ed.), "
          "Computer-Aided Electromyography and Expert Systems, Chapter 21. Elsevier.")

_ROWS: Tuple[Tuple[str, str, int, int, int, str, str, str], ...] = (
    # name, kind, nodes, arcs, parameters, size class, domain, citation
    ("ecoli70", "gaussian", 46, 70, 162, "", "gene expression (E. coli)",
     "Schäfer, J., & Strimmer, K. (2005). A Shrinkage Approach to Large-Scale Covariance Matrix Estimation and "
     "Implications for Functional Genomics. Statistical Applications in Genetics and Molecular Biology, 4, 32."),
    ("magic-niab", "gaussian", 44, 66, 154, "", "plant genetics (wheat MAGIC, NIAB)",
     "Scutari, M., Howell, P., Balding, D. J., & Mackay, I. (2014). Multiple Quantitative Trait Analysis Using "
     "Bayesian Networks. Genetics, 198(1), 129-137."),
    ("magic-irri", "gaussian", 64, 102, 230, "", "plant genetics (rice MAGIC, IRRI)",
     "Scutari, M., Mackay, I., & Balding, D. J. (2016). Using Genetic Distance to Infer the Accuracy of Genomic "
     "Prediction. PLoS Genetics, 12(9), e1006288."),
    ("arth150", "gaussian", 107, 150, 364, "", "gene expression (A. thaliana)",
     "Opgen-Rhein, R., & Strimmer, K. (2007). From Correlation to Causation Networks: a Simple Approximate "
     "Learning Algorithm and its Application to High-Dimensional Plant Gene Expression Data. BMC Systems "
     "Biology, 1, 37."),
    ("asia", "discrete", 8, 8, 18, "small", "medicine",
     "Lauritzen, S., & Spiegelhalter, D. (1988). Local Computation with Probabilities on Graphical Structures "
     "and their Application to Expert Systems (with discussion). Journal of the Royal Statistical Society "
     "Series B, 50(2), 157-224."),
    ("cancer", "discrete", 5, 4, 10, "small", "medicine", _KORB),
    ("earthquake", "discrete", 5, 4, 10, "small", "toy (alarm / burglary)", _KORB),
    ("sachs", "discrete", 11, 17, 178, "small", "biology (protein signalling, discretised)",
     "Sachs, K., Perez, O., Pe'er, D., Lauffenburger, D. A., & Nolan, G. P. (2005). Causal Protein-Signaling "
     "Networks Derived from Multiparameter Single-Cell Data. Science, 308(5721), 523-529."),
    ("survey", "discrete", 6, 6, 21, "small", "social science (transport survey)",
     "Scutari, M., & Denis, J.-B. (2014). Bayesian Networks with Examples in R. Chapman & Hall."),
    ("alarm", "discrete", 37, 46, 509, "medium", "medicine (patient monitoring)",
     "Beinlich, I., Suermondt, H. J., Chavez, R. M., & Cooper, G. F. (1989). The ALARM Monitoring System: A Case "
     "Study with Two Probabilistic Inference Techniques for Belief Networks. Proceedings of the 2nd European "
     "Conference on Artificial Intelligence in Medicine, 247-256."),
    ("barley", "discrete", 48, 84, 114005, "medium", "agriculture",
     "Kristensen, K., & Rasmussen, I. A. (2002). The Use of a Bayesian Network in the Design of a Decision "
     "Support System for Growing Malting Barley without Use of Pesticides. Computers and Electronics in "
     "Agriculture, 33, 197-217."),
    ("child", "discrete", 20, 25, 230, "medium", "medicine (neonatal)",
     "Spiegelhalter, D. J., Dawid, A. P., Lauritzen, S. L., & Cowell, R. G. (1993). Bayesian Analysis in Expert "
     "Systems. Statistical Science, 8(3), 219-247."),
    ("insurance", "discrete", 27, 52, 1008, "medium", "insurance (car)",
     "Binder, J., Koller, D., Russell, S., & Kanazawa, K. (1997). Adaptive Probabilistic Networks with Hidden "
     "Variables. Machine Learning, 29(2-3), 213-244."),
    ("mildew", "discrete", 35, 46, 540150, "medium", "agriculture",
     "Jensen, A. L., & Jensen, F. V. (1996). MIDAS - An Influence Diagram for Management of Mildew in Winter "
     "Wheat. Proceedings of the 12th Conference on Uncertainty in Artificial Intelligence, 349-356."),
    ("water", "discrete", 32, 66, 10083, "medium", "industry (waste water treatment)",
     "Jensen, F. V., Kjærulff, U., Olesen, K. G., & Pedersen, J. (1989). An Expert System for Control of Waste "
     "Water Treatment - A Pilot Project. Technical report, Judex Datasystemer A/S, Aalborg (in Danish)."),
    ("hailfinder", "discrete", 56, 66, 2656, "large", "meteorology",
     "Abramson, B., Brown, J., Edwards, W., Murphy, A., & Winkler, R. L. (1996). Hailfinder: A Bayesian System "
     "for Forecasting Severe Weather. International Journal of Forecasting, 12(1), 57-71."),
    ("hepar2", "discrete", 70, 123, 1453, "large", "medicine (liver disorders)",
     "Onisko, A. (2003). Probabilistic Causal Models in Medicine: Application to Diagnosis of Liver Disorders. "
     "PhD thesis, Institute of Biocybernetics and Biomedical Engineering, Polish Academy of Science, Warsaw."),
    ("win95pts", "discrete", 76, 112, 574, "large", "computing (printer troubleshooting)",
     "No reference in the bnlearn repository (a Microsoft Research printer-troubleshooting network for "
     "Windows 95)."),
    ("pathfinder", "discrete", 109, 195, 77155, "very large", "medicine (lymph-node pathology)",
     "Heckerman, D. E., Horvitz, E. J., & Nathwani, B. N. (1992). Toward Normative Expert Systems: Part I. The "
     "Pathfinder Project. Methods of Information in Medicine, 31, 90-105."),
    ("munin1", "discrete", 186, 273, 15622, "very large", "medicine (electromyography)", _MUNIN),
    ("andes", "discrete", 223, 338, 1157, "very large", "education (physics tutoring)",
     "Conati, C., Gertner, A. S., VanLehn, K., & Druzdzel, M. J. (1997). On-Line Student Modeling for Coached "
     "Problem Solving Using Bayesian Networks. Proceedings of the 6th International Conference on User "
     "Modeling, 231-242."),
    ("diabetes", "discrete", 413, 602, 429409, "very large", "medicine (insulin dosage)",
     "Andreassen, S., Hovorka, R., Benn, J., Olesen, K. G., & Carson, E. R. (1991). A Model-based Approach to "
     "Insulin Adjustment. Proceedings of the 3rd Conference on Artificial Intelligence in Medicine, 239-248."),
    ("pigs", "discrete", 441, 592, 5618, "very large", "genetics (pig pedigree)",
     "Jensen, C. S. (1997). Blocking Gibbs Sampling for Inference in Large and Complex Bayesian Networks with "
     "Applications in Genetics. PhD thesis, Aalborg University."),
    ("link", "discrete", 724, 1125, 14211, "very large", "genetics (linkage analysis)",
     "Jensen, C. S., & Kong, A. (1999). Blocking Gibbs Sampling for Linkage Analysis in Large Pedigrees with "
     "Many Loops. American Journal of Human Genetics, 65(3), 885-901."),
    ("munin2", "discrete", 1003, 1244, 69431, "massive", "medicine (electromyography)", _MUNIN),
    ("munin3", "discrete", 1041, 1306, 71961, "massive", "medicine (electromyography)", _MUNIN),
    ("munin4", "discrete", 1038, 1388, 80352, "massive", "medicine (electromyography)", _MUNIN),
    ("munin", "discrete", 1041, 1397, 80592, "massive", "medicine (electromyography)", _MUNIN),
)

#: name → :class:`Network`, Gaussian networks first, then discrete ones by size
NETWORKS: Dict[str, Network] = {
    r[0]: Network(name=r[0], kind=r[1], file=r[0] + (".json" if r[1] == "gaussian" else ".bif.gz"),
                  nodes=r[2], arcs=r[3], parameters=r[4], size=r[5], domain=r[6], citation=r[7])
    for r in _ROWS
}
# Two shipped files count fewer free parameters than the repository's page; pgmpy's BIFReader reads the
# same CPTs as ours (tests/test_discrete.py), so the difference is in the files, not in the reader.
NETWORKS["pathfinder"] = attrs.evolve(NETWORKS["pathfinder"], file_parameters=72079)
NETWORKS["munin3"] = attrs.evolve(NETWORKS["munin3"], file_parameters=71059)

#: Default cap on the number of nodes of a discrete network (option ``max_nodes``): the 14 small to
#: large networks (≤ 76 nodes) are in, pathfinder (109) and larger are out.
DEFAULT_MAX_NODES = 100

REPOSITORY_CITATION = ("Scutari, M. (2010). Learning Bayesian Networks with the bnlearn R Package. Journal of "
                       "Statistical Software, 35(3), 1-22. Bayesian network repository: "
                       "https://www.bnlearn.com/bnrepository/")
