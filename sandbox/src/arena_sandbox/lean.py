"""The lean-install field of a plugin's ``pyproject.toml``: ``[tool.causalarena.sandbox]``.

Some method packages declare dependencies that cannot be installed together
or that drag in a huge stack the method never imports: ``avici`` 1.0.7
resolves (after ~57 min) to jax 0.7 + tensorflow + jupyter, 3.3 GB, in which
``import avici`` fails; ``pip install --no-deps avici==1.0.7`` plus an
explicit jax 0.4.30 / dm-haiku 0.0.13 set works in ~1 GB. A plugin says so in
its own ``pyproject.toml``::

    [tool.causalarena.sandbox]
    # installed with `pip install --no-deps`: their declared dependencies are ignored
    no-deps = ["avici==1.0.7"]
    # what they (and the plugin) really need, resolved normally (pin them)
    requirements = ["numpy<2", "jax==0.4.30", "jaxlib==0.4.30", "dm-haiku==0.0.13"]

``arena sandbox build`` then installs, in this order: the ``no-deps``
distributions without their dependencies, the resolved set of ``core +
requirements``, and the plugin itself with ``--no-deps`` after checking that
every one of its own declared requirements is satisfied by what was
installed (:func:`unsatisfied`). The field enters the environment key, so
changing it builds a new environment.

The field is read from a plugin **folder** (its ``pyproject.toml``); a wheel
or an index requirement carries no ``[tool]`` table and is built the normal
way.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import attrs
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib  # type: ignore

#: the table, as written in the error messages
TABLE = "[tool.causalarena.sandbox]"
_KEYS = ("no-deps", "requirements")


class LeanFieldError(ValueError):
    """The ``[tool.causalarena.sandbox]`` table of a plugin is malformed (the message names file and field)."""


@attrs.frozen
class LeanInstall:
    """A validated lean-install field.

    Attributes:
        no_deps: ``name==version`` requirements installed with ``pip install --no-deps``.
        requirements: PEP 508 requirements resolved (with their dependencies) together with the core.
        source: the ``pyproject.toml`` they came from (for error messages).
    """

    no_deps: tuple = ()
    requirements: tuple = ()
    source: str = ""

    def names(self) -> List[str]:
        """Canonical names of the ``no-deps`` distributions."""
        return [canonicalize_name(Requirement(r).name) for r in self.no_deps]

    def key_body(self) -> Dict[str, List[str]]:
        """What the environment key covers: both lists, normalised and sorted (order does not matter)."""
        return {"no-deps": sorted(str(Requirement(r)) for r in self.no_deps),
                "requirements": sorted(str(Requirement(r)) for r in self.requirements)}


def parse_lean_field(data: Mapping[str, Any], source: str = "pyproject.toml") -> Optional[LeanInstall]:
    """Validate the ``tool.causalarena.sandbox`` table of a parsed ``pyproject.toml``.

    Args:
        data: the whole parsed TOML document.
        source: the file name, used in error messages.

    Returns:
        ``None`` when the table is absent, else the :class:`LeanInstall`.

    Raises:
        LeanFieldError: the table is not a table; an unknown key; ``no-deps``
            missing or empty, not a list of strings, or an entry not pinned
            exactly (``name==version``, no markers or extras); a
            ``requirements`` entry that is not a PEP 508 requirement; a
            distribution listed in both.
    """
    table = data.get("tool", {}).get("causalarena", {}).get("sandbox")
    if table is None:
        return None
    where = f"{source}: {TABLE}"
    if not isinstance(table, dict):
        raise LeanFieldError(f"{where} must be a table, got {type(table).__name__}")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise LeanFieldError(f"{where} has unknown field(s) {', '.join(unknown)} (known: {', '.join(_KEYS)})")
    lists: Dict[str, List[str]] = {}
    for key in _KEYS:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise LeanFieldError(f"{where} {key} must be a list of requirement strings, got {value!r}")
        lists[key] = value
    if not lists["no-deps"]:
        raise LeanFieldError(f"{where} no-deps must list at least one distribution (or drop the table)")
    seen: Dict[str, str] = {}
    for key in _KEYS:
        for raw in lists[key]:
            try:
                req = Requirement(raw)
            except InvalidRequirement as exc:
                raise LeanFieldError(f"{where} {key}: {raw!r} is not a requirement ({exc})") from None
            if key == "no-deps":
                specs = list(req.specifier)
                if len(specs) != 1 or specs[0].operator != "==" or "*" in specs[0].version \
                        or req.marker or req.extras or req.url:
                    raise LeanFieldError(f"{where} no-deps: {raw!r} must be pinned exactly as name==version "
                                         "(its dependencies are not resolved, so nothing else chooses it)")
            name = canonicalize_name(req.name)
            if name in seen:
                raise LeanFieldError(f"{where}: {req.name} is listed twice ({seen[name]} and {key})")
            seen[name] = key
    return LeanInstall(no_deps=tuple(lists["no-deps"]), requirements=tuple(lists["requirements"]), source=source)


def read_lean_field(plugin_source: str) -> Optional[LeanInstall]:
    """The lean-install field of a plugin folder's ``pyproject.toml`` (``None``: no folder, no file or no table).

    Raises:
        LeanFieldError: the file is not valid TOML, or the table is malformed
            (:func:`parse_lean_field`).
    """
    path = Path(plugin_source) / "pyproject.toml"
    if not os.path.isdir(plugin_source) or not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise LeanFieldError(f"{path}: not valid TOML ({exc})") from None
    return parse_lean_field(data, str(path))


def unsatisfied(requires_dist: List[str], installed: Mapping[str, str]) -> List[str]:
    """The plugin's declared requirements that the environment's set does not satisfy.

    Args:
        requires_dist: the plugin's ``Requires-Dist`` strings (PEP 508).
        installed: canonical name → version of everything the environment will hold.

    Returns:
        One line per problem: ``"avici==1.0.7 (not installed)"`` or
        ``"numpy<2 (2.1.0 installed)"``; requirements whose marker is false
        here (including ``extra == ...``) are skipped.
    """
    out = []
    for raw in requires_dist:
        req = Requirement(raw)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        have = installed.get(canonicalize_name(req.name))
        if have is None:
            out.append(f"{raw} (not installed)")
        elif not req.specifier.contains(have, prereleases=True):
            out.append(f"{raw} ({have} installed)")
    return out
