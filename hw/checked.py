"""Arguments checked before a unit object exists (:class:`CheckedFirst`): a refused configuration raises with
no half-built Elaboratable left behind, so Amaranth has no "created but never used" object to warn about."""

from __future__ import annotations

__all__ = ["CheckedFirst"]


class CheckedFirst:
    """Mixin: ``cls._checked(*args, **kwargs)`` runs before the object is created; what it returns is the
    object's ``_checked_args`` (the canonical arguments ``__init__`` reads)."""

    def __new__(cls, *args, **kwargs):
        checked = cls._checked(*args, **kwargs)
        self = super().__new__(cls, src_loc_at=1)  # (Amaranth's "created at": the caller of the constructor)
        self._checked_args = checked
        return self

    @classmethod
    def _checked(cls, *args, **kwargs):
        raise NotImplementedError
