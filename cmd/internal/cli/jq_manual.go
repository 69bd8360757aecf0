package cli

// JQManual is the manual's section on --where and --jq, the same in every
// program that reads events.
const JQManual = `## JQ

--where and --jq take jq expressions, run by gojq once per event, which
they see as a JSON object (the event protocol's members, as ag writes
them). --where keeps an event when its first result is neither false nor
null; --jq writes each of its results as one JSON line, a string as plain
text with --raw (jq -r). $ENV and env are the environment. An expression
that fails on an event (a jq error, or past its bounds: one second, 256
MiB more memory) is reported with the event's place (FILE:LINE) and
skipped; the stream goes on and the exit status is 2. The program stops
when asked even while an expression runs.

Every expression has the ag module without an import or -L:

  ag::waiting ag::working ag::done ag::failed ag::idle ag::gone
      keep states of that status
  ag::permission ag::question ag::plan
      keep waits for that answer
  ag::stale     keep states that may no longer hold (.stale says why)
  ag::live      keep states neither gone nor stale
  ag::agent(ID) ag::kind(KIND)
      keep one agent's events (ID as in .agent) or one kind's
  ag::urgency   0 (waiting) to 5 (gone): how much a state wants you
  ag::by_urgency   an array of states, most urgent first
  ag::icon      the status as prompts show it: ⏳ ❓ 📋 ⚙ ✓ ✗ ?
  ag::age       seconds since the last status change
  ag::line      one line for a person: "<agent> ⏳ Bash rm -rf build (/src)"

For example:

  ag-fold --snapshot --where 'ag::waiting' --jq 'ag::line' -r
  ag-fold --snapshot --slurp --jq 'ag::by_urgency[] | ag::line' -r
  ag-tail --once --where 'ag::kind("meter")' --jq '.tokens.out'
  ag-fold --snapshot --where 'ag::live and ag::age > 600' --jq .session`
