"""``arena card show|render ID|PATH``: a scenario card as a table, or its graph drawn (PNG + SVG).

A card is named by its file path, its id (``wildfire-smoke-shelter``) or
``FAMILY/ID`` among the installed card families (subclasses of
:class:`~arena_cards.family.CardFamily`; ``--family-option
semantic.cards=FOLDER`` adds cards from anywhere). Rendering needs
matplotlib (``pip install arena-cards[render]``).

Exit codes: 0 shown or rendered, 2 no such card or the card cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from . import UsageError, add_family_option, comma_list, console, parse_family_options, registry, run_command

NAME = "card"
HELP = "show a scenario card as a table or render its graph"


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of ``arena card`` to ``parser``."""
    parser.add_argument("action", choices=("show", "render"))
    parser.add_argument("card", help="card id (wildfire-smoke-shelter), FAMILY/ID, or a path")
    parser.add_argument("--out", default=".", help="render: output folder (default .)")
    parser.add_argument("--format", help="render: comma list of png, svg (default both)")
    add_family_option(parser, help="e.g. semantic.cards=~/my-cards to find cards outside the shipped set")


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
            if path.stem == cid:
                return path
            known.append(f"{info.name}/{path.stem}")
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
