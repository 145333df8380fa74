"""``arena show FAMILY[/SCM_ID]``: an SCM spec as JSON, or a family's instances.

``arena show synthetic`` prints one line per instance from
:meth:`Family.listing <causalarena.family.Family.listing>` (a family lists
its ids without generating an SCM when it overrides it)::

    synthetic/er-d10-000	d=10	splits=obs,obs_int	replicates=5
    semantic/broken	not generated: <why>

``d=?`` when the family cannot tell without building the instance. A family's
:meth:`Family.listing_note <causalarena.family.Family.listing_note>` follows on
stderr (the card families: how many reserved cards are sealed and left out).
"""

from __future__ import annotations

import argparse
import json
import sys

from ._common import UsageError, _family_object, _registry, add_family_option, parse_family_options


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``arena show``."""
    parser.add_argument("scm", help="FAMILY/SCM_ID (e.g. synthetic/er-d10-000), or FAMILY to list its instance ids")
    add_family_option(parser)


def run(args: argparse.Namespace) -> int:
    """Print the spec of ``FAMILY/SCM_ID`` (JSON) or the listing of ``FAMILY``; 0.

    Raises:
        UsageError: no such instance (the family's message), or a reserved one without the key.
    """
    family, sep, scm_id = args.scm.partition("/")
    registry = _registry(args)
    fam = _family_object(registry, family, parse_family_options(args.family_option).get(family, {}))
    if not sep or not scm_id:  # `arena show synthetic`: list the instance ids
        for s in fam.listing():
            if s.error:
                print(f"{family}/{s.scm_id}\tnot generated: {s.error}")
                continue
            d = "?" if s.d is None else s.d
            print(f"{family}/{s.scm_id}\td={d}\tsplits={','.join(s.splits)}\treplicates={s.n_replicates}")
        note = fam.listing_note()
        if note:  # on stderr: the listing on stdout stays one instance per line
            print(note, file=sys.stderr)
        return 0
    try:
        inst = fam.instance(scm_id)
    except PermissionError as exc:
        raise UsageError(str(exc)) from None
    except (KeyError, ValueError) as exc:
        raise UsageError(f"no instance {scm_id!r} in family {family!r}: {exc.args[0]}") from None
    spec = getattr(inst, "spec", None)
    if callable(getattr(inst, "describe", None)):  # an instance that says what it is (e.g. a world of views)
        print(json.dumps({"family": family, "scm_id": scm_id, "task": getattr(inst, "task", "discovery"),
                          **inst.describe()}, indent=2, default=str))
    elif spec is None:
        print(json.dumps({"family": family, "scm_id": scm_id, "factors": inst.factors,
                          "note": "a real table has no executable spec",
                          "adjacency": inst.true_adjacency().tolist()}, indent=2, default=str))
    else:
        print(spec.to_json())
    return 0
