#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine for PlayCoder Workbench: the X and Qt
# libraries the engine and the workbench need, then the Python package with
# its test extras.  Safe to run again.  Needs root (or sudo) for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS=(
  xvfb xauth xdotool x11-utils git bubblewrap
  libxcb-cursor0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
  libegl1 libgl1 libfontconfig1 libdbus-1-3 fonts-dejavu-core tk libtk8.6 tesseract-ocr
  openbox  # a window manager for the desktop-mode tests (Xvfb + openbox)
  chromium  # the browser that plays web pages (web = "index.html" in playcoder.toml)
)
# The font set of a common desktop, so developers and CI draw what users see: bundled apps name
# "DejaVu Sans", while "sans-serif", Helvetica and Arial resolve to one of these per machine (the
# scripted rubric's reference pictures record which; benchmark/README.md).  A package this
# distribution does not have is skipped.
FONT_DEBS=(
  fontconfig fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 fonts-noto-core
  fonts-freefont-ttf fonts-urw-base35
)
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
missing=()
for p in "${DEBS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
fonts=()
for p in "${FONT_DEBS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || fonts+=("$p")
done
if [ "${#missing[@]}" -gt 0 ] || [ "${#fonts[@]}" -gt 0 ]; then
  $SUDO apt-get update -qq
  for p in ${fonts[@]+"${fonts[@]}"}; do
    candidate=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
    if [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then missing+=("$p");
    else echo "note: font package $p is not available here; skipped"; fi
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PY="${PYTHON:-python3}"
"$PY" -c 'import sys; assert sys.version_info >= (3, 11), "PlayCoder needs Python 3.11 or newer"'
"$PY" -c 'import tkinter' 2>/dev/null || echo "note: this Python has no tkinter; the Tk sample targets will not run"
"$PY" -m pip install --quiet --disable-pip-version-check -e ".[test,ray,corpus]"  # ray: the Ray executor's tests; corpus: benchmark/corpus
echo "setup done: run 'playcoder' (workbench, or a headless demo without a display) or 'python3 -m pytest'"
