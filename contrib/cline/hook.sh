#!/bin/sh
# ag-cline-hook devel — reports Cline's sessions to ag (https://github.com/agwatch/ag); `ag-hook uninstall --agent cline` removes it
#
# Cline runs every file named after a hook event in ~/.cline/hooks
# (TaskStart, TaskStart.sh, ...: all of them) with the event's JSON on
# stdin, and reads what a hook prints as orders (cancel the task, add
# context). This one prints nothing and exits 0 whatever happens: ag-hook
# appends the event to ag's spool and prints nothing for Cline. Without
# its ag-hook it does nothing.
AG_HOOK=ag-hook
AGENT=cline
EVENT=TaskStart
[ -x "$AG_HOOK" ] || exit 0
exec "$AG_HOOK" "$AGENT" "$EVENT"
