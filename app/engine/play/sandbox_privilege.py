"""What a program keeps of root's power inside the sandbox: nothing.

Started by an ordinary user, bubblewrap gives the program no capability.
Started by root (CI, containers, this machine), it keeps every capability
inside its namespaces unless told otherwise (``CapEff 000001fffeffffff``),
and a program could remount the read-only binds writable and write on the
host (a program run as root must not own the machine).  So, as root:

* ``--cap-drop ALL`` leaves it no capability (effective, permitted, bounding
  and ambient sets all empty): no mount can be made or made writable;
* the sandbox's ``/proc`` is read-only for every caller (see
  :func:`app.engine.play.sandbox._bwrap_argv`): the kernel checks writes to
  ``/proc/sys`` against the file owner, and the host's uid 0 owns them even
  without a capability — ``kernel.core_pattern`` would run a command as
  root on the host at the next crash.

Not done: running the program as ``nobody`` in a user namespace of its own
(``--unshare-user --uid 65534``).  It adds nothing the kernel checks (the
namespace's 65534 is the host's uid 0 all the same), and with it a pygame
game played in lockstep beside itself diverged in 4 runs of 6 (cause not
found); without it, in none.
"""

from __future__ import annotations

import os

NO_CAPABILITIES = ("--cap-drop", "ALL")
"""bubblewrap takes it from root since 0.2; it is what makes root's programs as powerless as anyone's."""


def privilege_flags() -> list[str]:
    """bubblewrap options that leave the program no privilege: empty for an ordinary user (bwrap drops
    everything itself), ``--cap-drop ALL`` for root."""
    return list(NO_CAPABILITIES) if os.geteuid() == 0 else []
