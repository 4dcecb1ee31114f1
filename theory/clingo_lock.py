"""One thread at a time in clingo, within one process.

clingo 5.8.3 (the newest release) is not safe when several threads of one process work with it
at once, even on separate `Control` objects: threads answering questions in one process died
with a segmentation fault, one thread grounding or adding the theory's statements while others
built or printed symbols (`clingo.Function`, `str(symbol)`). Its symbol table is shared by the
whole process, and a reference into it outlives its mutex (clingo's issue 641 describes that
race). Callers that may run on several threads hold this lock around everything that touches
clingo; the service solves in processes of one thread each and does not contend for it.
"""

from __future__ import annotations

import threading

CLINGO_LOCK = threading.RLock()
