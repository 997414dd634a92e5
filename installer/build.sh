#!/usr/bin/env bash
# Build the self-contained bundle: a PyInstaller one-folder build of `playcoder` (the command line, the
# workbench, and the Python of the programs it plays), with the desktop entry, the icon and a README, packed as
# dist/playcoder-VERSION-linux-ARCH.tar.gz.  Needs the package and its dependencies importable by $PYTHON
# (installer/setup.sh); installs the [build] extra (PyInstaller) when it is missing.
# Environment: PYTHON (default python3), PLAYCODER_BUNDLE_DIR (where the tar.gz goes, default dist/ of the
# checkout).  The last stdout line is the tar.gz's absolute path.  GPL-3.0-or-later.
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
OUT="${PLAYCODER_BUNDLE_DIR:-$PWD/dist}"
case "$OUT" in /*) ;; *) OUT="$caller/$OUT" ;; esac
WORK=build/bundle
started=$(date +%s)
fail() { echo "build.sh: $*" >&2; exit 2; }

"$PY" -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null \
  || fail "$PY is not Python 3.11 or newer; set PYTHON to one that is."
"$PY" -c 'import app.cli, PySide6.QtWidgets, pygame, numpy, tkinter' 2>/dev/null \
  || fail "$PY cannot import PlayCoder and its dependencies (PySide6, pygame, numpy, tkinter); run installer/setup.sh first."
if ! "$PY" -c 'import PyInstaller' 2>/dev/null; then
  # the [build] extra of pyproject.toml, without reinstalling the package itself
  mapfile -t build_reqs < <("$PY" -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["build"], sep="\n")')
  echo "installing the build tools: ${build_reqs[*]}"
  "$PY" -m pip install --quiet --disable-pip-version-check "${build_reqs[@]}" || fail "could not install ${build_reqs[*]} with pip."
fi

version=$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
name="playcoder-$version-linux-$(uname -m)"
built_on="$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-Linux}") with glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2)"

echo "building $name with PyInstaller (one folder) …"
PYGAME_HIDE_SUPPORT_PROMPT=1 "$PY" -m PyInstaller --noconfirm --log-level WARN \
  --distpath "$WORK/dist" --workpath "$WORK/work" installer/bundle/playcoder.spec \
  || fail "PyInstaller failed (its messages are above)."

stage="$WORK/stage/$name"
rm -rf "$WORK/stage"
mkdir -p "$WORK/stage"
mv "$WORK/dist/playcoder" "$stage"
cp installer/playcoder.desktop installer/playcoder.svg installer/bundle/install-desktop-entry.sh LICENSE "$stage/"
sed "s|@BUILT_ON@|$built_on|" installer/bundle/README.txt > "$stage/README.txt"
[ -x "$stage/playcoder" ] || fail "the build has no executable at $stage/playcoder."

mkdir -p "$OUT"
tarball="$OUT/$name.tar.gz"
tar -C "$WORK/stage" -czf "$tarball.part" "$name"
mv "$tarball.part" "$tarball"
unpacked=$(du -sm "$stage" | cut -f1)
packed=$(( $(stat -c %s "$tarball") / 1024 / 1024 ))
echo "built in $(( $(date +%s) - started )) s: $packed MB packed, $unpacked MB unpacked"
echo "$tarball"
