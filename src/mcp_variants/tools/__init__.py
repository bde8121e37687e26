"""The Jupyter tools: each runs once and returns an Outcome; projectors shape it per audience."""

from __future__ import annotations

from .base import ToolSpec
from .execute_code import EXECUTE_CODE
from .list_files import LIST_FILES
from .list_kernels import LIST_KERNELS

TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (EXECUTE_CODE, LIST_FILES, LIST_KERNELS)}
