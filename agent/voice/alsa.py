"""Keep ALSA's diagnostics off the terminal.

ALSA prints recoverable trouble ("underrun occurred") straight to file descriptor 2 from
C, which tears through a full-screen terminal UI. PortAudio recovers from these by
itself, so the messages carry nothing the user can act on.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

_lock = threading.Lock()
_handler: object = None  # kept alive for as long as ALSA may call it


def quiet_alsa_errors() -> bool:
    """Install a silent ALSA error handler once; False where there is no ALSA."""
    global _handler
    with _lock:
        if _handler is not None:
            return bool(_handler)
        name = ctypes.util.find_library("asound")
        try:
            library = ctypes.CDLL(name) if name else None
        except OSError:
            library = None
        if library is None:
            _handler = False
            return False
        # The C signature is variadic; the handler ignores everything it is given.
        prototype = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                     ctypes.c_int, ctypes.c_char_p)
        _handler = prototype(lambda *args: None)
        library.snd_lib_error_set_handler(_handler)
        return True
