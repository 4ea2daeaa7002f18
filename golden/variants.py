"""The registry's store and what every registered descriptor answers about its variants.

:data:`REGISTRY` (name -> descriptor) and the variant -> base table are kept here, below both
:mod:`fpforge.golden.contract` (whose descriptor classes mix in :class:`Registered`) and
:mod:`fpforge.golden.registry` (which registers, looks up and lists descriptors, and reads the contract to
list them by kind), so neither imports the other back. Use them through :mod:`fpforge.golden.registry`.
"""

from __future__ import annotations

from .errors import UnknownName

__all__ = ["REGISTRY", "Registered", "base_of", "variants_of"]

REGISTRY: dict[str, object] = {}
_BASE: dict[str, str] = {}  # variant name -> base name


def base_of(fmt):
    """The base descriptor of a variant; any other descriptor itself."""
    name = _BASE.get(fmt.name)
    return fmt if name is None else REGISTRY[name]


def variants_of(fmt) -> dict[str, str]:
    """``{variant: registered name}`` of a descriptor's variants (those of its base, for a variant)."""
    base = base_of(fmt).name
    return {n[len(base) + 1:]: n for n, b in _BASE.items() if b == base}


class Registered:
    """What every registered descriptor answers about its variants (mixed into the descriptor classes)."""

    @property
    def base(self):
        """The format this one is a variant of (itself when it is no variant)."""
        return base_of(self)

    @property
    def variant_name(self) -> str | None:
        """``"ieee"`` for ``cfloat8_143_ieee``; None for a format that is no variant."""
        base = base_of(self)
        return None if base is self or base.name == self.name else self.name[len(base.name) + 1:]

    @property
    def variants(self) -> tuple:
        """Names of the variants of this format's base (``("ieee",)`` for ``cfloat8_143``)."""
        return tuple(variants_of(self))

    def variant(self, name: str | None):
        """The variant ``name`` of this format's base (``None`` or ``""``: the base itself).

        Raises
        ------
        UnknownName
            The base has no such variant (the message lists the ones it has).
        """
        base = base_of(self)
        if not name:
            return base
        found = variants_of(self)
        if name not in found:
            have = ", ".join(found) or "none"
            raise UnknownName(f"format {base.name!r} has no variant {name!r}; its variants: {have}")
        return REGISTRY[found[name]]
