#!/bin/sh
# Part of the PlayCoder Workbench bundle (GPL-3.0-or-later).  Run it from the unpacked bundle, as the user who
# will use it: the menu entry and the icon go to ~/.local/share, and `playcoder` to ~/.local/bin (a link to this
# folder's executable: keep the folder where it is, or run this again after moving it).
# Any folder name works (`&`, `|`, quotes, `$`, `%`): the path is escaped as the Desktop Entry spec asks, the entry
# is written beside its place and moved in only when whole, and a `playcoder` in ~/.local/bin that is not a link
# to a bundle of ours is left alone.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
bin="$HOME/.local/bin/playcoder"
mkdir -p "$data/applications" "$data/icons/hicolor/scalable/apps" "$HOME/.local/bin"
cp "$here/playcoder.svg" "$data/icons/hicolor/scalable/apps/playcoder.svg"

# Exec= quoting: inside "...", \ " ` $ take a backslash, and the string level doubles every backslash; % is %%.
exec_path=$(printf '%s\n' "$here/playcoder" | sed -e 's/\\/\\\\\\\\/g' -e 's/["`$]/\\\\&/g' -e 's/%/%%/g')
entry="$data/applications/playcoder.desktop"
tmp="$entry.tmp.$$"
trap 'rm -f "$tmp"' EXIT
PLAYCODER_EXEC=$exec_path awk '/^Exec=playcoder / { sub(/^Exec=playcoder /, ""); print "Exec=\"" ENVIRON["PLAYCODER_EXEC"] "\" " $0; next } { print }' \
    "$here/playcoder.desktop" > "$tmp"
mv -f "$tmp" "$entry"
trap - EXIT

ours() {  # a link we made before: to the playcoder of a folder holding this script, or of one since moved away
    [ -L "$bin" ] || return 1
    dest=$(readlink "$bin")
    [ "$(basename "$dest")" = playcoder ] || return 1
    [ -f "$(dirname "$dest")/install-desktop-entry.sh" ] || [ ! -e "$bin" ]
}
if [ -e "$bin" ] || [ -L "$bin" ]; then
    if ! ours; then
        echo "installed: $entry (kept your own $bin: the menu entry runs $here/playcoder; remove $bin and run this again to link it)"
        exit 0
    fi
fi
ln -sfn "$here/playcoder" "$bin"
echo "installed: $entry and $bin -> $here/playcoder"
