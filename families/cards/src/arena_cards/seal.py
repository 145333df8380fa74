"""Public and reserved halves of a card pool; sealed (encrypted) reserved cards (issue 23, item 4).

**The split.** Within each (family, domain), the cards are ranked by
:func:`split_rank`, SHA-256 of :data:`SPLIT_SALT` and the card id (a salted
hash: stable across machines and releases, independent of file order and of
the card's content). The ``floor(n / 2)`` lowest-ranked cards that are not
pinned public are **reserved**, the rest **public** (reserved + public: 5 + 5 when a domain has
10 cards; 3 + 4 of 7, 1 + 2 of 3, 1 + 1 of 2). Pinned public (:data:`PINNED_PUBLIC`): the demo's
cards (the ids ``scripts/demo`` runs, so the demo never needs the key) and the paper's worked
examples (it prints them). Adding cards to a domain can move a card across the split; the
maintainer re-runs ``arena card seal FOLDER`` (dry run) to see the moves
before sealing.

**Sealing.** A reserved card ships as ``<domain>/<id>.yaml.enc``: the card's
YAML bytes as a Fernet token (``cryptography.fernet``: AES-128-CBC with
HMAC-SHA256, authenticated), under a key derived with HKDF-SHA256 from the
operator's reserved key, the environment variable :data:`KEY_ENV`
(``CAUSALARENA_RESERVED_KEY``, the one the synthetic family derives its
reserved pool from). The file name keeps the id (listing reserved ids needs no
key, as the synthetic family lists its reserved ids); the content is
unreadable without the key, and a wrong key fails authentication
(:class:`ReservedKeyError`) rather than giving garbage.

Sealed cards are read by :func:`arena_cards.model.load_card` (which calls
:func:`unseal_bytes`); this module imports nothing else of the engine.

Errors: :class:`ReservedKeyError` (a :class:`PermissionError`; the CLI prints
it as one line, exit code 2) names :data:`KEY_ENV` when the key is missing or
wrong; a decrypted card that does not parse raises
:class:`~arena_cards.model.CardError` naming the sealed file (from ``load_card``).
"""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

#: the operator's reserved key (same variable as the synthetic family's ``schedule.KEY_ENV`` and the core's
#: ``commands.run.RESERVED_KEY_ENV``)
KEY_ENV = "CAUSALARENA_RESERVED_KEY"
#: suffix of a sealed card file
SEALED_SUFFIX = ".yaml.enc"
#: salt of the split hash (changing it changes the split: never do it for a released pool)
SPLIT_SALT = "causalarena.cards.split/1"
#: HKDF salt and info of the Fernet key (changing them makes every sealed card unreadable)
HKDF_SALT = b"causalarena.cards.seal"
HKDF_INFO = b"arena-cards reserved card/1"
#: the 20 cards the demo runs (scripts/demo SEMANTIC_IDS, FORMULA_IDS): the demo never needs the key
DEMO_CARDS = frozenset("""
    patch-wave-outage-risk high-dosage-tutoring-math credit-line-increase-delinquency residential-permit-review
    discharge-planning-readmission mortgage-rate-listing-time cnc-maintenance-scrap naloxone-overdose-deaths
    bus-headway-ridership cso-rainfall-overflow
    ccd-photometry-exposure chemostat-monod-steady-state batch-reactor-arrhenius-selectivity
    barometric-pressure-reduction overhead-conductor-joule-heating pv-soiling-temperature-clipping
    cwr-thermal-stress cycling-aero-field-test doppler-carotid-velocimetry air-source-heat-pump-cop
""".split())
#: the CausalArena paper's worked examples (semantic §4.2 / App. A.4; formula §4.3 / App. A.5): the paper
#: prints them, so they cannot be held out
WORKED_EXAMPLES = frozenset({"wildfire-smoke-shelter", "barometric-pressure-reduction", "thin-lens-imaging"})
#: cards always public
PINNED_PUBLIC = DEMO_CARDS | WORKED_EXAMPLES


class ReservedKeyError(PermissionError):
    """A reserved card was requested without the operator's key, or with another key."""


def key_from_env() -> Optional[str]:
    """The reserved key from :data:`KEY_ENV`, or None when unset or empty."""
    return os.environ.get(KEY_ENV) or None


def _require_key(key: Optional[str], what: str) -> str:
    key = key if key is not None else key_from_env()
    if not key:
        raise ReservedKeyError(f"{what}: reserved cards are sealed with the operator's key; set {KEY_ENV} "
                               "(they cannot be read or sealed without it)")
    return key


def fernet_for(key: str):
    """The :class:`cryptography.fernet.Fernet` of a reserved key (HKDF-SHA256, 32 bytes, fixed salt and info)."""
    from cryptography.fernet import Fernet
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=HKDF_SALT, info=HKDF_INFO).derive(key.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(raw))


def seal_bytes(text: bytes, key: str) -> bytes:
    """Encrypt a card's bytes (a Fernet token, ASCII)."""
    return fernet_for(key).encrypt(text)


def unseal_bytes(token: bytes, key: Optional[str] = None, source: str = "<sealed card>") -> bytes:
    """Decrypt a sealed card's bytes.

    Raises:
        ReservedKeyError: no key (names :data:`KEY_ENV`), or the token does not
            authenticate under this key (another key, or a damaged file).
    """
    from cryptography.fernet import InvalidToken

    key = _require_key(key, source)
    try:
        return fernet_for(key).decrypt(token)
    except InvalidToken:
        raise ReservedKeyError(f"{source}: cannot unseal with this {KEY_ENV} (another key, or the file is "
                               "damaged)") from None


def sealed_id(path: Union[str, Path]) -> str:
    """The card id of a sealed file (its name without ``.yaml.enc``)."""
    name = Path(path).name
    return name[: -len(SEALED_SUFFIX)] if name.endswith(SEALED_SUFFIX) else Path(path).stem


def sealed_files(path: Union[str, Path]) -> List[Path]:
    """The sealed cards (``*.yaml.enc``) under ``path`` (a file or folder), sorted; [] when it has none.

    Raises:
        FileNotFoundError: ``path`` does not exist.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no such card or folder: {p}")
    if p.is_file():
        return [p] if p.name.endswith(SEALED_SUFFIX) else []
    return sorted(q for q in p.rglob("*" + SEALED_SUFFIX) if q.is_file())


def split_rank(card_id: str) -> str:
    """The card's place in its domain's ranking (hex SHA-256 of :data:`SPLIT_SALT` and the id)."""
    return hashlib.sha256(f"{SPLIT_SALT}\x1f{card_id}".encode()).hexdigest()


def split(ids_by_domain: Dict[str, Sequence[str]], pinned: Iterable[str] = PINNED_PUBLIC) -> Dict[str, str]:
    """Card id → ``"public"`` or ``"reserved"``: per domain, the ``floor(n/2)`` lowest :func:`split_rank`
    among the cards not in ``pinned`` are reserved (fewer if the pinned leave too few).

    Raises:
        ValueError: an id appears twice.
    """
    pinned = set(pinned)
    out: Dict[str, str] = {}
    for domain, ids in ids_by_domain.items():
        dup = {i for i in ids if list(ids).count(i) > 1} | (set(ids) & set(out))
        if dup:
            raise ValueError(f"card id(s) {sorted(dup)} appear twice (domain {domain!r})")
        free = sorted((i for i in ids if i not in pinned), key=split_rank)
        reserved = set(free[: len(ids) // 2])
        out.update({i: "reserved" if i in reserved else "public" for i in ids})
    return out


def pool_split(folder: Union[str, Path]) -> Tuple[Dict[str, str], Dict[str, Path]]:
    """The split of every card under ``folder`` (plain and sealed), by the domain folder each lies in.

    Returns:
        ``(id → "public"/"reserved", id → file)``.

    Raises:
        FileNotFoundError: ``folder`` does not exist. ValueError: an id appears twice.
    """
    root = Path(folder)
    if not root.exists():
        raise FileNotFoundError(f"no such card or folder: {root}")
    # the plain card files as model.card_files lists them (not imported: model imports this module)
    plain = [root] if root.is_file() and root.suffix in (".yaml", ".yml") else \
        sorted(q for q in root.rglob("*") if q.suffix in (".yaml", ".yml") and q.is_file())
    by_domain: Dict[str, List[str]] = {}
    files: Dict[str, Path] = {}
    for f in plain + sealed_files(folder):
        cid = sealed_id(f)
        if cid in files:
            raise ValueError(f"card id {cid!r} is used twice: {files[cid]} and {f}")
        files[cid] = f
        by_domain.setdefault(f.parent.name, []).append(cid)
    return split(by_domain), files


def seal_pool(folder: Union[str, Path], key: Optional[str] = None, write: bool = False,
              allow_unseal: bool = False) -> List[Tuple[str, str, str]]:
    """Bring a card folder to its split: seal the reserved cards that are plain, unseal public cards that
    are sealed (a split that moved when cards were added).

    Args:
        folder: a family's card folder (``<domain>/<id>.yaml``).
        key: the reserved key (default :data:`KEY_ENV`).
        write: False (a dry run) lists the actions only.
        allow_unseal: with ``write``, also unseal (publish) sealed cards the split now makes public;
            without it such a move is refused before anything is written.

    Returns:
        ``(action, id, file)`` for each card: ``seal``, ``unseal``, ``keep public``, ``keep sealed``.

    Raises:
        ReservedKeyError: ``write`` with something to change and no key (nothing is written).
        ValueError: ``write`` would unseal a card and ``allow_unseal`` is False (nothing is written);
            an id appears twice.
    """
    verdict, files = pool_split(folder)
    actions: List[Tuple[str, str, str]] = []
    todo: List[Tuple[str, Path, Path]] = []
    for cid in sorted(files, key=lambda c: (files[c].parent.name, c)):
        f = files[cid]
        sealed = f.name.endswith(SEALED_SUFFIX)
        if verdict[cid] == "reserved" and not sealed:
            action, target = "seal", f.with_name(cid + SEALED_SUFFIX)
        elif verdict[cid] == "public" and sealed:
            action, target = "unseal", f.with_name(cid + ".yaml")
        else:
            actions.append(("keep sealed" if sealed else "keep public", cid, str(f)))
            continue
        actions.append((action, cid, str(target)))
        todo.append((action, f, target))
    if write and todo:
        k = _require_key(key, f"{len(todo)} card(s) of {folder}")
        moved = sorted(sealed_id(f) for action, f, _ in todo if action == "unseal")
        if moved and not allow_unseal:
            raise ValueError(f"the split now makes sealed card(s) {moved} public: unsealing publishes a reserved "
                             "card; pass allow_unseal (arena card seal --allow-unseal) if that is intended")
        for action, f, target in todo:
            data = seal_bytes(f.read_bytes(), k) if action == "seal" else unseal_bytes(f.read_bytes(), k, str(f))
            target.write_bytes(data)
            f.unlink()
    return actions
