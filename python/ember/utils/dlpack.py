"""``torch.utils.dlpack``: ``to_dlpack`` and ``from_dlpack`` (ember/_dlpack.py)."""
from .._dlpack import from_dlpack, to_dlpack  # noqa: F401

__all__ = ["from_dlpack", "to_dlpack"]
