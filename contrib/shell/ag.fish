# ag prompt segment for fish: copy or link to ~/.config/fish/conf.d/ag.fish
# (make install puts it in ~/.local/share/ag/shell/ag.fish).
# Shows the agent in this tmux pane ("claude ⏳ Bash") at the right of the
# prompt; set -U AG_PROMPT_ALL 1 to show every agent's state ("⏳2 ✓1").
function __ag_segment
    if set -q AG_PROMPT_ALL
        ag-fold --snapshot --format '{{.Summary}}' </dev/null 2>/dev/null
    else if set -q TMUX_PANE
        ag-detect --pane 2>/dev/null
    end
end

# Keep an existing right prompt and put the segment before it.
if functions -q fish_right_prompt
    functions -c fish_right_prompt __ag_old_right_prompt
end
function fish_right_prompt
    set -l s (__ag_segment)
    test -n "$s"; and printf '%s ' $s
    functions -q __ag_old_right_prompt; and __ag_old_right_prompt
end
