"""CEL device selectors with the Kubernetes DRA environment.

``compile_selector(expr)`` parses (cel-python's grammar), checks and compiles
an expression once; ``CompiledSelector.evaluate(DeviceView)`` returns the
verdict, cached by the projection of the device fields the expression reads."""

from dralloc.cel.derived import CompiledDerived, compile_derived
from dralloc.cel.device import DeviceView
from dralloc.cel.errors import CELCompileError, CELError, CELRuntimeError
from dralloc.cel.library import COST_LIMIT
from dralloc.cel.selector import (
    MAX_EXPRESSION_LENGTH,
    CompiledSelector,
    compile_selector,
)

__all__ = [
    "COST_LIMIT", "CELCompileError", "CELError", "CELRuntimeError", "CompiledDerived", "CompiledSelector",
    "DeviceView", "MAX_EXPRESSION_LENGTH", "compile_derived", "compile_selector",
]
