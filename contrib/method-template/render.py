"""Render the CausalArena method-plugin template.

Usage::

    python contrib/method-template/render.py my_method ./arena-method-my-method

Every file under ``template/`` is copied with :class:`string.Template`
placeholders substituted (``$name``, ``$dist_name``, ``$package``,
``$class_name``, ``$description``); placeholders in *paths* are substituted
too. ``$$`` is a literal dollar sign. Unknown placeholders are an error.
"""

from __future__ import annotations

import argparse
import re
import string
from pathlib import Path
from typing import Dict, Optional

TEMPLATE_DIR = Path(__file__).resolve().parent / "template"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def context(name: str, description: Optional[str] = None) -> Dict[str, str]:
    """Placeholder values for a method called ``name`` (lower case, ``_`` allowed).

    Raises:
        ValueError: ``name`` is not a lower-case Python identifier.
    """
    if not _NAME.match(name):
        raise ValueError(f"method name {name!r} must be lower case letters, digits and '_' (e.g. 'my_method')")
    return {
        "name": name,
        "dist_name": "arena-method-" + name.replace("_", "-"),
        "package": "arena_method_" + name,
        "class_name": "".join(part.capitalize() for part in name.split("_")),
        "description": description or f"{name}: correlation-threshold placeholder method (replace me)",
    }


def render(name: str, out_dir: Path, description: Optional[str] = None) -> Path:
    """Render the template for ``name`` into ``out_dir`` (created; must be empty or absent).

    Returns:
        ``out_dir``.

    Raises:
        FileExistsError: ``out_dir`` exists and is not empty.
        KeyError: a template file uses an unknown placeholder.
    """
    ctx = context(name, description)
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise FileExistsError(f"{out_dir} is not empty")
    for src in sorted(TEMPLATE_DIR.rglob("*")):
        if src.is_dir() or "__pycache__" in src.parts:
            continue
        rel = string.Template(str(src.relative_to(TEMPLATE_DIR))).substitute(ctx)
        if rel.endswith(".tmpl"):
            rel = rel[: -len(".tmpl")]
        dest = out_dir / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            dest.write_text(string.Template(src.read_text()).substitute(ctx))
        except KeyError as exc:
            raise KeyError(f"{src}: unknown placeholder {exc}") from None
    return out_dir


def main(argv: Optional[list] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="method name, lower case with '_' (e.g. my_method)")
    parser.add_argument("out_dir", type=Path, help="directory to create")
    parser.add_argument("--description", default=None)
    args = parser.parse_args(argv)
    print(render(args.name, args.out_dir, args.description))


if __name__ == "__main__":
    main()
