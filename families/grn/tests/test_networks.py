"""Known answers for the two source networks shipped in avici 1.0.7: the published sizes
(RegulonDB 6.7 / Balaji 2006 as AVICI and GeneNetWeaver report them), the E. coli signs, parse
errors that name file and line, and the message without avici."""

from __future__ import annotations

import numpy as np
import pytest

from arena_family_grn import avici_code
from arena_family_grn.networks import SOURCES, NetworkFormatError, load_source, parse_tsv


@pytest.mark.parametrize("name", ["ecoli", "yeast"])
def test_shipped_networks_have_the_published_gene_edge_and_regulator_counts(name):
    net, want = load_source(name), SOURCES[name]
    assert (len(net.genes), net.n_edges, net.regulators) == (want.genes, want.edges, want.regulators)
    assert int(np.trace(net.adjacency)) == want.self_loops
    assert net.adjacency.shape == (want.genes, want.genes) and net.adjacency.dtype == np.int32


def test_the_published_figures():
    # avici/synthetic/graph.py: Ecoli "(3758, 2)" edges, "shape (1565, 1565)"; Yeast "(12873, 2)",
    # "shape (4441, 4441)", "157 ... master regulators/transcription factors"
    assert (SOURCES["ecoli"].genes, SOURCES["ecoli"].edges) == (1565, 3758)
    assert (SOURCES["yeast"].genes, SOURCES["yeast"].edges, SOURCES["yeast"].regulators) == (4441, 12873, 157)


def test_ecoli_signs_and_first_lines_as_in_the_file():
    net = load_source("ecoli")
    counts = {s: sum(1 for v in net.signs.values() if v == s) for s in ("+", "-", "+-", "?")}
    assert counts == {"+": 1993, "-": 1541, "+-": 209, "?": 15}
    assert net.signs[("acrR", "acrA")] == "-" and net.signs[("acrR", "acrR")] == "-"  # the file's first lines
    i, j = net.genes.index("acrR"), net.genes.index("acrA")
    assert net.adjacency[i, j] == 1 and net.adjacency[j, i] == 0
    yeast = load_source("yeast")
    assert yeast.signs == {}
    a, b = yeast.genes.index("YAL051W"), yeast.genes.index("YAL016W")
    assert yeast.adjacency[a, b] == 1


def test_parse_errors_name_the_file_and_line():
    ecoli, yeast = SOURCES["ecoli"], SOURCES["yeast"]
    assert parse_tsv("a\tb\t+\nb\tc\t-\n", ecoli)[1].tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    with pytest.raises(NetworkFormatError, match=r"x\.tsv line 2: 2 tab-separated fields, expected 3"):
        parse_tsv("a\tb\t+\nb\tc\n", ecoli, "x.tsv")
    with pytest.raises(NetworkFormatError, match=r"line 1: sign '\*' is not one of"):
        parse_tsv("a\tb\t*\n", ecoli)
    with pytest.raises(NetworkFormatError, match="line 2: interaction a -> b listed twice"):
        parse_tsv("a\tb\na\tb\n", yeast)
    with pytest.raises(NetworkFormatError, match="no interaction"):
        parse_tsv("\n", yeast)
    with pytest.raises(KeyError, match="unknown source network 'human'"):
        load_source("human")


def test_without_avici_the_error_names_the_no_deps_install(monkeypatch):
    from importlib import metadata

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    avici_code.avici_root.cache_clear()
    monkeypatch.setattr(metadata, "distribution", missing)
    try:
        with pytest.raises(avici_code.AviciMissingError, match=r"pip install --no-deps avici==1\.0\.7"):
            avici_code.avici_root()
    finally:
        avici_code.avici_root.cache_clear()
