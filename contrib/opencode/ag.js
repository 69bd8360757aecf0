// ag-opencode-plugin devel — reports OpenCode's sessions to ag (https://github.com/agwatch/ag); `ag-hook uninstall --agent opencode` removes this file
//
// OpenCode loads every plugins/*.js of its config directory at start and
// runs the function this module exports: it returns the hooks OpenCode
// calls, here `event` (every bus event) and three interceptors. The plugin
// turns the few events that say what a session is doing (a prompt, busy,
// a permission or question dialog and its answer, idle, an error) into
// lines for `ag-hook opencode`, which maps them to ag events and appends
// them to ag's spool with the guarantees every hook has (0600, one write
// per batch, rotation under a lock).
//
// It must never slow, block or break OpenCode: every handler returns at
// once (no await on anything of ours), every failure is swallowed — and
// logged only when AG_DEBUG is set — and it imports only node:
// built-ins that both Bun and Node provide. Importing
// @opencode-ai/plugin would make no difference to what OpenCode installs
// at start, and nothing here needs it. Nothing from the environment is
// written: ag-hook gets OpenCode's environment as any hook would, and
// reads only its own variables.
//
// Hand-over: one detached `ag-hook opencode` per batch, at most one at a
// time. Events that come while one runs wait (in order, with their own
// time) and go together in the next, so the spool sees them in the order
// OpenCode fired them, a burst costs one process, and a missing or broken
// ag-hook costs one failed spawn per batch.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const AG_HOOK = "ag-hook";
const AGENT = "opencode";

// Bus events ag reads; the rest (message parts streaming, files, todos,
// the TUI's own) never leave the handler.
const FORWARD = new Set([
  "session.created", "session.deleted", "session.status", "session.idle", "session.error",
  "permission.asked", "permission.replied", "question.asked", "question.replied", "question.rejected",
]);

// MAX_TEXT bounds every string sent (a diff in a permission's metadata can
// be megabytes); MAX_QUEUE the lines held while ag-hook does not answer.
const MAX_TEXT = 2000;
const MAX_QUEUE = 512;

function debugLog(env) {
  const dest = env.AG_DEBUG;
  if (!dest) return () => {};
  const base = env.AG_DIR || (env.XDG_STATE_HOME ? env.XDG_STATE_HOME + "/ag" : (env.HOME || "") + "/.local/state/ag");
  const path = dest.startsWith("/") ? dest : base + "/ag-hook.log";
  return (what, err) => {
    try {
      appendFileSync(path, `${new Date().toISOString()} ag-opencode-plugin[${process.pid}]: ${what}: ${err && err.message ? err.message : err}\n`, { mode: 0o600 });
    } catch {}
  };
}

// sender returns send(obj): obj becomes one line for ag-hook. Batches go
// one process at a time; spawn is injectable for tests.
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

// clamp copies v with every string cut to MAX_TEXT and nesting cut at 6.
function clamp(v, depth = 0) {
  if (typeof v === "string") return v.length > MAX_TEXT ? v.slice(0, MAX_TEXT) : v;
  if (v === null || typeof v !== "object") return v;
  if (depth >= 6) return undefined;
  if (Array.isArray(v)) return v.slice(0, 32).map((x) => clamp(x, depth + 1));
  const out = {};
  for (const k of Object.keys(v).slice(0, 64)) out[k] = clamp(v[k], depth + 1);
  return out;
}

// tracker turns OpenCode's hooks into lines: it remembers which session is
// whose sub-agent (a sub-agent is a session of its own, with parentID) and
// each session's last status, so a busy repeated changes nothing.
function tracker(send, now = Date.now) {
  const parents = new Map();
  const status = new Map();
  const line = (session, type, properties) => {
    const l = { t: now(), pid: process.pid, event: { type, properties } };
    const parent = parents.get(session);
    if (parent) l.parent = parent;
    send(l);
  };
  return {
    event(ev) {
      if (!ev || !FORWARD.has(ev.type)) return;
      const p = ev.properties || {};
      const info = p.info || {};
      const session = p.sessionID || info.id || "";
      switch (ev.type) {
        case "session.created":
          if (info.parentID) parents.set(info.id, info.parentID);
          line(session, ev.type, { sessionID: session, info: { id: info.id, parentID: info.parentID, directory: info.directory } });
          return;
        case "session.deleted":
          line(session, ev.type, { sessionID: session });
          parents.delete(session);
          status.delete(session);
          return;
        case "session.status": {
          const type = p.status && p.status.type;
          const was = status.get(session);
          status.set(session, type);
          // The idle after an error is the error's end, already told
          // (failed, or idle after Escape): not a finished turn.
          if (was === type || (type === "idle" && was === "error")) return;
          break;
        }
        case "session.idle": {
          const was = status.get(session);
          status.set(session, "idle");
          if (was === "error" || was === "idle") return;
          break;
        }
        case "session.error":
          status.set(session, "error");
          break;
      }
      line(session, ev.type, clamp(p));
    },
    chat(input, output) {
      const session = input.sessionID || "";
      const parts = (output && output.parts) || [];
      const text = parts.filter((x) => x && x.type === "text" && !x.synthetic && typeof x.text === "string").map((x) => x.text).join("\n");
      status.set(session, "busy");
      line(session, "chat.message", clamp({ sessionID: session, messageID: input.messageID || (output && output.message && output.message.id), agent: input.agent, model: input.model, text }));
    },
    tool(type, input, output) {
      const session = input.sessionID || "";
      line(session, type, clamp({ sessionID: session, tool: input.tool, callID: input.callID, args: output && output.args }));
    },
    parents,
  };
}

// AgPlugin is what OpenCode runs. It does nothing that can fail or wait
// before it returns the hooks. It is the module's only export: OpenCode
// runs every function a plugin module exports as a plugin.
export const AgPlugin = async () => {
  const debug = debugLog(process.env);
  const t = tracker(sender({ debug }));
  const guard = (what, f) => async (...args) => {
    try {
      f(...args);
    } catch (e) {
      debug(what, e);
    }
  };
  return {
    event: guard("event", ({ event }) => t.event(event)),
    "chat.message": guard("chat.message", (input, output) => t.chat(input, output)),
    "tool.execute.before": guard("tool.execute.before", (input, output) => t.tool("tool.execute.before", input, output)),
    "tool.execute.after": guard("tool.execute.after", (input) => t.tool("tool.execute.after", input)),
  };
};

// For t/js: the parts, without exporting them.
AgPlugin.parts = { sender, tracker, clamp, debugLog };
