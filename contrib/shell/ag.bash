# ag prompt segment for bash: source this from ~/.bashrc (make install puts
# it in ~/.local/share/ag/shell/ag.bash).
# Shows the agent in this tmux pane ("claude ⏳ Bash") before the prompt;
# set AG_PROMPT_ALL=1 to show every agent's state instead ("⏳2 ✓1").
__ag_segment() {
	local s
	if [ -n "$AG_PROMPT_ALL" ]; then
		s=$(ag-fold --snapshot --format '{{.Summary}}' </dev/null 2>/dev/null)
	elif [ -n "$TMUX_PANE" ]; then
		s=$(ag-detect --pane 2>/dev/null)
	fi
	[ -n "$s" ] && printf '[%s] ' "$s"
}
# \$(...) in PS1 runs at each prompt (promptvars is on by default).
case $PS1 in
*__ag_segment*) ;;
*) PS1='$(__ag_segment)'$PS1 ;;
esac
