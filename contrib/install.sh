#!/bin/sh
# contrib/install.sh — what `make install` and `make uninstall` run.
#
#   sh contrib/install.sh install BUILD   # BUILD: the built programs, man/ in it
#   sh contrib/install.sh uninstall [purge]
#
# From the environment (the Makefile passes its variables):
#   PREFIX     default ~/.local
#   BINDIR     $PREFIX/bin: every program, ag-hook-setup beside ag-hook, and the
#              scripts (ag-pipeline, ag-remote, ag-mqtt)
#   MANDIR     $PREFIX/share/man/man1
#   DATADIR    $PREFIX/share/ag: the tmux plugin and the prompt snippets
#   UNITDIR    $PREFIX/share/systemd/user: the systemd user units (not on macOS)
#   LAUNCHDIR  ~/Library/LaunchAgents: the launchd agent (macOS only)
#   OS         `uname -s`
#   DESTDIR    a staging root for packagers: files go below it, paths written
#              into the unit and the plist do not include it
#
# Each program is copied beside its final name and renamed into place, so an
# agent hook that starts meanwhile runs the old file or the new one. What was
# installed is listed in $DATADIR/installed. Uninstall first takes ag's
# hooks out of every agent (an agent left with hooks that run a program no
# longer there fails at every hook), or refuses; then it removes what the
# list names, and nothing else, and says what stays: the spool and state
# (removed too with purge) and the lines of rc files that use ag's snippets.
set -eu

die() { echo "install.sh: $*" >&2; exit 2; }

PREFIX=${PREFIX:-$HOME/.local}
BINDIR=${BINDIR:-$PREFIX/bin}
MANDIR=${MANDIR:-$PREFIX/share/man/man1}
DATADIR=${DATADIR:-$PREFIX/share/ag}
UNITDIR=${UNITDIR:-$PREFIX/share/systemd/user}
LAUNCHDIR=${LAUNCHDIR:-$HOME/Library/LaunchAgents}
OS=${OS:-$(uname -s)}
DESTDIR=${DESTDIR:-}
for v in "$BINDIR" "$MANDIR" "$DATADIR" "$UNITDIR" "$LAUNCHDIR"; do
	case $v in
	/*) ;;
	*) die "$v: not an absolute path (set PREFIX to one)" ;;
	esac
	case $v in
	*'
'*) die "a path with a newline cannot go into a unit" ;;
	esac
done
[ "$OS" = Darwin ] || case $BINDIR in
*[\\\"\'\$]*) die "$BINDIR: systemd runs no program from a path with a quote, a backslash or a \$ in it" ;;
esac
here=$(cd "$(dirname -- "$0")" && pwd)
manifest=$DATADIR/installed

# put MODE SRC DST: copy SRC to DESTDIR/DST through a temporary name, note DST.
put() {
	d=$DESTDIR$3
	mkdir -p "$(dirname -- "$d")"
	cp -- "$2" "$d.new.$$"
	chmod "$1" "$d.new.$$"
	mv -f -- "$d.new.$$" "$d"
	echo "$3" >>"$list"
}

# sedrepl TEXT: TEXT for the replacement side of sed s|||.
sedrepl() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }

# fill TEMPLATE ESCAPE: TEMPLATE with @BINDIR@ and @LOGDIR@ written in, each
# through ESCAPE (how the file's syntax quotes a path).
fill() {
	b=$(sedrepl "$($2 "$BINDIR")")
	l=$(sedrepl "$($2 "$HOME/Library/Logs")")
	sed -e "s|@BINDIR@|$b|g" -e "s|@LOGDIR@|$l|g" "$1"
}

# In a systemd unit % starts a specifier. (Quotes, backslashes and $ are
# refused before: systemd will not run a program whose path holds them.)
systemd_word() { printf '%s' "$1" | sed -e 's/%/%%/g'; }
xml_text() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

install_all() {
	build=$1
	[ -x "$build/ag-hook" ] && [ -x "$build/ag-hook-setup" ] || die "$build: no programs built there (run make)"
	list=$(mktemp "${TMPDIR:-/tmp}/ag-install.XXXXXX")
	tmp=$(mktemp "${TMPDIR:-/tmp}/ag-install.XXXXXX")
	trap 'rm -f "$list" "$tmp"' EXIT
	for p in "$build"/ag-*; do
		[ -f "$p" ] && [ -x "$p" ] && put 755 "$p" "$BINDIR/${p##*/}"
	done
	for p in "$here"/ag-*; do # the scripts: ag-pipeline, ag-remote, ag-mqtt
		[ -f "$p" ] && [ -x "$p" ] && put 755 "$p" "$BINDIR/${p##*/}"
	done
	for m in "$build"/man/*.1; do
		[ -f "$m" ] && put 644 "$m" "$MANDIR/${m##*/}"
	done
	put 755 "$here/tmux/ag.tmux" "$DATADIR/tmux/ag.tmux"
	for s in ag.bash ag.zsh ag.fish; do
		put 644 "$here/shell/$s" "$DATADIR/shell/$s"
	done
	put 644 "$here/starship/starship.toml" "$DATADIR/starship/starship.toml"
	case $OS in
	Darwin)
		fill "$here/launchd/io.github.agwatch.ag.plist" xml_text >"$tmp"
		put 644 "$tmp" "$LAUNCHDIR/io.github.agwatch.ag.plist"
		;;
	*)
		for u in "$here"/systemd/*.service; do
			fill "$u" systemd_word >"$tmp"
			put 644 "$tmp" "$UNITDIR/${u##*/}"
		done
		;;
	esac
	echo "$manifest" >>"$list"
	# Files an earlier install listed stay listed, so uninstall finds them.
	[ -f "$DESTDIR$manifest" ] && cat "$DESTDIR$manifest" >>"$list"
	sort -u "$list" >"$tmp"
	put 644 "$tmp" "$manifest"
	echo "installed into $PREFIX: programs in $BINDIR, man pages in $MANDIR, contrib in $DATADIR"
	case $OS in
	Darwin) echo "launchd agent: $LAUNCHDIR/io.github.agwatch.ag.plist" ;;
	*) echo "systemd user units: $UNITDIR/ag.service (and ag-remote@, ag-mqtt@)" ;;
	esac
	if [ -z "$DESTDIR" ]; then
		case :${PATH:-}: in
		*:"$BINDIR":* | *:"$BINDIR"/:*) ;;
		*) echo "warning: $BINDIR is not on your PATH: add  export PATH=\"$BINDIR:\$PATH\"  to ~/.profile (or your shell's rc file)" >&2 ;;
		esac
	fi
}

# unhook takes ag's hooks out of every agent, through the installed
# ag-hook and its promises (each file back byte for byte where nothing else
# changed), or stops uninstall before it removes anything.
unhook() {
	h=$DESTDIR$BINDIR/ag-hook
	if [ ! -x "$h" ] || [ ! -x "$h-setup" ]; then
		grep -qx "$BINDIR/ag-hook" "$DESTDIR$manifest" || return 0
		die "$h is gone, so it cannot take ag's hooks out of your agents; nothing was removed. From a checkout: make && bin/ag-hook uninstall --all, then make uninstall again"
	fi
	[ -n "$DESTDIR" ] && return 0 # a staging root: no agent runs from it
	"$h" uninstall --all || die "ag's hooks could not be taken out of every agent (said above); nothing was removed. Fix that, run $h uninstall --all, then make uninstall again"
}

# unit_off stops and disables a login unit that was enabled, so systemd is
# not left starting a unit whose file is gone.
unit_off() {
	[ -z "$DESTDIR" ] || return 0
	case $OS in
	Darwin)
		launchctl bootout "gui/$(id -u)/io.github.agwatch.ag" 2>/dev/null && echo "stopped the launchd agent io.github.agwatch.ag"
		;;
	*)
		command -v systemctl >/dev/null 2>&1 || return 0
		units=$(systemctl --user list-unit-files --state=enabled --no-legend 'ag.service' 'ag-remote@*' 'ag-mqtt@*' 2>/dev/null | awk '{print $1}')
		units="$units $(systemctl --user list-units --all --no-legend --plain 'ag-remote@*' 'ag-mqtt@*' 2>/dev/null | awk '{print $1}')"
		for u in $units; do
			systemctl --user disable --now "$u" 2>/dev/null && echo "stopped and disabled $u"
		done
		;;
	esac
	return 0
}

# leftovers says what uninstall leaves, with where; purge removes ag's own
# folders (an AG_DIR you chose loses only ag's files).
leftovers() {
	purge=$1
	# Where ag-hook and ag-fold put them (filters/paths): relative
	# variables are ignored, as the XDG spec says.
	state=$HOME/.local/state/ag run=
	case ${XDG_STATE_HOME:-} in /*) state=$XDG_STATE_HOME/ag ;; esac
	case ${XDG_RUNTIME_DIR:-} in /*) run=$XDG_RUNTIME_DIR/ag ;; esac
	case ${AG_DIR:-} in /*) state=$AG_DIR run= ;; esac
	for d in "$state" $run; do
		[ -d "$d" ] || continue
		if [ "$purge" = purge ]; then
			case $d in
			"${AG_DIR:-}") (cd "$d" && rm -rf spool.ndjson spool.ndjson.1 spool.ndjson.lock tail.cursor tail.cursor.lock tail.meters \
				ag-hook.log statusline made-dirs state.json state.json.prev keys-done) && rmdir "$d" 2>/dev/null ;;
			*) rm -rf "$d" ;;
			esac
			echo "removed $d (PURGE=1)"
			continue
		fi
		if [ "$d" = "$state" ]; then
			echo "left $d: the spool (the prompts your agents were given and the commands they ran), ag-tail's cursor, logs"
		else
			echo "left $d: ag-fold's state file (gone at logout)"
		fi
	done
	[ "$purge" = purge ] || echo "  (make uninstall PURGE=1 removes the spool and the state too)"
	# Lines of the user's files that still use ag's snippets or plugin.
	for f in "$HOME/.bashrc" "$HOME/.bash_profile" "$HOME/.profile" "$HOME/.zshrc" \
		"${XDG_CONFIG_HOME:-$HOME/.config}/fish/config.fish" "${XDG_CONFIG_HOME:-$HOME/.config}"/fish/conf.d/*.fish \
		"$HOME/.tmux.conf" "${XDG_CONFIG_HOME:-$HOME/.config}/tmux/tmux.conf" "${XDG_CONFIG_HOME:-$HOME/.config}/starship.toml"; do
		[ -f "$f" ] || continue
		rel=${DATADIR#"$HOME"}
		grep -nF -e "$DATADIR/" -e "~$rel/" -e "\$HOME$rel/" -e 'contrib/tmux/ag.tmux' -e 'contrib/shell/ag.' \
			-e 'ag-detect --pane' -e 'ag-fold --snapshot' "$f" 2>/dev/null | while IFS= read -r l; do
			echo "left $f:${l%%:*}: ${l#*:}  (uses ag: delete it)"
		done
	done
}

uninstall_all() {
	if [ ! -f "$DESTDIR$manifest" ]; then
		# Nothing installed (any more): PURGE=1 still removes what ag kept.
		[ "$1" = purge ] && [ -z "$DESTDIR" ] && { echo "nothing installed in $PREFIX"; leftovers purge; return; }
		die "$DESTDIR$manifest: nothing installed there (PREFIX=$PREFIX)"
	fi
	unhook
	unit_off
	while IFS= read -r f; do
		[ "$f" = "$manifest" ] || rm -f -- "$DESTDIR$f"
	done <"$DESTDIR$manifest"
	rm -f -- "$DESTDIR$manifest"
	for d in "$DATADIR/tmux" "$DATADIR/shell" "$DATADIR/starship" "$DATADIR"; do
		rmdir -- "$DESTDIR$d" 2>/dev/null || true
	done
	echo "removed what was installed into $PREFIX"
	[ -n "$DESTDIR" ] || leftovers "$1"
}

case ${1:-} in
install) install_all "${2:?install needs the build directory}" ;;
uninstall) uninstall_all "${2:-}" ;;
*) die "usage: install.sh install BUILD | uninstall [purge]" ;;
esac
