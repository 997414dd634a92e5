"""The one place the engine starts a program it did not write (a foreign process started anywhere else would escape its bounds).

Played targets, their unit tests, tracers and import checks all start here.
With bubblewrap (``bwrap``) a program gets:

* its own PID namespace: it sees only its own processes in ``/proc`` (never
  the engine's ``environ``), and when its first process ends the namespace's
  init ends and the kernel kills everything left in it (``setsid`` daemons
  included);
* its own network namespace: nothing but a private loopback, for
  ``network = "none"`` (the default) and ``network = "loopback"`` alike;
  there is no mode that shares the host's network;
* a read-only view of the system (``/usr``, ``/etc``, ``/opt``, ``/sys``, the
  Python it runs with and its site-packages); ``/home``, ``/root``, the real
  HOME, ``/run``, ``/var``, ``/srv`` and ``/mnt`` are absent;
* its program folder as a private **copy in a size-limited tmpfs** mounted at
  the folder's own path (the real folder stays untouched), a private
  size-limited ``/tmp`` holding HOME, and a size-limited ``/dev/shm``: the
  writable area totals at most the folder's size + ``disk_mb + 2 * tmp_mb``.
  The kernel enforces it (``No space left on device``), which a polling
  watcher could not do against a fast writer;
* of X only the socket of its own display (``/tmp/.X11-unix/X<n>``, plus that
  display's Xauthority entries when it has any); the network namespace also
  hides the abstract X sockets of every other display;
* an environment built from a whitelist (``--clearenv``), with anything
  named like a secret or holding a URL with credentials dropped;
* rlimits (address space, CPU, file size, processes), ``--die-with-parent``
  and ``--new-session``.

Where bubblewrap cannot run, one sentence on stderr says so (once per
process) and programs fall back to rlimits, the whitelisted environment, a
throwaway copy, ``unshare -n`` where permitted, a polling disk watcher and a
process-group kill: no namespace hides the engine's ``/proc`` there.

PIDs: inside the namespace a program sees itself as a small number (``2``),
and that is what SDL writes into ``_NET_WM_PID``; see
:mod:`~app.engine.play.sandbox_process` for the mapping to host PIDs.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Callable, Mapping, Sequence

from app.engine.play.cgroup import RunGroup
from app.engine.play.display import die_with_parent
from app.engine.play.sandbox_paths import (
    BASE_RO, HIDDEN, TOP_LINKS, SandboxError, _under, interpreter_paths, resolve_command, unseen_interpreter,
)
from app.engine.play.sandbox_privilege import privilege_flags
from app.engine.play.sandbox_process import (
    MARKER_ENV, SandboxedProcess, Tail, descendants, namespace_pids, read_results, results_in,
)

__all__ = ["Jail", "Limits", "Outcome", "SandboxError", "SandboxedProcess", "bwrap_status", "descendants",
           "interpreter_paths", "is_secret", "namespace_pids", "network_prefix", "program_environment",
           "resolve_command", "run", "start", "unseen_interpreter"]

NETWORK_NONE = "none"
NETWORK_LOOPBACK = "loopback"
NETWORK_MODES = (NETWORK_NONE, NETWORK_LOOPBACK)
MB = 1024 * 1024
MAX_FOLDER_MB = 1024
"""A program folder larger than this is refused: its copy lives in memory (tmpfs)."""
OUTPUT_CAP_BYTES = 2 * MB
"""run() keeps the last this many bytes of stdout and of stderr (an output bomb costs the engine nothing)."""
SRC_MOUNT = "/run/playcoder/src"
SANDBOX_TMP = "/tmp"
SANDBOX_HOME = "/tmp/home"
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME")
PASSED_PREFIXES = ("LC_",)
_SECRET_WORDS = re.compile(r"(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$|PASSWD|PASSWORD|SECRET|CREDENTIAL"
                           r"|API_?KEY|ACCESS_?KEY|TOKEN", re.IGNORECASE)
_USERINFO = re.compile(r"[^/\s@]+@")
_SCHEME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
ROOT = Path(__file__).resolve().parents[3]

# The program's first process inside the namespace: copy the folder into the tmpfs, then exec the command.
_START = 'src=$1; shift; cp -R -p "$src"/. . || { echo "playcoder: could not copy the program" >&2; exit 125; }; exec "$@"'
# run(collect=True): run the command, kill what it left, then send .playcoder-* files back on the result fd.
_COLLECT = (
    'src=$1; out=$2; shift 2; cp -R -p "$src"/. . || { echo "playcoder: could not copy the program" >&2; exit 125; }\n'
    'exec 9>"/proc/self/fd/$out"\n"$@" 9>&-\nrc=$?\nkill -9 -1 2>/dev/null\n'
    'for f in .playcoder-*; do [ -f "$f" ] && [ ! -h "$f" ] || continue; '
    'printf "%s\\n%s\\n" "$f" "$(wc -c < "$f")" >&9 && cat "$f" >&9; done\nexit $rc\n'
)


@dataclass(frozen=True)
class Limits:
    """What one program may use.  ``None`` means no limit of that kind."""

    wall_s: float | None = 60.0
    """Only for :func:`run`: the whole sandbox is killed after this many seconds."""
    cpu_s: int | None = 60
    memory_mb: int = 2048
    fsize_mb: int = 64
    nproc: int = 256
    """Processes beyond those the user already runs (RLIMIT_NPROC counts per user; root is exempt)."""
    disk_mb: int = 256
    """What the program may add to its folder copy."""
    tmp_mb: int = 64
    """Size of its private /tmp (HOME lives there), and again of its /dev/shm."""
    nofile: int = 4096
    """Open files per process (the processes themselves are bounded by the run's cgroup)."""
    address_space: bool = True
    """Bound each process's address space to ``memory_mb`` too.  False for a browser: Chromium reserves
    terabytes of address space it never touches (V8's cage) and dies at start under such a bound; its memory
    is then bounded by the run's cgroup alone (docs/architecture.md, *Web pages*)."""


TARGET_LIMITS = Limits(wall_s=None, cpu_s=None, memory_mb=4096, fsize_mb=256, nproc=512, disk_mb=512, tmp_mb=256)
"""Played targets: the run bounds the time; a busy game may use a core for the whole run."""
BROWSER_LIMITS = replace(TARGET_LIMITS, address_space=False)
"""A played web page's browser: the same bounds, its memory held by the run's cgroup (see ``address_space``)."""


@dataclass(frozen=True)
class Jail:
    """Where and with what a program runs; ``folder`` is copied, never written."""

    folder: Path
    display: str | None = None
    network: str = NETWORK_NONE
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables for the program on top of the whitelist (secret-looking ones are dropped)."""
    limits: Limits = field(default_factory=Limits)
    read_only: tuple[Path, ...] = ()
    """Engine folders the program may read at their own path (e.g. the seeding ``sitecustomize``)."""
    import_from_folder: bool = False
    """PYTHONPATH starts with the program folder (where the copy runs), so tests in subfolders import its modules."""
    confine: bool = True
    """False forces the fallback even where bubblewrap runs (benchmarks, tests of the fallback)."""
    pass_fds: tuple[int, ...] = ()
    """Pipe ends the program inherits (the frame gate's); nothing else of the engine's is open in it."""
    writable: tuple[Path, ...] = ()
    """Folders the program may write at their own path (an environment being built); nothing else of the host."""


# -- environment ---------------------------------------------------------------------
def is_secret(name: str, value: str = "") -> bool:
    """A variable that never reaches a program: named like a key, token, secret, password or credential,
    or holding a URL with credentials."""
    return bool(_SECRET_WORDS.search(name)) or _url_with_credentials(value)


def _url_with_credentials(value: str) -> bool:
    """``scheme://user:pass@``, found in time linear in the value (a regex that tries every start of a scheme is
    quadratic: a 3 MB variable held a program's start for minutes)."""
    at = value.find("://")
    while at != -1:
        if at > 0 and value[at - 1] in _SCHEME_CHARS and _USERINFO.match(value, at + 3):
            return True
        at = value.find("://", at + 3)
    return False


def program_environment(extra: Mapping[str, str], *, home: str, tmp: str, display: str | None,
                        folder: str | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whitelist: PATH, locale, time zone and user name from ``base``; HOME, TMPDIR and the XDG folders in the
    private area; DISPLAY; then ``extra``.  Nothing that :func:`is_secret` flags, whichever the source."""
    src = os.environ if base is None else base
    env = {k: v for k, v in src.items() if (k in PASSED_ENV or k.startswith(PASSED_PREFIXES)) and not is_secret(k, v)}
    bindir = os.path.dirname(sys.executable)
    env["PATH"] = os.pathsep.join(dict.fromkeys([bindir, *env.get("PATH", os.defpath).split(os.pathsep)]))
    env.update(HOME=home, TMPDIR=tmp, XDG_CACHE_HOME=f"{home}/.cache", XDG_CONFIG_HOME=f"{home}/.config",
               XDG_DATA_HOME=f"{home}/.local/share")
    if display:
        env["DISPLAY"] = display
    env.update({k: v for k, v in extra.items() if not is_secret(k, v)})
    user_site = _user_site()
    if folder or user_site:  # HOME is private inside, so Python would not find per-user packages by itself
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [folder, env.get("PYTHONPATH"), user_site]))
    return env


def _user_site() -> str | None:
    """The engine's per-user site-packages, when it imports from it (HOME is private inside)."""
    import site

    path = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    return path if path and path in sys.path and os.path.isdir(path) else None


# -- is bubblewrap usable? -------------------------------------------------------------
_probe: tuple[str, str | None] | None = None
_probe_lock = threading.Lock()


def bwrap_status() -> tuple[str, str | None]:
    """(path or "", why not) — probed once per process; the first failure is said once on stderr."""
    global _probe
    with _probe_lock:
        if _probe is None:
            _probe = _probe_bwrap()
            if _probe[1] is not None:
                sys.stderr.write(f"playcoder: {fallback_sentence(_probe[1])}\n")
                sys.stderr.flush()
        return _probe


def fallback_sentence(why: str) -> str:
    return (f"programs run without the bubblewrap sandbox ({why}): only resource limits, a clean environment and "
            "a throwaway copy contain them; install bubblewrap (apt-get install bubblewrap) and allow "
            "unprivileged user namespaces for full containment.")


def _probe_bwrap() -> tuple[str, str | None]:
    path = shutil.which("bwrap")
    if path is None:
        return "", "bwrap is not installed"
    try:
        proc = subprocess.run([path, "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
                               "--proc", "/proc", "--dev", "/dev", "--size", str(MB), "--tmpfs", "/tmp", "true"],
                              capture_output=True, text=True, timeout=20, env={"PATH": os.defpath})
    except (OSError, subprocess.SubprocessError) as exc:
        return "", f"bwrap did not run: {exc}"
    if proc.returncode != 0:
        return "", (proc.stderr.strip().splitlines() or ["bwrap failed"])[-1][:200]
    return path, None


# -- the bubblewrap command line --------------------------------------------------------
def _folder_bytes(folder: Path) -> int:
    """What the folder occupies in a tmpfs (whole pages), checked against MAX_FOLDER_MB."""
    total = 0
    for root, dirs, files in os.walk(folder):
        total += 4096 * (1 + len(dirs))
        for name in files:
            try:
                total += -(-os.lstat(os.path.join(root, name)).st_size // 4096) * 4096
            except OSError:
                continue
    if total > MAX_FOLDER_MB * MB:
        raise SandboxError(f"{folder} holds {total // MB} MB; programs are copied into memory and may hold at most "
                           f"{MAX_FOLDER_MB} MB: move large data out of the program folder.")
    return total


def _python_paths() -> list[str]:
    """Folders the engine's Python needs: interpreter, stdlib, site-packages (a venv included, wherever it is) and
    the other import paths, except those inside the engine's own checkout; never a whole home folder."""
    import site

    needed = [sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
              *site.getsitepackages()]
    checkout = str(ROOT) if (ROOT / "pyproject.toml").is_file() or (ROOT / ".git").exists() else None
    needed += [e for e in sys.path if e and not (checkout and _under(os.path.realpath(e), checkout))]
    home = os.path.realpath(os.path.expanduser("~"))
    out: list[str] = []
    for p in sorted({os.path.realpath(p) for p in needed if os.path.isdir(p)}, key=len):
        if p not in (home, "/", *HIDDEN) and not any(_under(p, b) for b in (*BASE_RO, *out)):
            out.append(p)
    return out


def _hidden_home() -> list[str]:
    """The real HOME when it lies inside a folder the sandbox shows (e.g. under /opt): hidden by an empty tmpfs."""
    home = os.path.realpath(os.path.expanduser("~"))
    return [home] if home != "/" and any(_under(home, b) for b in BASE_RO) else []


def _x_socket(display: str) -> str:
    m = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display.strip())
    if m is None:
        raise SandboxError(f"DISPLAY={display} is a network display; sandboxed programs reach only a local X socket: "
                           "use --display isolated.")
    path = f"/tmp/.X11-unix/X{m.group(1)}"
    if not os.path.exists(path):
        raise SandboxError(f"the X display {display} has no socket at {path}; sandboxed programs reach X only "
                           "through it: use --display isolated.")
    return path


def xauthority_entries(path: str, number: str) -> bytes:
    """The entries of an Xauthority file for display ``number`` only (the program sees no other cookie)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return b""
    out, i = b"", 0
    try:
        while i + 2 <= len(data):
            start = i
            i += 2
            fields = []
            for _ in range(4):
                (n,) = struct.unpack_from(">H", data, i)
                fields.append(data[i + 2:i + 2 + n])
                i += 2 + n
            if i > len(data):
                break
            if fields[1].decode(errors="replace") == number:
                out += data[start:i]
    except struct.error:
        pass
    return out


def _bwrap_argv(bwrap: str, jail: Jail, folder_bytes: int, info_fd: int, xauth_fd: int | None,
                env: Mapping[str, str]) -> list[str]:
    lim = jail.limits
    folder = os.path.realpath(jail.folder)  # a symlink on the way would lead the tmpfs mount out of the sandbox
    argv = [bwrap, "--unshare-all", *privilege_flags(), "--die-with-parent", "--new-session", "--info-fd",
            str(info_fd)]
    for link in TOP_LINKS:
        if os.path.islink(link):
            argv += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            argv += ["--ro-bind", link, link]
    for path in BASE_RO:
        argv += ["--ro-bind-try", path, path]
    for path in _hidden_home():
        argv += ["--size", "4096", "--tmpfs", path]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(lim.tmp_mb * MB), "--tmpfs", "/dev/shm",
             "--size", str(lim.tmp_mb * MB), "--tmpfs", SANDBOX_TMP, "--dir", SANDBOX_HOME]
    for path in [*_python_paths(), *(os.path.realpath(p) for p in jail.read_only)]:
        argv += ["--ro-bind", path, path]  # after /tmp's tmpfs: a Python (or venv) under /tmp stays visible
    for path in (os.path.realpath(p) for p in jail.writable):
        argv += ["--bind", path, path]  # after the read-only binds: an environment being built is writable
    if jail.display:
        sock = _x_socket(jail.display)
        argv += ["--dir", "/tmp/.X11-unix", "--ro-bind", sock, sock]
        if xauth_fd is not None:
            argv += ["--ro-bind-data", str(xauth_fd), "/tmp/.Xauthority"]
    argv += ["--ro-bind", folder, SRC_MOUNT, "--size", str(folder_bytes + lim.disk_mb * MB), "--tmpfs", folder,
             "--chdir", folder]
    for path in ("/dev", "/proc", *_hidden_home(), "/"):  # /proc: uid 0 writes /proc/sys without a capability
        argv += ["--remount-ro", path]
    argv.append("--clearenv")
    for key, value in env.items():
        argv += ["--setenv", key, value]
    return argv


# -- limits -------------------------------------------------------------------------------
def _user_process_count() -> int:
    uid = os.getuid()
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                count += os.stat(f"/proc/{name}").st_uid == uid
            except OSError:
                continue
    return count


def _limiter(lim: Limits, new_session: bool, group: RunGroup | None = None) -> Callable[[], None]:
    nproc = None if os.getuid() == 0 else _user_process_count() + lim.nproc
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nofile = lim.nofile if hard == resource.RLIM_INFINITY else min(lim.nofile, hard)  # never above what we have

    parent = os.getpid()

    def apply() -> None:  # between fork and exec: no allocation-heavy work
        if group is not None:
            group.enter()  # the whole tree's bound (processes, memory), whatever the uid
        if new_session:
            os.setsid()
        die_with_parent(parent)
        if lim.address_space:
            resource.setrlimit(resource.RLIMIT_AS, (lim.memory_mb * MB, lim.memory_mb * MB))
        if lim.cpu_s is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_s, lim.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim.fsize_mb * MB, lim.fsize_mb * MB))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        if nproc is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    return apply


_unshare_prefix: list[str] | None = None


def network_prefix() -> list[str]:
    """Fallback only: ``['unshare', '-n']`` or ``['unshare', '-rn']`` when permitted here, else ``[]`` (probed once)."""
    global _unshare_prefix
    if _unshare_prefix is None:
        _unshare_prefix = []
        tool = shutil.which("unshare")
        for flags in (["-n"], ["-rn"]) if tool else ():
            try:
                probe = subprocess.run([str(tool), *flags, "true"], capture_output=True, timeout=10,
                                       env={"PATH": os.defpath})
            except (OSError, subprocess.SubprocessError):
                continue
            if probe.returncode == 0:
                _unshare_prefix = [str(tool), *flags]
                break
    return list(_unshare_prefix)


# -- starting ---------------------------------------------------------------------------------
def start(argv: Sequence[str], jail: Jail, *, stdin: int | None = subprocess.DEVNULL, collect_fd: int | None = None,
          ) -> SandboxedProcess:
    """Start ``argv`` in the jail with stdout and stderr as pipes (bytes)."""
    if jail.network not in NETWORK_MODES:
        raise SandboxError(f"network must be one of {', '.join(NETWORK_MODES)}, not {jail.network!r}.")
    if not jail.folder.is_dir():
        raise SandboxError(f"{jail.folder} is not a folder; a sandboxed program needs its program folder.")
    marker = os.urandom(8).hex()
    bwrap = bwrap_status()[0] if jail.confine else ""
    group = RunGroup.create(jail.limits.nproc, jail.limits.memory_mb)
    try:
        if bwrap:
            proc = _start_confined(bwrap, list(argv), jail, stdin, collect_fd, marker, group)
        else:
            proc = _start_fallback(list(argv), jail, stdin, marker, group)
    except BaseException:
        group.close()
        raise
    proc.bound_by(group)
    return proc


def _start_confined(bwrap: str, argv: list[str], jail: Jail, stdin: int | None, collect_fd: int | None,
                    marker: str, group: RunGroup) -> SandboxedProcess:
    size = _folder_bytes(jail.folder)
    env = program_environment(jail.env, home=SANDBOX_HOME, tmp=SANDBOX_TMP, display=jail.display,
                              folder=os.path.realpath(jail.folder) if jail.import_from_folder else None)
    shown = [*interpreter_paths(argv, jail.folder, env.get("PATH")), *(str(p) for p in jail.read_only)]
    unseen = unseen_interpreter(argv, jail.folder, [*_python_paths(), *shown], env.get("PATH"))
    if unseen is not None:
        raise SandboxError(unseen + ".")
    jail = replace(jail, read_only=tuple(Path(p) for p in shown))
    cookie = b""
    if jail.display:
        number = re.sub(r"^(?:unix)?:(\d+).*$", r"\1", jail.display)
        cookie = xauthority_entries(os.environ.get("XAUTHORITY") or os.path.expanduser("~/.Xauthority"), number)
    info_r, info_w = os.pipe()
    fds = [info_w, *jail.pass_fds]
    xauth_r: int | None = None
    try:
        if cookie:  # a pipe holds it (< 64 KiB): bwrap copies it into the sandbox, no file on the host
            xauth_r, xauth_w = os.pipe()
            os.write(xauth_w, cookie[:60000])
            os.close(xauth_w)
            fds.append(xauth_r)
            env["XAUTHORITY"] = "/tmp/.Xauthority"
        cmd = _bwrap_argv(bwrap, jail, size, info_w, xauth_r, env)
        if collect_fd is None:
            cmd += ["/bin/sh", "-c", _START, "sh", SRC_MOUNT, *argv]
        else:
            fds.append(collect_fd)
            cmd += ["/bin/sh", "-c", _COLLECT, "sh", SRC_MOUNT, str(collect_fd), *argv]
        try:
            popen = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=fds,
                                     env={"PATH": os.defpath}, preexec_fn=_limiter(jail.limits, True, group))
        except OSError as exc:
            raise SandboxError(f"could not start the sandbox ({exc}); check the bubblewrap installation.") from exc
    except BaseException:
        os.close(info_r)
        raise
    finally:
        os.close(info_w)
        if xauth_r is not None:
            os.close(xauth_r)
    try:
        info = _read_all(info_r)
    finally:
        os.close(info_r)
    try:
        init_pid: int | None = int(json.loads(info)["child-pid"])
    except (ValueError, KeyError, TypeError):
        init_pid = None  # bwrap failed before the namespace existed: its message is on stderr
    return SandboxedProcess(popen, confined=True, init_pid=init_pid, scratch=None, folder=jail.folder, marker=marker)


def _read_all(fd: int) -> bytes:
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    return data


def _start_fallback(argv: list[str], jail: Jail, stdin: int | None, marker: str, group: RunGroup) -> SandboxedProcess:
    size = _folder_bytes(jail.folder)
    scratch = tempfile.TemporaryDirectory(prefix="playcoder-sandbox-")
    base = Path(scratch.name)
    copy, home, tmp = base / "program", base / "home", base / "tmp"
    try:
        shutil.copytree(jail.folder, copy, symlinks=True)
        home.mkdir()
        tmp.mkdir()
        env = program_environment(jail.env, home=str(home), tmp=str(tmp), display=jail.display,
                                  folder=str(copy) if jail.import_from_folder else None)
        xauth = os.environ.get("XAUTHORITY")
        if jail.display and xauth:
            env["XAUTHORITY"] = xauth
        env[MARKER_ENV] = marker
        prefix = network_prefix() if jail.network == NETWORK_NONE else []
        popen = subprocess.Popen([*prefix, *argv], cwd=copy, env=env, stdin=stdin, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, pass_fds=jail.pass_fds,
                                 preexec_fn=_limiter(jail.limits, True, group))
    except OSError as exc:
        scratch.cleanup()
        raise SandboxError(f"could not start {' '.join(argv)} ({exc}); check the command.") from exc
    proc = SandboxedProcess(popen, confined=False, init_pid=None, scratch=scratch, folder=copy, marker=marker)
    proc.watch_disk(base, size + (jail.limits.disk_mb + jail.limits.tmp_mb) * MB)
    return proc


# -- running to the end --------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """How a :func:`run` ended."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    confined: bool
    network_isolated: bool
    disk_exceeded: bool = False
    collected: dict[str, bytes] = field(default_factory=dict)
    """Result files (``.playcoder-*``) the program left in its copy, when asked for."""


def run(argv: Sequence[str], jail: Jail, *, stdin: str | None = None, collect: bool = False) -> Outcome:
    """Run ``argv`` in the jail to its end or ``jail.limits.wall_s``; everything it started is gone afterwards."""
    t0 = time.monotonic()
    collect_r = collect_w = None
    if collect and jail.confine and bwrap_status()[0]:
        collect_r, collect_w = os.pipe()
    try:
        proc = start(argv, jail, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                     collect_fd=collect_w)
    except BaseException:
        if collect_r is not None:
            os.close(collect_r)
        raise
    finally:
        if collect_w is not None:
            os.close(collect_w)
    results: dict[str, bytes] = {}
    reader: threading.Thread | None = None
    if collect_r is not None:
        reader = threading.Thread(target=read_results, args=(collect_r, results), daemon=True, name="sandbox-collect")
        reader.start()
    assert proc.popen.stdout is not None and proc.popen.stderr is not None
    out, err = Tail(proc.popen.stdout, OUTPUT_CAP_BYTES), Tail(proc.popen.stderr, OUTPUT_CAP_BYTES)
    if stdin is not None and proc.popen.stdin is not None:
        threading.Thread(target=_feed, args=(proc.popen.stdin, stdin.encode()), daemon=True).start()
    timed_out = False
    try:
        proc.wait(jail.limits.wall_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    try:
        proc.kill()
        if reader is not None:
            reader.join(5)
        elif collect:
            results = results_in(proc.folder)
        code = proc.poll()
        return Outcome(code if code is not None else -signal.SIGKILL, out.text(5), err.text(5),
                       time.monotonic() - t0, timed_out, proc.confined,
                       proc.confined or (jail.network == NETWORK_NONE and bool(network_prefix())),
                       proc.disk_exceeded, dict(results))
    finally:
        proc.cleanup()
        if collect_r is not None and (reader is None or not reader.is_alive()):
            os.close(collect_r)


def _feed(stream: IO[bytes], data: bytes) -> None:
    try:
        stream.write(data)
        stream.close()
    except (OSError, ValueError):
        pass
