#!/bin/sh
# Part of the PlayCoder Workbench bundle (GPL-3.0-or-later).  Run it from the unpacked bundle, as the user who
# will use it: the menu entry and the icon go to ~/.local/share, and `playcoder` to ~/.local/bin (a link to this
# folder's executable: keep the folder where it is, or run this again after moving it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
mkdir -p "$data/applications" "$data/icons/hicolor/scalable/apps" "$HOME/.local/bin"
cp "$here/playcoder.svg" "$data/icons/hicolor/scalable/apps/playcoder.svg"
sed "s|^Exec=playcoder |Exec=\"$here/playcoder\" |" "$here/playcoder.desktop" > "$data/applications/playcoder.desktop"
ln -sf "$here/playcoder" "$HOME/.local/bin/playcoder"
echo "installed: $data/applications/playcoder.desktop and $HOME/.local/bin/playcoder -> $here/playcoder"
