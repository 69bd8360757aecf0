# ag prompt segment for zsh: source this from ~/.zshrc (make install puts it
# in ~/.local/share/ag/shell/ag.zsh).
# Shows the agent in this tmux pane ("claude ⏳ Bash") at the right of the
# prompt; set AG_PROMPT_ALL=1 to show every agent's state ("⏳2 ✓1").
__ag_precmd() {
	local s
	if [[ -n $AG_PROMPT_ALL ]]; then
		s=$(ag-fold --snapshot --format '{{.Summary}}' </dev/null 2>/dev/null)
	elif [[ -n $TMUX_PANE ]]; then
		s=$(ag-detect --pane 2>/dev/null)
	fi
	# %% keeps a literal % out of prompt expansion.
	AG_SEGMENT=${s//\%/%%}
}
autoload -Uz add-zsh-hook
add-zsh-hook precmd __ag_precmd
setopt prompt_subst
[[ $RPROMPT == *AG_SEGMENT* ]] || RPROMPT='${AG_SEGMENT}'${RPROMPT:+" $RPROMPT"}
