#!/usr/bin/env sh
# ag.tmux — agent state in tmux: an icon per window and pane, a count of
# sessions waiting for you in status-right, and key bindings to jump to the
# next waiting pane, to pick one from a menu, and to approve or deny in the
# current one.
#
# It starts nothing heavy: the options the formats read are pushed by the
# login pipeline's `ag-fold --tmux` whenever a state changes, so tmux never
# polls a script. At load it runs `ag-fold --snapshot --tmux` once in the
# background, so a tmux started after the pipeline shows the current state.
#
# Options (set before the plugin loads; see contrib/tmux/README.md):
#   @ag_bin_dir       directory of the ag binaries (default: PREFIX/bin when
#                     run from make install's PREFIX/share/ag/tmux, else $PATH)
#   @ag_auto          on: add the segments to status-right, the window
#                     status formats and pane-border-format; off: only
#                     replace the #{ag_*} placeholders you put there
#   @ag_pane_border   on: also turn pane-border-status on (default off)
#   @ag_key_next      key (after the prefix) to jump to the next waiting
#                     pane, default A; "off" for none
#   @ag_key_choose    default S: a menu of every agent session, most
#                     urgent first; picking one focuses its pane
#   @ag_key_approve   default Y: approve the wait in the current pane
#   @ag_key_deny      default N: deny it
#
# Placeholders, replaced in status-left, status-right, window-status-format,
# window-status-current-format and pane-border-format:
#   #{ag_waiting}  "⏳2 " when two sessions wait, else nothing
#   #{ag_summary}  "⏳2 ✓1 " (every status with a count), else nothing
#   #{ag_window}   " ⏳" — the worst state of the window's agent panes
#   #{ag_pane}     " claude ⏳ Bash" — the pane's agent, status and tool

# -u: the formats hold UTF-8 icons, and a locale that is not UTF-8 would
# make tmux store them as "__".
tmux() { command tmux -u "$@"; }

get() { # get NAME DEFAULT: a global option's value, or DEFAULT when unset
	v=$(tmux show-option -gqv "$1")
	if [ -n "$v" ]; then printf '%s' "$v"; else printf '%s' "$2"; fi
}

# The formats. In tmux "0" and "" are false, so a count of 0 shows nothing.
seg_waiting='#{?@ag_waiting,⏳#{@ag_waiting} ,}'
seg_summary='#{?@ag_summary,#{@ag_summary} ,}'
seg_window='#{?@ag_window_icon, #{@ag_window_icon},}'
seg_pane='#{?@ag_agent, #{@ag_agent}#{?@ag_icon, #{@ag_icon},}#{?@ag_tool, #{@ag_tool},},}'

interpolate() { # interpolate OPTION [AUTO-SEGMENT AUTO-WHERE]
	name=$1
	v=$(tmux show-option -gqv "$name")
	case $v in
	*'#{ag_'*)
		v=$(printf '%s' "$v" | sed \
			-e "s/#{ag_waiting}/$(escape "$seg_waiting")/g" \
			-e "s/#{ag_summary}/$(escape "$seg_summary")/g" \
			-e "s/#{ag_window}/$(escape "$seg_window")/g" \
			-e "s/#{ag_pane}/$(escape "$seg_pane")/g")
		tmux set-option -g "$name" "$v"
		return
		;;
	*'@ag_'*) return ;; # already has ag's segments (the plugin ran before)
	esac
	[ "$auto" = on ] && [ -n "${2:-}" ] || return 0
	case $3 in
	front) tmux set-option -g "$name" "$2$v" ;;
	*) tmux set-option -g "$name" "$v$2" ;;
	esac
}

escape() { # escape TEXT for the replacement side of a sed s///
	printf '%s' "$1" | sed -e 's/[\/&]/\\&/g'
}

# shq quotes TEXT for sh, and doubles '#' so tmux's format expansion of a
# run-shell command leaves it alone.
shq() {
	printf "'%s'" "$(printf '%s' "$1" | sed -e "s/'/'\\\\''/g" -e 's/#/##/g')"
}

auto=$(get @ag_auto on)
bin_dir=$(get @ag_bin_dir "")
# Installed by make install (PREFIX/share/ag/tmux), the programs are in
# PREFIX/bin, whatever the tmux server's PATH.
case $bin_dir:$0 in
:*/share/ag/tmux/ag.tmux)
	d=${0%/share/ag/tmux/ag.tmux}/bin
	[ -x "$d/ag-keys" ] && bin_dir=$d
	;;
esac
bin=""
[ -n "$bin_dir" ] && bin="$(shq "${bin_dir%/}")/"

interpolate status-right "$seg_waiting" front
interpolate status-left
interpolate window-status-format "$seg_window" back
interpolate window-status-current-format "$seg_window" back
interpolate pane-border-format "$seg_pane" back
if [ "$(get @ag_pane_border off)" = on ]; then
	tmux set-option -g pane-border-status top
fi

# Key bindings, after the prefix. run-shell -b: tmux never waits on them.
# ag-keys refuses (exit 1) unless the pane's agent waits for exactly that
# answer, and with --client shows the reason it gave on this client; only
# an ag-keys that did not run at all (exit 127) is said here.
bind() { # bind OPTION DEFAULT COMMAND
	key=$(get "$1" "$2")
	[ "$key" = off ] || [ -z "$key" ] && return 0
	tmux bind-key "$key" run-shell -b \
		"$3 --client '#{client_name}' >/dev/null 2>&1 || [ \$? -le 2 ] || tmux display-message -c '#{client_name}' 'ag: ag-keys did not run (is @ag_bin_dir right?)'"
}
bind @ag_key_next A "${bin}ag-keys focus --next-waiting --pane '#{pane_id}'"
bind @ag_key_choose S "${bin}ag-keys focus --choose"
bind @ag_key_approve Y "${bin}ag-keys approve --pane '#{pane_id}'"
bind @ag_key_deny N "${bin}ag-keys deny --pane '#{pane_id}'"

# Show what the pipeline knows now (a tmux started after it).
tmux run-shell -b "${bin}ag-fold --snapshot --tmux </dev/null >/dev/null 2>&1 || true"
