# The ag module: every --where and --jq expression of every ag program can
# call these as ag::NAME, with no import and no -L. Most are filters for
# --where: they keep the event when it is what they say (select), so
#   ag-fold --snapshot --where 'ag::waiting'
# prints the sessions waiting for you.

# The status filters, for state events (ag-fold's output).
def idle: select(.status == "idle");
def working: select(.status == "working");
def waiting: select(.status == "waiting");
def done: select(.status == "done");
def failed: select(.status == "failed");
def gone: select(.status == "gone");

# A wait for a permission, an answer to a question, a plan to approve.
def permission: select(.status == "waiting" and (.attention // "permission") == "permission");
def question: select(.status == "waiting" and .attention == "question");
def plan: select(.status == "waiting" and .attention == "plan");

# A state read back from a state file that no running ag-fold keeps (or
# whose host stopped being heard): .stale says why.
def stale: select((.stale // "") != "");
# Neither gone nor stale: what is true now.
def live: select(.status != "gone" and (.stale // "") == "");

# One agent's events: ag::agent("codex").
def agent($a): select(.agent == $a);
# Events of one kind: ag::kind("turn.end").
def kind($k): select(.kind == $k);

# How much a state wants you, 0 (waiting) to 5 (gone, unknown).
def urgency:
  if (.stale // "") != "" then 5
  else {"waiting": 0, "failed": 1, "working": 2, "done": 3, "idle": 4}[.status // ""] // 5
  end;
# An array of states, most urgent first, the longest waiting first within
# a status: ag-fold --snapshot --slurp --jq 'ag::by_urgency[] | ag::line' -r
def by_urgency: sort_by(urgency, (.since // .t));

# The status as one symbol, as prompts show it.
def icon:
  if (.stale // "") != "" then "?"
  elif .status == "waiting" then {"question": "❓", "plan": "📋"}[.attention // ""] // "⏳"
  else {"working": "⚙", "done": "✓", "failed": "✗"}[.status // ""] // ""
  end;

# Seconds since the state last changed status (.since), else since .t.
def age: now - ((.since // .t) | sub("\\.[0-9]+"; "") | fromdateiso8601);

# A value made fit to print on a terminal: a string with no escape
# sequence, control or bidi character, on one line; anything else as JSON,
# made the same. What an agent or its model wrote is anyone's text:
#   ag-fold --snapshot --jq '"\(.agent) \(.text | ag::safe)"' -r
def safe: _ag_safe;

# One line for a person: "claude ⏳ Bash rm -rf build (/src/app)", made
# safe (ag::safe).
def line:
  [.agent, icon, (if .status == "waiting" then .tool else empty end), .text,
   (if .cwd then "(\(.cwd))" else empty end)]
  | map(select(. != null and . != "") | safe) | join(" ");
