// The extension as Pi and omp run it: the default export gets the agent's
// extension API (on(event, handler)) and handlers get (event, ctx); the
// real ag-hook the installed file names appends to a real spool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, spool, waitSpool } from "./lib.mjs";

// agent is a fake Pi: it records handlers and fires them as Pi does.
function agent() {
  const handlers = {};
  let id = "s-one", file = "/h/.pi/agent/sessions/--w--/t_s-one.jsonl";
  const ctx = { cwd: "/w", sessionManager: { getSessionId: () => id, getSessionFile: () => file } };
  return {
    api: { on: (name, f) => { (handlers[name] ||= []).push(f); } },
    handlers,
    fire(name, ev) { return (handlers[name] || []).map((f) => f({ type: name, ...ev }, ctx)); },
    switchTo(next) { id = next; file = file.replace(/_.*$/, "_" + next + ".jsonl"); },
  };
}

const line = (e) => [e.kind, e.session, e.tool, e.tool_id, e.text, e.reason].filter(Boolean).join(" ");

test("pi: a turn with a tool, never a wait, and /new", async () => {
  const ext = (await load(process.env.AG_JS_PI)).default;
  const a = agent();
  ext(a.api);
  assert.ok(!a.handlers.tool_approval_requested, "Pi's extension asks for no approvals");
  const start = spool().length;
  a.fire("session_start", { reason: "startup" });
  assert.deepEqual(a.fire("input", { text: "please RUN: ls", source: "interactive" }), [undefined], "input: no decision");
  a.fire("agent_start", {});
  a.fire("tool_execution_start", { toolCallId: "c1", toolName: "bash", args: { command: "ls" } });
  a.fire("tool_execution_end", { toolCallId: "c1", toolName: "bash", result: {}, isError: false });
  a.fire("agent_end", { messages: [{ role: "user" }, { role: "assistant", stopReason: "stop" }] });
  a.fire("session_shutdown", { reason: "new" });
  const got = (await waitSpool((s) => s.length - start >= 6)).slice(start);
  assert.deepEqual(got.map(line), [
    "session.start s-one startup", "turn.start s-one please RUN: ls", "tool.start s-one bash c1 ls",
    "tool.end s-one bash c1", "turn.end s-one", "session.end s-one new",
  ]);
  assert.ok(got.every((e) => e.agent === "pi" && e.cwd === "/w" && e.transcript.endsWith("_s-one.jsonl") && e.pid === process.pid));
});

test("omp: approvals oldest first, a session changed in place, an error", async () => {
  const ext = (await load(process.env.AG_JS_OMP)).default;
  const a = agent();
  ext(a.api);
  const start = spool().length;
  a.fire("session_start", { reason: "startup" });
  a.fire("agent_start", {});
  a.fire("tool_execution_start", { toolCallId: "c1", toolName: "bash", args: { command: "rm x" } });
  a.fire("tool_approval_requested", { sessionId: "s-one", toolCallId: "c1", toolName: "bash", approvalMode: "always-ask" });
  a.fire("tool_approval_requested", { sessionId: "s-one", toolCallId: "c2", toolName: "write", approvalMode: "always-ask" });
  a.fire("tool_approval_resolved", { sessionId: "s-one", toolCallId: "c1", toolName: "bash", approved: true });
  a.fire("tool_approval_resolved", { sessionId: "s-one", toolCallId: "c2", toolName: "write", approved: false });
  a.fire("agent_end", { messages: [{ role: "assistant", stopReason: "error", errorMessage: "429 rate limited" }] });
  a.switchTo("s-two");
  a.fire("session_switch", { reason: "new", previousSessionFile: "/x" });
  const got = (await waitSpool((s) => s.length - start >= 10)).slice(start);
  assert.deepEqual(got.map(line), [
    "session.start s-one startup", "turn.start s-one", "tool.start s-one bash c1 rm x",
    "wait s-one bash c1 rm x", "wait s-one bash c1 rm x", "wait s-one write c2", "wait.end s-one write c2 denied",
    "turn.fail s-one 429 rate limited error",
    "session.end s-one now session s-two", "session.start s-two new",
  ]);
  assert.ok(got.every((e) => e.agent === "omp"));
});

test("omp: the ask tool's call is a question wait, its first question the text", async () => {
  const ext = (await load(process.env.AG_JS_OMP)).default;
  const a = agent();
  ext(a.api);
  const start = spool().length;
  a.fire("agent_start", {});
  a.fire("tool_execution_start", { toolCallId: "q1", toolName: "ask", args: { questions: [
    { id: "colour", question: "Which colour?", options: [{ label: "Blue" }, { label: "Green" }] },
    { id: "size", question: "How big?", options: [{ label: "S" }] },
  ] } });
  a.fire("tool_execution_end", { toolCallId: "q1", toolName: "ask", result: {}, isError: false });
  a.fire("tool_execution_start", { toolCallId: "q2", toolName: "ask", args: { questions: "not a list" } });
  const got = (await waitSpool((s) => s.length - start >= 6)).slice(start);
  assert.deepEqual(got.map(line), [
    "turn.start s-one", "tool.start s-one ask q1 Which colour?", "wait s-one ask q1 Which colour?",
    "tool.end s-one ask q1", "tool.start s-one ask q2", "wait s-one ask q2",
  ]);
  assert.ok(got.filter((e) => e.kind === "wait").every((e) => e.attention === "question"));
});

test("omp: a question's one set of choices travels in its wait as options", async () => {
  const ext = (await load(process.env.AG_JS_OMP)).default;
  const a = agent();
  ext(a.api);
  const start = spool().length;
  a.fire("agent_start", {});
  a.fire("tool_execution_start", { toolCallId: "o1", toolName: "ask", args: { questions: [
    { id: "colour", question: "Which colour?", options: [{ label: "Blue" }, { label: "  " }, { label: "Green, \"leaf\"" }, 7] },
  ] } });
  a.fire("tool_execution_end", { toolCallId: "o1", toolName: "ask", result: {}, isError: false });
  a.fire("tool_execution_start", { toolCallId: "o2", toolName: "ask", args: { questions: [
    { id: "tags", question: "Which tags?", multi: true, options: [{ label: "a" }, { label: "b" }] },
  ] } });
  a.fire("tool_execution_end", { toolCallId: "o2", toolName: "ask", result: {}, isError: false });
  a.fire("tool_execution_start", { toolCallId: "o3", toolName: "bash", args: { command: "ls", options: ["x"] } });
  const got = (await waitSpool((s) => s.length - start >= 8)).slice(start);
  const opts = (id) => got.filter((e) => e.tool_id === id && (e.kind === "wait" || e.kind === "tool.start")).map((e) => e.kind + " " + JSON.stringify(e.options));
  assert.deepEqual(opts("o1"), ["tool.start [\"Blue\",\"Green, \\\"leaf\\\"\"]", "wait [\"Blue\",\"Green, \\\"leaf\\\"\"]"]);
  assert.deepEqual(opts("o2"), ["tool.start undefined", "wait undefined"]);
  assert.deepEqual(opts("o3"), ["tool.start undefined"]);
});

test("pi: /compact at the prompt, one cancelled, and one within a run", async () => {
  const ext = (await load(process.env.AG_JS_PI)).default;
  const a = agent();
  ext(a.api);
  const start = spool().length;
  a.fire("session_before_compact", { signal: new AbortController().signal });
  a.fire("session_compact", { compactionEntry: {}, fromExtension: false });
  const cancel = new AbortController();
  a.fire("session_before_compact", { signal: cancel.signal });
  cancel.abort(); // Escape: no session_compact
  a.fire("agent_start", {});
  a.fire("session_before_compact", {});
  a.fire("session_compact", {});
  a.fire("agent_end", { messages: [{ role: "assistant", stopReason: "stop" }] });
  const got = (await waitSpool((s) => s.length - start >= 8)).slice(start);
  assert.deepEqual(got.map(line), [
    "tool.start s-one compact manual", "tool.end s-one compact manual",
    "tool.start s-one compact manual", "tool.end s-one compact manual",
    "turn.start s-one", "tool.start s-one compact auto", "tool.end s-one compact auto", "turn.end s-one",
  ]);
});

test("handlers never throw and decide nothing, whatever they get", async () => {
  for (const file of [process.env.AG_JS_PI, process.env.AG_JS_OMP]) {
    const ext = (await load(file)).default;
    const handlers = {};
    ext({ on: (n, f) => { handlers[n] = f; } });
    for (const [name, f] of Object.entries(handlers)) {
      assert.equal(f(undefined, undefined), undefined, name);
      assert.equal(f({}, { sessionManager: { getSessionId() { throw new Error("boom"); } } }), undefined, name);
      assert.equal(f(null, { sessionManager: null }), undefined, name);
    }
    // An agent whose on() refuses an event it does not have.
    assert.doesNotThrow(() => ext({ on: () => { throw new Error("unknown event"); } }));
    assert.doesNotThrow(() => ext(undefined));
  }
});

test("cost to Pi of one event", async () => {
  const ext = (await load(process.env.AG_JS_PI)).default;
  const a = agent();
  ext(a.api);
  a.fire("session_start", { reason: "startup" });
  const us = (t0) => Number(process.hrtime.bigint() - t0) / 1000;
  let start = spool().length;
  const spawn = [];
  for (let i = 0; i < 20; i++) {
    const t0 = process.hrtime.bigint();
    a.fire("tool_execution_start", { toolCallId: "c" + i, toolName: "bash", args: { command: "ls" } });
    spawn.push(us(t0));
    await waitSpool((s) => s.length - start >= i + 2);
  }
  start = spool().length;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) a.fire("tool_execution_end", { toolCallId: "c" + i, toolName: "bash" });
  const burst = us(t0) / 200;
  await waitSpool((s) => s.length - start >= 200);
  spawn.sort((x, y) => x - y);
  console.log(`# pi extension (node ${process.version}): an event that starts ag-hook ${spawn[10].toFixed(0)} µs (median of 20); in a burst of 200, ${burst.toFixed(1)} µs an event`);
});
