#!/usr/bin/env bash
# Build the self-contained bundle (installer/build.sh), unpack the tar.gz into a temporary folder and use it as a
# machine without Python would: in a private mount namespace where every python executable is masked (bound to
# /dev/null) and the Python installations are hidden (empty tmpfs over /usr/lib/python3*, /usr/local/lib/python3*
# and the prefix of the Python that built the bundle), with PATH=/usr/bin:/bin and nothing else in the
# environment, from a folder that is neither the checkout nor the bundle:
#   1. `playcoder demo` plays the bundled game and its bug variant (the targets run on the bundle's own
#      interpreter) and must write the trajectory (playcoder.db) and two HTML reports;
#   2. `playcoder -m app runs` (how the workbench starts its engine children) must list both runs;
#   3. `playcoder gui` on a private Xvfb must show its main window, then end cleanly on SIGTERM.
# Needs root or unprivileged user namespaces (unshare), Xvfb and xwininfo (installer/setup.sh installs them).
# Prints the build time, the tar.gz size and the demo time; exits non-zero with one clear line on failure.
# Environment: PLAYCODER_BUNDLE (an already built tar.gz: skip the build), KEEP=1 (keep the temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."

GUI_WAIT_S=90       # how long the workbench may take to show its window (a cold start takes ~5 s on 2 cores)
GUI_QUIT_WAIT_S=20  # and to quit after SIGTERM

fail() { echo "check_bundle: FAILED: $*" >&2; exit 1; }
command -v unshare >/dev/null || fail "unshare (util-linux) is not installed."
command -v Xvfb >/dev/null || fail "Xvfb is not installed; run installer/setup.sh."
command -v xwininfo >/dev/null || fail "xwininfo (x11-utils) is not installed; run installer/setup.sh."

tmp=$(mktemp -d "${TMPDIR:-/tmp}/playcoder-bundle-check.XXXXXX")
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "check_bundle: kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

build_s=0
if [ -n "${PLAYCODER_BUNDLE:-}" ]; then
  tarball=$PLAYCODER_BUNDLE
else
  started=$(date +%s)
  bash installer/build.sh | tee "$tmp/build.log" || fail "installer/build.sh failed (its messages are above)."
  build_s=$(( $(date +%s) - started ))
  tarball=$(tail -n 1 "$tmp/build.log")
fi
[ -f "$tarball" ] || fail "no bundle at $tarball."
size_mb=$(( $(stat -c %s "$tarball") / 1024 / 1024 ))

mkdir -p "$tmp/unpacked" "$tmp/elsewhere" "$tmp/home"
tar -C "$tmp/unpacked" -xzf "$tarball" || fail "could not unpack $tarball."
bundle=$(find "$tmp/unpacked" -mindepth 2 -maxdepth 2 -name playcoder -type f -perm -u+x | head -n 1)
[ -n "$bundle" ] || fail "$tarball holds no executable playcoder."
for f in playcoder.desktop playcoder.svg README.txt LICENSE; do
  [ -f "$(dirname "$bundle")/$f" ] || fail "$tarball lacks $f."
done

# Python installations to hide: the system's, and the one that built the bundle (wherever it lives).
hide_dirs=$(ls -d /usr/lib/python3* /usr/local/lib/python3* 2>/dev/null || true)
for prefix in $("${PYTHON:-python3}" -c 'import sys; print(sys.prefix, sys.base_prefix)' 2>/dev/null || true); do
  case "$prefix" in /usr|/usr/local|/) ;; *) hide_dirs="$hide_dirs $prefix" ;; esac
done

cat > "$tmp/no_python.sh" <<'EOS'
# Runs as root of a private mount namespace: hide every Python, then run the checks with a bare environment.
set -eu
tmp=$1; bundle=$2; shift 2
for f in /usr/bin/python* /usr/local/bin/python*; do
  [ -e "$f" ] && mount --bind /dev/null "$f"
done
for d in "$@"; do
  [ -d "$d" ] && mount -t tmpfs -o size=4k,mode=0755 none "$d"
done
exec env -i PATH=/usr/bin:/bin HOME="$tmp/home" LANG=C.UTF-8 sh "$tmp/checks.sh" "$tmp" "$bundle"
EOS

cat > "$tmp/checks.sh" <<'EOS'
# The bundle on a machine without Python: one line on stdout per result, "FAIL reason" ends the checks.
tmp=$1; bundle=$2
say_fail() { echo "FAIL $*"; exit 1; }
for py in python3 python python3.11 python3.12 python3.13; do
  found=$(command -v "$py") && say_fail "a Python is still on PATH ($found)"
done
cd "$tmp/elsewhere" || say_fail "cannot enter $tmp/elsewhere"

started=$(date +%s%N)
code=0
"$bundle" demo --out "$tmp/elsewhere/demo" > "$tmp/demo.log" 2>&1 || code=$?
[ $code = 0 ] || { tail -n 20 "$tmp/demo.log" >&2; say_fail "the bundle's demo exited with code $code (its output is above)"; }
echo "DEMO_MS $(( ($(date +%s%N) - started) / 1000000 ))"
[ -s demo/playcoder.db ] || say_fail "the demo wrote no trajectory (demo/playcoder.db)"
reports=$(ls demo/run-*.html 2>/dev/null | wc -l)
[ "$reports" -ge 2 ] || say_fail "the demo wrote $reports HTML reports, not 2"
grep -q "^run 2: fail " "$tmp/demo.log" || { cat "$tmp/demo.log" >&2; say_fail "the demo did not find the bug variant's crash"; }
runs=$("$bundle" -m app runs --db demo/playcoder.db 2>&1 | grep -c "completed") || true
[ "$runs" = 2 ] || say_fail "\`playcoder -m app runs\` listed $runs completed runs, not 2"
echo "REPORTS $reports"

Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp 5>"$tmp/displayfd" 2>"$tmp/xvfb.log" &
xvfb=$!
i=0
until [ -s "$tmp/displayfd" ]; do
  i=$((i + 1)); [ $i -le 100 ] || { kill $xvfb; say_fail "Xvfb did not start"; }; sleep 0.1
done
display=":$(head -n 1 "$tmp/displayfd")"
DISPLAY=$display QT_QPA_PLATFORM=xcb "$bundle" gui --db demo/playcoder.db > "$tmp/gui.log" 2>&1 &
gui=$!
waited=0
while ! xwininfo -display "$display" -root -tree 2>/dev/null | grep -q '"PlayCoder Workbench'; do
  if ! kill -0 $gui 2>/dev/null; then
    wait $gui; code=$?; kill $xvfb; tail -n 20 "$tmp/gui.log" >&2
    say_fail "the bundle's workbench exited with code $code before showing its window (its output is above)"
  fi
  waited=$((waited + 1))
  [ $waited -le $((GUI_WAIT_S * 2)) ] || { kill $gui $xvfb; say_fail "the bundle's workbench showed no window in ${GUI_WAIT_S} s"; }
  sleep 0.5
done
echo "GUI_WINDOW_MS $((waited * 500))"
kill -TERM $gui
waited=0
while kill -0 $gui 2>/dev/null && [ $waited -le $((GUI_QUIT_WAIT_S * 10)) ]; do waited=$((waited + 1)); sleep 0.1; done
if kill -0 $gui 2>/dev/null; then kill -KILL $gui; kill $xvfb; say_fail "the workbench did not quit within ${GUI_QUIT_WAIT_S} s of SIGTERM"; fi
wait $gui; code=$?
kill $xvfb; wait $xvfb 2>/dev/null
[ $code = 143 ] || [ $code = 0 ] || { tail -n 20 "$tmp/gui.log" >&2; say_fail "the workbench ended with code $code on SIGTERM, not 143"; }
echo "GUI_OK"
EOS
sed -i "1a GUI_WAIT_S=$GUI_WAIT_S; GUI_QUIT_WAIT_S=$GUI_QUIT_WAIT_S" "$tmp/checks.sh"

if [ "$(id -u)" = 0 ]; then ns=(unshare --mount --propagation private); else ns=(unshare --user --map-root-user --mount); fi
# shellcheck disable=SC2086  # hide_dirs: one word per folder
"${ns[@]}" sh "$tmp/no_python.sh" "$tmp" "$bundle" $hide_dirs > "$tmp/results" \
  || { grep -q '^FAIL ' "$tmp/results" || fail "could not make a mount namespace without Python (unshare: run as root or allow user namespaces)."; }
reason=$(sed -n 's/^FAIL //p' "$tmp/results")
[ -z "$reason" ] || fail "$reason."
grep -q '^GUI_OK' "$tmp/results" || fail "the checks stopped early: $(tr '\n' ' ' < "$tmp/results")"
demo_ms=$(sed -n 's/^DEMO_MS //p' "$tmp/results")
echo "check_bundle: ok — $(basename "$tarball"): ${size_mb} MB$([ "$build_s" = 0 ] || echo ", built in ${build_s} s");" \
     "demo from another folder with no Python on PATH in $((demo_ms / 1000)).$(( (demo_ms % 1000) / 100 )) s" \
     "(trajectory + $(sed -n 's/^REPORTS //p' "$tmp/results") reports); the workbench showed its window in" \
     "$(( $(sed -n 's/^GUI_WINDOW_MS //p' "$tmp/results") / 1000 )) s and quit on SIGTERM."
