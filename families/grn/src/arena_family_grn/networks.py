"""The two real transcriptional regulatory networks avici ships, read from its TSV files.

* ``ecoli`` — *E. coli* K-12, RegulonDB release 6.7 (Gama-Castro et al. 2008), as distributed
  with GeneNetWeaver (Schaffter, Marbach & Floreano 2011):
  ``avici/assets/ecoli_transcriptional_network_regulonDB_6_7.tsv``, one line per interaction
  ``regulator<TAB>target<TAB>sign`` with sign ``+`` (activation), ``-`` (repression), ``+-``
  (dual) or ``?`` (unknown).
* ``yeast`` — *S. cerevisiae*, Balaji et al. 2006 (J. Mol. Biol. 360:213–227), as distributed
  with GeneNetWeaver: ``avici/assets/yeast_transcriptional_network_Balaji2006.tsv``,
  ``regulator<TAB>target``.

Published sizes (:data:`SOURCES`), the ones AVICI reports in ``avici/synthetic/graph.py``
(``Ecoli``: 3758 edges, a 1565 × 1565 matrix; ``Yeast``: 12873 edges, 4441 × 4441, 157
regulators) and GeneNetWeaver's figures for the same files; the tests check the shipped files
against them. Genes are indexed in sorted name order, as avici indexes them.
"""

from __future__ import annotations

import functools
from typing import Dict, Tuple

import attrs
import numpy as np

from .avici_code import asset_path, asset_sha256


@attrs.frozen
class Source:
    """One source network and its published figures.

    Attributes:
        name: ``"ecoli"`` or ``"yeast"`` (the instance-id prefix).
        organism: a factor tag.
        file: path inside the avici package.
        genes, edges: published node and interaction counts (self-loops included).
        regulators: genes with at least one outgoing interaction (transcription factors).
        self_loops: autoregulatory interactions (dropped by the sampler: SERGIO needs a DAG).
        signed: the file gives each interaction's sign (E. coli only).
        citation: the network's reference.
    """

    name: str
    organism: str
    file: str
    genes: int
    edges: int
    regulators: int
    self_loops: int
    signed: bool
    citation: str


SOURCES: Dict[str, Source] = {
    "ecoli": Source(
        name="ecoli", organism="Escherichia coli K-12",
        file="assets/ecoli_transcriptional_network_regulonDB_6_7.tsv",
        genes=1565, edges=3758, regulators=178, self_loops=110, signed=True,
        citation=("Gama-Castro, S. et al. (2008). RegulonDB (version 6.0): gene regulation model of Escherichia "
                  "coli K-12 beyond transcription, active (experimental) annotated promoters and Textpresso "
                  "navigation. Nucleic Acids Research 36, D120-D124 (release 6.7 as distributed with "
                  "GeneNetWeaver, Schaffter et al. 2011, Bioinformatics 27(16), 2263-2270)")),
    "yeast": Source(
        name="yeast", organism="Saccharomyces cerevisiae",
        file="assets/yeast_transcriptional_network_Balaji2006.tsv",
        genes=4441, edges=12873, regulators=157, self_loops=0, signed=False,
        citation=("Balaji, S., Babu, M. M., Iyer, L. M., Luscombe, N. M. & Aravind, L. (2006). Comprehensive "
                  "analysis of combinatorial regulation using the transcriptional regulatory network of yeast. "
                  "Journal of Molecular Biology 360(1), 213-227 (as distributed with GeneNetWeaver)")),
}

#: interaction signs of the E. coli file
SIGNS = ("+", "-", "+-", "?")


class NetworkFormatError(ValueError):
    """A shipped TSV is not as expected; the message names the file, the line and the problem."""


@attrs.frozen(eq=False)
class SourceNetwork:
    """A source network as a dense matrix.

    Attributes:
        name: source name.
        genes: gene names, sorted (index i = ``genes[i]``).
        adjacency: (D × D) int32 0/1, row = regulator, self-loops kept (as the file lists them).
        signs: ``{(regulator, target): sign}`` for a signed file, else empty.
        sha256: SHA-256 of the file (hex).
    """

    name: str
    genes: Tuple[str, ...]
    adjacency: np.ndarray
    signs: Dict[Tuple[str, str], str]
    sha256: str

    @property
    def n_edges(self) -> int:
        """Number of interactions (self-loops included)."""
        return int(self.adjacency.sum())

    @property
    def regulators(self) -> int:
        """Genes with at least one outgoing interaction."""
        return int((self.adjacency.sum(axis=1) > 0).sum())


def parse_tsv(text: str, src: Source, file: str = "") -> Tuple[Tuple[str, ...], np.ndarray, Dict[Tuple[str, str], str]]:
    """Parse a source network's TSV text (the format of :data:`SOURCES`' files).

    Returns:
        ``(genes sorted, (D × D) int32 adjacency with row = regulator, {(regulator, target): sign})``
        (signs empty for an unsigned source).

    Raises:
        NetworkFormatError: a line without 2 (unsigned) / 3 (signed) tab-separated fields, an empty
            gene name, an unknown sign, an interaction listed twice (names the file and line).
    """
    file = file or src.file
    want = 3 if src.signed else 2
    pairs = []
    seen = set()
    signs: Dict[Tuple[str, str], str] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != want:
            raise NetworkFormatError(f"{file} line {lineno}: {len(fields)} tab-separated fields, expected "
                                     f"{want}: {line[:80]!r}")
        reg, tar = fields[0].strip(), fields[1].strip()
        if not reg or not tar:
            raise NetworkFormatError(f"{file} line {lineno}: empty gene name")
        if (reg, tar) in seen:
            raise NetworkFormatError(f"{file} line {lineno}: interaction {reg} -> {tar} listed twice")
        if src.signed:
            if fields[2].strip() not in SIGNS:
                raise NetworkFormatError(f"{file} line {lineno}: sign {fields[2]!r} is not one of {SIGNS}")
            signs[(reg, tar)] = fields[2].strip()
        pairs.append((reg, tar))
        seen.add((reg, tar))
    if not pairs:
        raise NetworkFormatError(f"{file}: no interaction")
    genes = tuple(sorted({g for p in pairs for g in p}))
    index = {g: i for i, g in enumerate(genes)}
    A = np.zeros((len(genes), len(genes)), dtype=np.int32)
    A[[index[r] for r, _ in pairs], [index[t] for _, t in pairs]] = 1
    return genes, A, signs


@functools.lru_cache(maxsize=None)
def load_source(name: str) -> SourceNetwork:
    """Read source network ``name`` from the installed avici package (once per process).

    Raises:
        KeyError: not ``"ecoli"`` or ``"yeast"``.
        NetworkFormatError: see :func:`parse_tsv`.
        AviciMissingError: avici is not installed (:mod:`arena_family_grn.avici_code`).
    """
    if name not in SOURCES:
        raise KeyError(f"unknown source network {name!r}; known: {', '.join(SOURCES)}")
    src = SOURCES[name]
    path = asset_path(src.file)
    genes, A, signs = parse_tsv(path.read_text(encoding="utf-8"), src, path.name)
    return SourceNetwork(name=name, genes=genes, adjacency=A, signs=signs, sha256=asset_sha256(src.file))
