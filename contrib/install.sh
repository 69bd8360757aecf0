#!/bin/sh
# contrib/install.sh — what `make install` and `make uninstall` run.
#
#   sh contrib/install.sh install BUILD   # BUILD: the built programs, man/ in it
#   sh contrib/install.sh uninstall
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
# installed is listed in $DATADIR/installed, which uninstall removes, and
# nothing else.
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
}

uninstall_all() {
	[ -f "$DESTDIR$manifest" ] || die "$DESTDIR$manifest: nothing installed there (PREFIX=$PREFIX)"
	while IFS= read -r f; do
		[ "$f" = "$manifest" ] || rm -f -- "$DESTDIR$f"
	done <"$DESTDIR$manifest"
	rm -f -- "$DESTDIR$manifest"
	for d in "$DATADIR/tmux" "$DATADIR/shell" "$DATADIR/starship" "$DATADIR"; do
		rmdir -- "$DESTDIR$d" 2>/dev/null || true
	done
	echo "removed what was installed into $PREFIX"
}

case ${1:-} in
install) install_all "${2:?install needs the build directory}" ;;
uninstall) uninstall_all ;;
*) die "usage: install.sh install BUILD | uninstall" ;;
esac
