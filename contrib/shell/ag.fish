# ag prompt segment for fish: source this from ~/.config/fish/config.fish
# (make install puts it in ~/.local/share/ag/shell/ag.fish).
# Shows the agent in this tmux pane ("claude ⏳ Bash") at the right of the
# prompt; set -U AG_PROMPT_ALL 1 to show every agent's state ("⏳2 ✓1").
function __ag_segment
    # fish reports a command it cannot find whatever 2> says: where ag is
    # not installed (not on PATH), say nothing.
    if set -q AG_PROMPT_ALL
        command -q ag-fold; and ag-fold --snapshot --format '{{.Summary}}' </dev/null 2>/dev/null
    else if set -q TMUX_PANE
        command -q ag-detect; and ag-detect --pane 2>/dev/null
    end
end

# Keep an existing right prompt and put the segment before it (sourced
# again, the one kept stays: the current one is ag's).
if functions -q fish_right_prompt; and not functions -q __ag_old_right_prompt
    functions -c fish_right_prompt __ag_old_right_prompt
end
function fish_right_prompt
    set -l s (__ag_segment)
    test -n "$s"; and printf '%s ' $s
    functions -q __ag_old_right_prompt; and __ag_old_right_prompt
end
