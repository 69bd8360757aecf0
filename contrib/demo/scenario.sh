# contrib/demo/scenario.sh — the scene that make demo runs and make picture
# photographs, sourced by contrib/demo/ag-demo and doc/picture.sh with $w
# (a private folder), $repo (the checkout) and $bin (the built programs)
# set. Everything ag reads and writes lives in $w; no agent CLI runs: four
# agents in a project each (api, web, docs, infra), driven by the hook
# payloads Claude Code and Codex send, written here into $PAYLOADS.
#
# It exports the environment every pane and the pipeline share, and
# writes $w/agent.sh (a pane that feeds payloads through ag-hook, then
# runs a shell with ag's prompt segment), $w/table.sh (ag-fold --snapshot
# --table every second) and $w/tmux.conf (ag's tmux plugin, borders on,
# and $TMUX_EXTRA's lines before it).

export HOME=$w/home AG_DIR=$w/ag XDG_RUNTIME_DIR=$w/run LANG=C.UTF-8 TERM=xterm-256color
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
rm_cmd='rm -rf build/ && make release'
claude api-start.json "$api" api SessionStart '"source":"startup","model":"claude-opus-4-8"'
claude api-prompt.json "$api" api UserPromptSubmit '"prompt":"the release build fails: fix it"'
claude api-pre.json "$api" api PreToolUse '"tool_name":"Bash","tool_use_id":"toolu_demo","tool_input":{"command":"'"$rm_cmd"'"}'
claude api-perm.json "$api" api PermissionRequest '"tool_name":"Bash","tool_input":{"command":"'"$rm_cmd"'"}'
claude api-post.json "$api" api PostToolUse '"tool_name":"Bash","tool_use_id":"toolu_demo","tool_input":{"command":"'"$rm_cmd"'"},"tool_response":{"stdout":"ok"}'
claude api-stop.json "$api" api Stop '"stop_hook_active":false'
meter api-meter.json "$api" api 0.42 12
docs_q='Keep the old anchors as redirects?'
claude docs-start.json "$docs" docs SessionStart '"source":"startup"'
claude docs-prompt.json "$docs" docs UserPromptSubmit '"prompt":"move the install steps into a guide"'
claude docs-pre.json "$docs" docs PreToolUse '"tool_name":"AskUserQuestion","tool_use_id":"toolu_demo","tool_input":{"questions":[{"question":"'"$docs_q"'","options":[{"label":"Yes"},{"label":"No"}]}]}'
claude docs-ask.json "$docs" docs PermissionRequest '"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"'"$docs_q"'","options":[{"label":"Yes"},{"label":"No"}]}]}'
claude docs-post.json "$docs" docs PostToolUse '"tool_name":"AskUserQuestion","tool_use_id":"toolu_demo","tool_input":{},"tool_response":{}'
claude docs-stop.json "$docs" docs Stop '"stop_hook_active":false'
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
${TMUX_EXTRA:-}
run-shell $repo/contrib/tmux/ag.tmux
CONF
