"""Run before any Qt call: imported by the package and by the modules every screen uses."""

from __future__ import annotations

import sys


def keep_none_alive() -> None:
    """Work around a PySide6 6.12.0 bug on Python 3.11.

    Its wheels (abi3) return None from every void method (`label.setText(...)`, `widget.show()`)
    without taking a reference, as if None were immortal, which it is only from Python 3.12. On 3.11
    each such call takes one from None's reference count (about 4,000 at start) until the interpreter
    aborts with "none_dealloc: deallocating None". Python 3.12 gives None a huge, fixed count; this
    does the same here, once, before any Qt call. Nothing else reads None's count."""
    if sys.version_info >= (3, 12):
        return
    import ctypes

    refcount = ctypes.c_ssize_t.from_address(id(None))  # ob_refcnt, the first field of every object
    if refcount.value < 1 << 40:
        refcount.value += 1 << 40


keep_none_alive()
