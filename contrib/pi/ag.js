// ag-pi-extension devel — reports this agent's session to ag (https://github.com/agwatch/ag); `ag-hook uninstall --agent pi` removes this file
//
// The extension for Pi and for omp (oh-my-pi, a fork that kept Pi's
// extension API); `ag-hook install --agent pi|omp` writes it with AGENT
// set. Both load every extensions/*.js of their agent directory at start
// and call its default export with their extension API: the handlers
// registered here turn the agent's events (the session starting, a prompt
// at work, each tool, the end of the run, the session closing or another
// taking its place, and omp's tool approvals) into lines for `ag-hook
// <agent>`, which maps them to ag events and appends them to ag's spool
// with the guarantees every hook has (0600, one write per batch, rotation
// under a lock).
//
// It must never slow, block or break the agent: every handler returns
// undefined at once (Pi reads a tool_call or input handler's result as a
// decision, so there never is one), every failure is swallowed — and
// logged only when AG_DEBUG is set — and it imports only node: built-ins
// that both Node (Pi) and Bun (omp) provide. Nothing from the environment
// is written.
//
// Hand-over: one detached `ag-hook <agent>` per batch, at most one at a
// time; events that come meanwhile wait, in order and with their own
// time, for the next.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const AG_HOOK = "ag-hook";
const AGENT = "pi";

const MAX_TEXT = 2000;
const MAX_QUEUE = 512;

function debugLog(env) {
  const dest = env.AG_DEBUG;
  if (!dest) return () => {};
  const base = env.AG_DIR || (env.XDG_STATE_HOME ? env.XDG_STATE_HOME + "/ag" : (env.HOME || "") + "/.local/state/ag");
  const path = dest.startsWith("/") ? dest : base + "/ag-hook.log";
  return (what, err) => {
    try {
      appendFileSync(path, `${new Date().toISOString()} ag-${AGENT}-extension[${process.pid}]: ${what}: ${err && err.message ? err.message : err}\n`, { mode: 0o600 });
    } catch {}
  };
}

function sender({ hook = AG_HOOK, agent = AGENT, spawnFn = spawn, debug = () => {} } = {}) {
  let queue = [];
  let busy = false;
  let dropped = 0;
  const flush = () => {
    if (busy || queue.length === 0) return;
    const batch = queue.join("");
    queue = [];
    busy = true;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      busy = false;
      flush();
    };
    try {
      const child = spawnFn(hook, [agent], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
      child.on("error", (e) => { debug("spawn " + hook, e); done(); });
      child.on("exit", done);
      child.stdin.on("error", (e) => debug("write", e));
      child.stdin.end(batch);
      child.unref();
    } catch (e) {
      debug("spawn " + hook, e);
      done();
    }
  };
  return (obj) => {
    try {
      if (queue.length >= MAX_QUEUE) {
        queue.shift();
        if (dropped++ === 0) debug("queue", "ag-hook is not keeping up: oldest events dropped");
      }
      queue.push(JSON.stringify(obj) + "\n");
      flush();
    } catch (e) {
      debug("send", e);
    }
  };
}

const cut = (s) => (typeof s === "string" && s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s);

// What a tool call is about, as a short text: the command, else the path,
// else (omp's ask) its first question.
function about(args) {
  if (!args || typeof args !== "object") return undefined;
  for (const k of ["command", "path", "file_path", "filePath", "pattern", "url"]) {
    if (typeof args[k] === "string") return cut(args[k]);
  }
  const q = Array.isArray(args.questions) ? args.questions[0] : undefined;
  if (q && typeof q.question === "string") return cut(q.question);
  return undefined;
}

const MAX_OPTIONS = 9;

// The labels of a question's choices (omp's ask, Pi's ask_question): the
// rows of its picker, which ag offers as buttons. Only one question that
// takes one answer has them: several are asked one after another, and a
// multi-select's rows are toggled, not picked.
function choices(args) {
  if (!args || typeof args !== "object") return undefined;
  let q = args;
  if (Array.isArray(args.questions)) {
    if (args.questions.length !== 1) return undefined;
    q = args.questions[0];
  }
  if (!q || typeof q !== "object" || !Array.isArray(q.options) || q.multi || q.multiSelect || q.multiple) return undefined;
  const out = [];
  for (const o of q.options) {
    const label = typeof o === "string" ? o : o && typeof o.label === "string" ? o.label : undefined;
    if (label !== undefined && out.length < MAX_OPTIONS) out.push(cut(label));
  }
  return out.length > 0 ? out : undefined;
}

// tracker keeps what a line needs that one event does not say: the
// session the process runs now (omp changes it in place), the prompt that
// started the run, and omp's pending approvals in the order they were
// asked (its dialogs show the oldest first).
function tracker(send, now = Date.now) {
  let session = "";
  let prompt = "";
  let running = false; // between agent_start and agent_end
  let compacting = ""; // the trigger of the compaction under way
  const pending = new Map(); // toolCallId -> toolName, oldest first
  const texts = new Map(); // toolCallId -> what the call is about (its command)
  const line = (ctx, type, fields) => {
    let file;
    try {
      const sm = ctx && ctx.sessionManager;
      if (sm) {
        session = sm.getSessionId() || session;
        file = sm.getSessionFile();
      }
    } catch {}
    send({ t: now(), pid: process.pid, type, session, file, cwd: ctx && ctx.cwd, ...fields });
  };
  const head = () => {
    for (const [toolCallId, toolName] of pending) return { toolCallId, toolName, text: texts.get(toolCallId) };
    return null;
  };
  return {
    sessionStart(ev, ctx) { pending.clear(); line(ctx, "session_start", { reason: ev.reason }); },
    input(ev) {
      // The prompt a run starts with; a command (/…) or a shell line (!…)
      // starts none, and agent_start says when one does.
      if (ev && typeof ev.text === "string") prompt = cut(ev.text);
    },
    agentStart(ev, ctx) { running = true; line(ctx, "agent_start", { text: prompt }); prompt = ""; },
    toolStart(ev, ctx) {
      const text = about(ev.args);
      if (text !== undefined && texts.size < 256) texts.set(ev.toolCallId, text);
      line(ctx, "tool_execution_start", { toolCallId: ev.toolCallId, toolName: ev.toolName, text, options: choices(ev.args) });
    },
    toolEnd(ev, ctx) {
      texts.delete(ev.toolCallId);
      line(ctx, "tool_execution_end", { toolCallId: ev.toolCallId, toolName: ev.toolName, isError: !!ev.isError });
    },
    agentEnd(ev, ctx) {
      running = false;
      pending.clear(); // an aborted run leaves no approval pinned
      texts.clear();
      let stop, error;
      const msgs = (ev && Array.isArray(ev.messages)) ? ev.messages : [];
      for (let i = msgs.length - 1; i >= 0; i--) {
        const m = msgs[i];
        if (m && m.role === "assistant") {
          stop = m.stopReason;
          error = cut(m.errorMessage);
          break;
        }
      }
      line(ctx, "agent_end", { stopReason: stop, errorMessage: error });
    },
    // A compaction: the user's /compact at the prompt ("manual"), or the
    // agent's own within a run ("auto"). Escape cancels it through the
    // event's signal, and then no session_compact comes.
    compactStart(ev, ctx) {
      const trigger = running ? "auto" : "manual";
      compacting = trigger;
      line(ctx, "compact_start", { trigger });
      const signal = ev && ev.signal;
      if (signal && typeof signal.addEventListener === "function") {
        signal.addEventListener("abort", () => {
          if (compacting) line(ctx, "compact_end", { trigger: compacting, aborted: true });
          compacting = "";
        }, { once: true });
      }
    },
    compactEnd(ev, ctx) {
      line(ctx, "compact_end", { trigger: compacting || (running ? "auto" : "manual") });
      compacting = "";
    },
    shutdown(ev, ctx) { line(ctx, "session_shutdown", { reason: ev && ev.reason }); },
    // omp: /new, /resume, a branch or a fork give the process another
    // session in place; nothing fires session_start.
    switched(ev, ctx) {
      const before = session;
      pending.clear();
      line(ctx, ev.type, { reason: ev.reason, previous: before });
    },
    approvalAsked(ev, ctx) {
      pending.set(ev.toolCallId, ev.toolName);
      line(ctx, "tool_approval_requested", { toolCallId: ev.toolCallId, toolName: ev.toolName, head: head() });
    },
    approvalResolved(ev, ctx) {
      pending.delete(ev.toolCallId);
      line(ctx, "tool_approval_resolved", { toolCallId: ev.toolCallId, toolName: ev.toolName, approved: !!ev.approved, head: head() });
    },
  };
}

export default function ag(pi) {
  const debug = debugLog(process.env);
  let t;
  try {
    t = tracker(sender({ debug }));
  } catch (e) {
    debug("start", e);
    return;
  }
  const on = (name, f) => {
    try {
      pi.on(name, (ev, ctx) => {
        try {
          f(ev, ctx);
        } catch (e) {
          debug(name, e);
        }
        return undefined;
      });
    } catch (e) {
      debug("on " + name, e); // an agent without that event
    }
  };
  on("session_start", t.sessionStart);
  on("input", t.input);
  on("agent_start", t.agentStart);
  on("tool_execution_start", t.toolStart);
  on("tool_execution_end", t.toolEnd);
  on("agent_end", t.agentEnd);
  on("session_shutdown", t.shutdown);
  on("session_before_compact", t.compactStart);
  on("session_compact", t.compactEnd);
  if (AGENT === "omp") {
    on("session_switch", t.switched);
    on("session_branch", t.switched);
    on("session_fork", t.switched);
    on("tool_approval_requested", t.approvalAsked);
    on("tool_approval_resolved", t.approvalResolved);
  }
}

// For t/js: the parts, without exporting them.
ag.parts = { sender, tracker, about, choices };
