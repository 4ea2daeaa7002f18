"""How a format is spelled in generated Verilog (module names and the header line).

A variant is a format of its own (``cfloat8_143_ieee``), but the variants that existed as options before
they became descriptors keep their old spelling so that their Verilog stays byte-identical: the base name
in the header (which then states the option) and the old module-name suffix (``_ieeedn``; none for
HiF8's paper-literal rounding, whose header says ``paper_literal 1``). Any other variant is spelled by its
own registry name.
"""

__all__ = ["LEGACY_VARIANTS", "format_label", "module_suffix"]

#: ``variant: module-name suffix`` of the variants that were options before.
LEGACY_VARIANTS = {"ieee": "_ieeedn", "literal": ""}


def format_label(fmt) -> str:
    """The format's name in a Verilog header line and in module names (before :func:`module_suffix`)."""
    return fmt.base.name if fmt.variant_name in LEGACY_VARIANTS else fmt.name


def module_suffix(fmt) -> str:
    """What a module name adds after :func:`format_label` for a legacy variant (else nothing)."""
    return LEGACY_VARIANTS.get(fmt.variant_name, "")
