#!/usr/bin/env bash
# doc/picture.sh — the README's picture of ag at work (make picture), made
# again whenever the look changes. A private tmux server runs agents in
# several states, driven by hook payloads fed through ag-hook from their
# panes (no real agent runs), watched by the real login pipeline
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
export HOME=$w/home AG_DIR=$w/ag XDG_RUNTIME_DIR=$w/run TMUX_TMPDIR=$w LANG=C.UTF-8 TERM=xterm-256color
export PATH=$bin:$PATH PAYLOADS=$w/payloads BASHRC=$w/bashrc
unset TMUX TMUX_PANE NO_COLOR AG_PROMPT_ALL
mkdir -p "$HOME" "$AG_DIR" "$XDG_RUNTIME_DIR" "$PAYLOADS" && chmod 700 "$XDG_RUNTIME_DIR"
for d in api web docs infra; do mkdir -p "$HOME/src/$d"; done

# The shell in every pane: bash with ag's prompt segment.
cat >"$BASHRC" <<RC
PS1='\[\e[38;5;110m\]\W\[\e[0m\] \$ '
. $repo/contrib/shell/ag.bash
RC

# agent.sh PAYLOAD...: what an agent's hooks do, from its pane: each
# payload through ag-hook ("ag-hook claude < FILE"; "statusline" is Claude's
# status line command), then the pane's shell, whose prompt shows ag's
# segment.
cat >"$w/agent.sh" <<'SH'
#!/bin/sh
printf '\033[38;5;242m# hook payloads fed to ag-hook:\033[0m\n'
for p; do
	printf '\033[38;5;242m$ ag-hook %s < %s\033[0m\n' "${p%%:*}" "${p#*:}"
	ag-hook ${p%%:*} <"$PAYLOADS/${p#*:}" >/dev/null
	sleep 0.2
done
echo
exec bash --rcfile "$BASHRC" -i
SH
# table.sh: ag-fold --snapshot --table, every second.
cat >"$w/table.sh" <<'SH'
#!/bin/sh
# (To the pane itself, a terminal: the table is coloured.)
while :; do
	printf '\033[H\033[2J\033[38;5;110msrc\033[0m $ ag-fold --snapshot --table\n'
	ag-fold --snapshot --table
	sleep 1
done
SH
chmod +x "$w/agent.sh" "$w/table.sh"

# Hook payloads, as Claude Code and Codex send them, and the line of each
# Claude transcript that names the git branch.
uuid() { printf '%08x-0000-4000-8000-%012x' "$1" "$1"; }
claude() { # claude FILE SESSION DIR EVENT JSON-MEMBERS
	printf '{"session_id":"%s","transcript_path":"%s/.claude/projects/-src-%s/%s.jsonl","cwd":"%s/src/%s","hook_event_name":"%s"%s}\n' \
		"$2" "$HOME" "$3" "$2" "$HOME" "$3" "$4" "${5:+,$5}" >"$PAYLOADS/$1"
}
transcript() { # transcript SESSION DIR BRANCH PROMPT
	mkdir -p "$HOME/.claude/projects/-src-$2"
	printf '{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"%s/src/%s","sessionId":"%s","version":"2.1.197","gitBranch":"%s","type":"user","message":{"role":"user","content":"%s"},"uuid":"%s","timestamp":"%s"}\n' \
		"$HOME" "$2" "$1" "$3" "$4" "$(uuid 9)" "$(date -u +%Y-%m-%dT%H:%M:%S.000Z)" >"$HOME/.claude/projects/-src-$2/$1.jsonl"
}
meter() { # meter FILE SESSION DIR COST USED-PCT: Claude's status line (context left, cost)
	printf '{"hook_event_name":"Status","session_id":"%s","transcript_path":"%s/.claude/projects/-src-%s/%s.jsonl","cwd":"%s/src/%s","model":{"id":"claude-opus-4-8","display_name":"Opus 4.8"},"version":"2.1.197","cost":{"total_cost_usd":%s},"context_window":{"total_input_tokens":1,"total_output_tokens":1,"context_window_size":200000,"current_usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"used_percentage":%s,"remaining_percentage":%s}}\n' \
		"$2" "$HOME" "$3" "$2" "$HOME" "$3" "$4" "$5" "$((100 - $5))" >"$PAYLOADS/$1"
}
codex() { # codex FILE EVENT JSON-MEMBERS
	printf '{"session_id":"01a22a3c-0000-7000-8000-00000000c0de","turn_id":"t1","transcript_path":null,"cwd":"%s/src/web","hook_event_name":"%s","model":"gpt-5.5"%s}\n' \
		"$HOME" "$2" "${3:+,$3}" >"$PAYLOADS/$1"
}
api=$(uuid 1) docs=$(uuid 2) infra=$(uuid 3)
claude api-start.json "$api" api SessionStart '"source":"startup","model":"claude-opus-4-8"'
claude api-prompt.json "$api" api UserPromptSubmit '"prompt":"the release build fails: fix it"'
claude api-perm.json "$api" api PermissionRequest '"tool_name":"Bash","tool_input":{"command":"rm -rf build/ && make release"}'
meter api-meter.json "$api" api 0.42 12
claude docs-start.json "$docs" docs SessionStart '"source":"startup"'
claude docs-prompt.json "$docs" docs UserPromptSubmit '"prompt":"move the install steps into a guide"'
claude docs-ask.json "$docs" docs PermissionRequest '"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Keep the old anchors as redirects?","options":[{"label":"Yes"},{"label":"No"}]}]}'
meter docs-meter.json "$docs" docs 1.87 81
claude infra-start.json "$infra" infra SessionStart '"source":"startup"'
claude infra-prompt.json "$infra" infra UserPromptSubmit '"prompt":"upgrade the terraform providers"'
claude infra-stop.json "$infra" infra Stop '"stop_hook_active":false'
meter infra-meter.json "$infra" infra 3.05 38
codex web-start.json SessionStart '"source":"startup"'
codex web-prompt.json UserPromptSubmit '"prompt":"make the checkout tests pass"'
codex web-tool.json PreToolUse '"tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"npm test -- --watch=false"}'
transcript "$api" api fix-release "the release build fails: fix it"
transcript "$docs" docs main "move the install steps into a guide"
transcript "$infra" infra main "upgrade the terraform providers"

# The tmux the user looks at, with ag's plugin (borders on).
cat >"$w/tmux.conf" <<CONF
set -g default-terminal tmux-256color
set -g status-style bg=colour235,fg=colour250
set -g status-left '#[fg=colour235,bg=colour110,bold] #S #[default] '
set -g status-left-length 20
set -g status-right ' '
set -g window-status-current-style fg=colour255,bold
set -g pane-border-style fg=colour244
set -g pane-active-border-style fg=colour110
set -g pane-border-format ' #{pane_index}'
set -g popup-border-style fg=colour220
set -g @ag_pane_border on
run-shell $repo/contrib/tmux/ag.tmux
CONF
tmux -u -f "$w/tmux.conf" new-session -d -s work -n agents -x "$cols" -y "$((rows - 1))" "sleep 3600"
for v in PAYLOADS BASHRC; do tmux set-environment -g "$v" "${!v}"; done

# The pipeline, as the login unit runs it.
(cd "$HOME" && exec "$repo/contrib/ag-pipeline" --backend tmux --tmux-popup 2>"$w/pipeline.err") &
pipeline=$!

# The client, in a pane of a second server: what it draws is the picture.
tmux -u -S "$w/outer.sock" -f /dev/null new-session -d -x "$cols" -y "$rows" "env -u TMUX tmux -u attach -t work"
tmux -S "$w/outer.sock" set -g status off

# Window 1: an agent that has finished; its popup is dismissed (Enter), as
# a user would. Window 0: three agents on top, a shell whose prompt shows
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
sleep 2.5
tmux -S "$w/outer.sock" send-keys -t 0 Enter
sleep 0.5
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
