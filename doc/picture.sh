#!/usr/bin/env bash
# doc/picture.sh — the README's picture of ag at work (make picture), made
# again whenever the look changes. A private tmux server runs agents in
# several states (contrib/demo/scenario.sh, the scene make demo runs),
# driven by hook payloads fed through ag-hook from their panes (no real
# agent runs), watched by the real login pipeline
# (contrib/ag-pipeline --backend tmux --tmux-popup): the status line, the
# window list, the pane borders, the prompts, the popup notification and
# the table at the bottom are all ag's own output. The client's screen is
# captured from a pane of a second tmux server (capture-pane -e), made HTML
# by aha and a PNG by headless chromium.
#
#   doc/picture.sh [BIN [OUT.png]]     BIN: the built programs (default bin)
#
# PICTURE_SCREEN=FILE keeps the captured screen (text with escape codes);
# KEEP=1 waits for Enter before it takes everything down.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "${1:-$here/bin}" && pwd)
out=${2:-$here/doc/ag.png}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$here"
for p in tmux aha chromium go; do
	command -v "$p" >/dev/null || { echo "picture.sh: needs $p (apt-get install tmux aha chromium)" >&2; exit 2; }
done
[ -x "$bin/ag-fold" ] || { echo "picture.sh: no ag programs in $bin (run make)" >&2; exit 2; }

cols=140 rows=40
w=$(mktemp -d "${TMPDIR:-/tmp}/ag-picture.XXXXXX")
repo=$PWD
pipeline=
cleanup() {
	set +e
	[ -n "$pipeline" ] && kill "$pipeline" && wait "$pipeline"
	tmux -S "$w/outer.sock" kill-server
	TMUX_TMPDIR=$w tmux kill-server
	rm -rf "$w"
} 2>/dev/null
trap cleanup EXIT

# The page maker, built while Go still sees the user's caches.
go build -o "$w/page" ./t/internal/picture

# Everything ag reads and writes, tmux's default server among them, lives
# in $w: ag-keys and the plugin find that server as they would a user's.
export TMUX_TMPDIR=$w
. "$repo/contrib/demo/scenario.sh"

tmux -u -f "$w/tmux.conf" new-session -d -s work -n agents -x "$cols" -y "$((rows - 1))" "sleep 3600"
for v in PAYLOADS BASHRC; do tmux set-environment -g "$v" "${!v}"; done

# The pipeline, as the login unit runs it.
(cd "$HOME" && exec "$repo/contrib/ag-pipeline" --backend tmux --tmux-popup 2>"$w/pipeline.err") &
pipeline=$!

# The client, in a pane of a second server: what it draws is the picture.
tmux -u -S "$w/outer.sock" -f /dev/null new-session -d -x "$cols" -y "$rows" "env -u TMUX tmux -u attach -t work"
tmux -S "$w/outer.sock" set -g status off

# Window 1: an agent that has finished (a message on the status line,
# gone before the capture). Window 0: three agents on top, a shell whose prompt shows
# every agent (AG_PROMPT_ALL), the table at the bottom; the first wait
# opens a popup, the second (the client already shows one) a message on
# the status line, gone before the capture.
T() { tmux -u "$@"; }
T new-window -d -t work:1 -n infra -c "$HOME/src/infra" "$w/agent.sh claude:infra-start.json claude:infra-prompt.json statusline:infra-meter.json claude:infra-stop.json"
T respawn-pane -k -t work:0.0 -c "$HOME/src/api" "$w/agent.sh"
T split-window -h -t work:0.0 -l 66% -c "$HOME/src/web" "$w/agent.sh codex:web-start.json codex:web-prompt.json codex:web-tool.json"
T split-window -h -t work:0.1 -l 50% -c "$HOME/src/docs" "$w/agent.sh"
T split-window -v -f -t work:0 -l 28 -c "$HOME/src" "env AG_PROMPT_ALL=1 bash --rcfile $BASHRC -i"
T split-window -v -t work:0.3 -l 8 -c "$HOME/src" "$w/table.sh"
# The user is in the shell: ag-notify does not tell you about the pane
# you are looking at.
T select-pane -t work:0.3
sleep 3
T respawn-pane -k -t work:0.0 "$w/agent.sh claude:api-start.json claude:api-prompt.json statusline:api-meter.json claude:api-perm.json"
sleep 2
T respawn-pane -k -t work:0.2 "$w/agent.sh claude:docs-start.json claude:docs-prompt.json statusline:docs-meter.json claude:docs-ask.json"
sleep 2
T send-keys -t work:0.3 clear Enter
# The message goes by (8 s); the popup stays.
sleep 8
tmux -S "$w/outer.sock" capture-pane -e -p -t 0 >"$w/screen.ans"
[ -n "${PICTURE_SCREEN:-}" ] && cp "$w/screen.ans" "$PICTURE_SCREEN"

[ -n "${KEEP:-}" ] && { echo "picture.sh: kept $w; press Enter to end" >&2; read -r _; }
aha -s -n <"$w/screen.ans" | "$w/page" "$cols" "$rows" "tmux — ag at work" >"$w/page.html"
# Window size: the page's own (140 cells of DejaVu Sans Mono at 15 px and
# 40 lines of 1.3 em, padding, title bar, margins).
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$w/chromium" --hide-scrollbars --force-device-scale-factor=2 \
	--window-size=$((cols * 903 / 100 + 28 + 48 + 2)),$((rows * 195 / 10 + 22 + 30 + 48 + 2)) \
	--screenshot="$w/out.png" "file://$w/page.html" 2>"$w/chromium.err" || { cat "$w/chromium.err" >&2; exit 1; }
cp "$w/out.png" "$out"
echo "picture.sh: $out"
