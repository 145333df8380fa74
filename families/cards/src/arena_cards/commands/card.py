"""``arena card show|render|audit|seal``: a scenario card as a table or its graph drawn (PNG + SVG);
the pool's diversity audit; sealing the reserved half.

- ``arena card show ID|PATH`` / ``arena card render ID|PATH [--out DIR]``;
- ``arena card audit [PATH …] [--threshold T] [--top N] [--json]``: the
  near-duplicate audit (:mod:`arena_cards.audit`) over the given folders, by
  default the shipped cards of every installed card family together
  (sealed cards too when ``CAUSALARENA_RESERVED_KEY`` is set); prints the
  closest pairs and exits 1 when a pair scores at or above the threshold;
- ``arena card seal FOLDER … [--write]`` (maintainers): the public/reserved
  split of a family's card folder (:mod:`arena_cards.seal`); a dry run
  lists what would be sealed (``*.yaml`` → ``*.yaml.enc``) or unsealed;
  ``--write`` does it, with the key in ``CAUSALARENA_RESERVED_KEY``.

A card is named by its file path, its id (``wildfire-smoke-shelter``) or
``FAMILY/ID`` among the installed card families (subclasses of
:class:`~arena_cards.family.CardFamily`; ``--family-option
semantic.cards=FOLDER`` adds cards from anywhere). Rendering needs
matplotlib (``pip install arena-cards[render]``).

Exit codes: 0 shown, rendered, audited clean or sealed; 1 the audit found a
near-duplicate; 2 no such card, the card cannot be read, or a reserved key is missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from . import UsageError, add_family_option, comma_list, console, parse_family_options, registry, run_command

NAME = "card"
HELP = "show or render a scenario card; audit a card pool for near-duplicates; seal the reserved half"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the actions of ``arena card`` (one sub-parser each: show, render, audit, seal) to ``parser``."""
    actions = parser.add_subparsers(dest="action", metavar="{show,render,audit,seal}")
    actions.required = True
    for name, text in (("show", "a card as tables"), ("render", "draw a card's graph (PNG + SVG)")):
        sp = actions.add_parser(name, help=text, description=text)
        sp.add_argument("card", help="card id (wildfire-smoke-shelter), FAMILY/ID, or a path")
        if name == "render":
            sp.add_argument("--out", default=".", help="output folder (default .)")
            sp.add_argument("--format", help="comma list of png, svg (default both)")
        add_family_option(sp, help="e.g. semantic.cards=~/my-cards to find cards outside the shipped set")
    text = "near-duplicate audit of a card pool (arena_cards.audit); exit 1 when a pair reaches the threshold"
    sp = actions.add_parser("audit", help=text, description=text)
    sp.add_argument("paths", nargs="*", metavar="PATH",
                    help="card folders or files audited together (default: the shipped semantic and formula cards)")
    sp.add_argument("--threshold", type=float, default=None,
                    help="the near-duplicate score (default arena_cards.audit.THRESHOLD)")
    sp.add_argument("--top", type=int, default=10, help="how many closest pairs to print (default 10)")
    sp.add_argument("--json", action="store_true", help="the threshold, flagged and closest pairs as JSON")
    text = ("maintainers: bring a family's card folder to its public/reserved split (arena_cards.seal); "
            "a dry run unless --write")
    sp = actions.add_parser("seal", help=text, description=text)
    sp.add_argument("paths", nargs="+", metavar="FOLDER", help="a family's card folder (<domain>/<id>.yaml)")
    sp.add_argument("--write", action="store_true",
                    help="seal (and unseal) the files with CAUSALARENA_RESERVED_KEY; default: list the actions")
    sp.add_argument("--allow-unseal", action="store_true",
                    help="with --write, also unseal (publish) sealed cards the split now makes public")


def find_card(ref: str, options: Sequence[str] = (), reg: Any = None) -> Path:
    """A card file from a path, ``ID`` or ``FAMILY/ID`` among installed card families.

    Args:
        ref: a file path, a card id, or ``FAMILY/ID``.
        options: ``--family-option`` values (``semantic.cards=FOLDER`` …).
        reg: the plugin registry to search (default: the process's default registry).

    Raises:
        UsageError: no such file or card id (names the card families and a few known ids).
    """
    p = Path(ref)
    if p.is_file():
        return p
    from ..family import CardFamily
    from ..seal import sealed_id

    fam_name, _, cid = ref.rpartition("/")
    reg = registry() if reg is None else reg
    parsed = parse_family_options(options)
    known = []
    for info in reg.families.values():
        if fam_name and info.name != fam_name:
            continue
        try:
            cls = info.load()
        except Exception:  # noqa: BLE001 - a broken family is listed by `arena plugins`
            continue
        if not (isinstance(cls, type) and issubclass(cls, CardFamily)):
            continue
        try:
            fam = cls(**parsed.get(info.name, {}))
            paths = fam.card_paths()
        except (TypeError, ValueError, FileNotFoundError) as exc:
            raise UsageError(f"family {info.name!r} ({info.distribution}): bad option: {exc}") from None
        for path, _ in paths:
            if sealed_id(path) == cid:
                return path
            known.append(f"{info.name}/{sealed_id(path)}")
    card_families = [n for n, info in reg.families.items() if info.kind in ("semantic", "formula")]
    if fam_name and fam_name not in reg.families:
        hint = f" (no family {fam_name!r}; card families: {', '.join(card_families) or 'none installed'})"
    elif known:
        hint = f" (e.g. {', '.join(sorted(known)[:4])})"
    else:
        hint = " (no card family is installed)" if not card_families else ""
    raise UsageError(f"no card {ref!r}: not a file and not a card id of an installed family{hint}; for your own "
                     "cards pass the file path, or --family-option semantic.cards=FOLDER")


def run(args: argparse.Namespace) -> int:
    """Show or render ``args.card``; print the written files for ``render``. Returns the exit code."""
    return run_command(NAME, _run, args)


def _run(args: argparse.Namespace) -> int:
    from .. import render
    from ..model import CardError, load_card
    from ..validate import validate_card

    if args.action == "audit":
        return _audit(args)
    if args.action == "seal":
        return _seal(args)
    path = find_card(args.card, args.family_option, registry(args))
    try:
        card = load_card(path)
    except CardError as exc:
        raise UsageError(f"cannot read card:\n{exc}") from None
    errors = validate_card(path, data=False).errors  # static gates only: cheap, and says if the card is usable
    if errors:
        print(f"note: this card does not pass validation ({len(errors)} error(s); `arena validate {path}` lists "
              f"them), e.g. {errors[0]}", file=sys.stderr)
    if args.action == "show":
        render.show(card, console())
        return 0
    outs = render.render(card, args.out, formats=comma_list(args.format) or ["png", "svg"])
    for o in outs:
        print(o)
    return 0


def _audit(args: argparse.Namespace) -> int:
    """``arena card audit``: print the closest pairs and the threshold; 1 when a pair reaches it."""
    import json

    from ..audit import THRESHOLD, audit_pool, shipped_card_folders
    from ..model import CardError

    threshold = THRESHOLD if args.threshold is None else args.threshold
    if not 0 < threshold <= 1:
        raise UsageError(f"--threshold must lie in (0, 1], got {threshold}")
    if args.top < 0:
        raise UsageError(f"--top must be >= 0, got {args.top}")
    folders = [Path(p) for p in args.paths] or shipped_card_folders()
    if not folders:
        raise UsageError("no card folder given and no card family (semantic, formula) is installed")
    from ..seal import KEY_ENV, key_from_env, sealed_files

    if not key_from_env():
        try:
            unread = sum(len(sealed_files(f)) for f in folders)
        except FileNotFoundError as exc:
            raise UsageError(str(exc)) from None
        if unread:
            print(f"note: {unread} sealed reserved card(s) (*.yaml.enc) not audited: set {KEY_ENV} to audit the "
                  "whole pool", file=sys.stderr)
    try:
        pairs, flagged = audit_pool(folders, threshold)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except CardError as exc:
        raise UsageError(f"a card does not load:\n{exc}") from None
    n_cards = len({c for p in pairs for c in (p.a, p.b)})
    if args.json:
        print(json.dumps({"threshold": threshold, "cards": n_cards, "pairs": len(pairs),
                          "flagged": [attrs_dict(p) for p in flagged],
                          "closest": [attrs_dict(p) for p in pairs[:args.top]]}, indent=2))
    else:
        print(f"diversity audit: {n_cards} card(s), {len(pairs)} pair(s), threshold {threshold:.3f}")
        for p in pairs[:args.top]:
            print(("NEAR-DUPLICATE " if p.score >= threshold else "") + str(p))
        print(f"{len(flagged)} pair(s) at or above the threshold" if flagged else "no near-duplicates")
    return 1 if flagged else 0


def attrs_dict(p: Any) -> dict:
    """A :class:`~arena_cards.audit.PairScore` as a JSON-ready dict (scores rounded to 4 places)."""
    return {"a": p.a, "b": p.b, "score": round(p.score, 4), "names": round(p.names, 4),
            "structure": round(p.structure, 4), "mix_distance": round(p.mix, 4)}


def _seal(args: argparse.Namespace) -> int:
    """``arena card seal FOLDER … [--write]``: list (dry run) or apply each folder's split."""
    from ..seal import seal_pool

    for folder in args.paths:
        if not Path(folder).is_dir():
            raise UsageError(f"seal: {folder} is not a folder")
        try:
            actions = seal_pool(folder, write=args.write, allow_unseal=args.allow_unseal)
        except ValueError as exc:
            raise UsageError(f"seal {folder}: {exc}") from None
        todo = [a for a in actions if a[0] in ("seal", "unseal")]
        for action, cid, target in actions:
            if action in ("seal", "unseal") or not args.write:
                print(f"{action if args.write else 'would ' + action}\t{cid}\t{target}")
        n_res = sum(a[0] in ("seal", "keep sealed") for a in actions)
        print(f"{folder}: {len(actions)} card(s), {n_res} reserved, {len(actions) - n_res} public; "
              + (f"{len(todo)} file(s) changed" if args.write else f"{len(todo)} to change (--write to apply)"))
    return 0
