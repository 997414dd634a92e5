"""What a program keeps of root's power inside the sandbox: nothing.

Started by an ordinary user, bubblewrap gives the program no capability.
Started by root (CI, containers, this machine), it keeps every capability
inside its namespaces unless told otherwise (``CapEff 000001fffeffffff``),
and a program could remount the read-only binds writable and write on the
host (issue 24).  So, as root:

* ``--cap-drop ALL`` leaves it no capability (effective, permitted, bounding
  and ambient sets all empty): no mount can be made or made writable;
* where a user namespace can be made, it runs as ``nobody`` (65534) inside
  one (``--unshare-user --uid 65534 --gid 65534``) and may not make further
  user namespaces (``--disable-userns``);
* the sandbox's ``/proc`` is read-only for every caller (see
  :func:`app.engine.play.sandbox._bwrap_argv`): the kernel checks writes to
  ``/proc/sys`` against the file owner, and the host's uid 0 owns them even
  without a capability — ``kernel.core_pattern`` would run a command as
  root on the host at the next crash.

The choice is probed once per process (a machine may forbid user namespaces).
"""

from __future__ import annotations

import os
import subprocess
import threading

NOBODY = 65534
"""The uid and gid a program has inside its user namespace when the engine runs as root."""
PROBE_TIMEOUT_S = 20
AS_NOBODY = ("--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--disable-userns")
NO_CAPABILITIES = ("--cap-drop", "ALL")

_flags: list[str] | None = None
_lock = threading.Lock()


def privilege_flags(bwrap: str) -> list[str]:
    """bubblewrap options that leave the program no privilege: empty for an ordinary user (bwrap drops
    everything itself), ``--cap-drop ALL`` and, where permitted, a ``nobody`` user namespace for root."""
    global _flags
    if os.geteuid() != 0:
        return []
    with _lock:
        if _flags is None:
            _flags = [*AS_NOBODY, *NO_CAPABILITIES] if _works(bwrap, AS_NOBODY) else list(NO_CAPABILITIES)
        return list(_flags)


def _works(bwrap: str, flags: tuple[str, ...]) -> bool:
    try:
        proc = subprocess.run([bwrap, "--unshare-all", *flags, *NO_CAPABILITIES, "--die-with-parent",
                               "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
                              capture_output=True, timeout=PROBE_TIMEOUT_S, env={"PATH": os.defpath})
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0
