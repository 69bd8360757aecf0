// The OpenCode plugin as OpenCode runs it: AgPlugin() returns its hooks,
// which get OpenCode's bus events and hook calls (shapes as OpenCode
// 1.18.33 fired them here); the real ag-hook the installed file names
// appends to a real spool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { load, spool, waitSpool } from "./lib.mjs";

const file = process.env.AG_JS_OPENCODE;
process.env.AG_TEST_SECRET = "s3cr3t-token-never-written";

const ev = (type, properties) => ({ event: { type, properties } });

test("a session's turn, a permission asked and rejected, a sub-agent's prompt", async () => {
  const mod = await load(file);
  assert.deepEqual(Object.keys(mod), ["AgPlugin"], "OpenCode runs every exported function as a plugin");
  const h = await mod.AgPlugin({ directory: "/w", worktree: "/w" });
  const start = spool().length;
  const S = "ses_main1";
  await h.event(ev("session.created", { sessionID: S, info: { id: S, directory: "/w/proj", title: "t" } }));
  await h["chat.message"]({ sessionID: S, agent: "build", model: { providerID: "fake", modelID: "fake-model" }, messageID: "msg_1" },
    { message: { id: "msg_1" }, parts: [{ type: "text", text: "please RUN: echo marker > marker.txt" }, { type: "text", text: "ctx", synthetic: true }] });
  await h.event(ev("session.status", { sessionID: S, status: { type: "busy" } })); // chat already said busy
  await h.event(ev("message.part.updated", { sessionID: S, part: { type: "text", text: "x".repeat(100000) } }));
  await h["tool.execute.before"]({ tool: "bash", sessionID: S, callID: "call_1" }, { args: { command: "echo marker > marker.txt", description: "d" } });
  await h.event(ev("permission.asked", { id: "per_1", sessionID: S, permission: "bash", patterns: ["echo marker > marker.txt"],
    metadata: { command: "echo marker > marker.txt", diff: "d".repeat(10000) }, always: ["echo *"], tool: { messageID: "msg_2", callID: "call_1" } }));
  await h.event(ev("permission.replied", { sessionID: S, requestID: "per_1", reply: "reject" }));
  await h.event(ev("session.status", { sessionID: S, status: { type: "idle" } }));
  await h.event(ev("session.idle", { sessionID: S }));
  const C = "ses_child1";
  await h.event(ev("session.created", { sessionID: C, info: { id: C, parentID: S, directory: "/w/proj" } }));
  await h.event(ev("permission.asked", { id: "per_2", sessionID: C, permission: "bash", patterns: ["rm x"], metadata: { command: "rm x" }, tool: { callID: "call_9" } }));
  const got = (await waitSpool((s) => s.length - start >= 8)).slice(start);
  const seq = got.map((e) => [e.kind, e.session, e.sub || "", e.tool || "", e.reason || ""].join(" "));
  assert.deepEqual(seq, [
    "session.start ses_main1   ", "turn.start ses_main1   ", "tool.start ses_main1  bash ", "wait ses_main1  bash ",
    "wait.end ses_main1   denied", "turn.end ses_main1   ",
    "session.start ses_main1 ses_child1  ", "wait ses_main1 ses_child1 bash ",
  ], "events in OpenCode's order");
  assert.equal(got.length, 8, "the repeated busy, the idle after idle and the streamed part sent nothing");
  assert.equal(got[1].text, "please RUN: echo marker > marker.txt");
  assert.equal(got[1].model, "fake/fake-model");
  assert.equal(got[3].text, "echo marker > marker.txt");
  assert.equal(got[3].pid, process.pid);
  const raw = readFileSync(process.env.AG_DIR + "/spool.ndjson", "utf8");
  assert.ok(!raw.includes("s3cr3t"), "nothing from the environment is written");
  assert.ok(raw.length < 20000, "long values were cut");
});

test("an error ends the turn failed; the idle after it is no finished turn", async () => {
  const { AgPlugin } = await load(file);
  const h = await AgPlugin();
  const start = spool().length;
  const S = "ses_err1";
  await h["chat.message"]({ sessionID: S, messageID: "m" }, { parts: [{ type: "text", text: "FAIL: quota" }] });
  await h.event(ev("session.error", { sessionID: S, error: { name: "APIError", data: { message: "FAKE-FAIL: quota" } } }));
  await h.event(ev("session.status", { sessionID: S, status: { type: "idle" } }));
  await h.event(ev("session.idle", { sessionID: S }));
  await h["chat.message"]({ sessionID: S, messageID: "m2" }, { parts: [{ type: "text", text: "again" }] });
  await h.event(ev("session.idle", { sessionID: S }));
  const got = (await waitSpool((s) => s.length - start >= 4)).slice(start);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(spool().slice(start).map((e) => e.kind + " " + (e.reason || "")), ["turn.start ", "turn.fail APIError", "turn.start ", "turn.end "]);
  assert.equal(got[1].text, "FAKE-FAIL: quota");
});

test("a hook never throws and never waits, whatever it is given", async () => {
  const { AgPlugin } = await load(file);
  const h = await AgPlugin();
  for (const [name, args] of [["event", [undefined]], ["event", [{ event: null }]], ["event", [{ event: { type: "session.status" } }]],
    ["chat.message", [null, null]], ["chat.message", [{}, { parts: "nope" }]], ["tool.execute.before", [undefined, undefined]], ["tool.execute.after", [{}]]]) {
    const r = h[name](...args);
    assert.ok(r instanceof Promise);
    assert.equal(await r, undefined, name + " resolves with nothing");
  }
});

test("no ag-hook: nothing breaks, and only AG_DEBUG logs it", async () => {
  const { AgPlugin } = await load(file);
  const { sender, debugLog } = AgPlugin.parts;
  const log = process.env.AG_DIR + "/js-debug.log";
  const send = sender({ hook: "/nonexistent/ag-hook", debug: debugLog({ AG_DEBUG: log }) });
  send({ t: 1, event: { type: "x" } });
  send({ t: 2, event: { type: "y" } });
  await new Promise((r) => setTimeout(r, 500));
  assert.match(readFileSync(log, "utf8"), /ag-opencode-plugin\[\d+\]: spawn \/nonexistent\/ag-hook: .*ENOENT/);
  const quiet = sender({ hook: "/nonexistent/ag-hook", debug: debugLog({}) });
  quiet({ t: 3 });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(readFileSync(log, "utf8").split("\n").filter(Boolean).length, 2, "one line per failed batch, none without AG_DEBUG");
});

test("batches: one ag-hook at a time, the rest in order in the next", async () => {
  const { AgPlugin } = await load(file);
  const { sender } = AgPlugin.parts;
  const spawned = [];
  const fake = (hook, args, opts) => {
    const handlers = {};
    const child = { on: (e, f) => { handlers[e] = f; }, unref() {}, stdin: { on() {}, end: (b) => spawned.push({ b, opts, exit: () => handlers.exit(0) }) } };
    return child;
  };
  const send = sender({ hook: "/x/ag-hook", spawnFn: fake });
  for (let i = 0; i < 5; i++) send({ n: i });
  assert.equal(spawned.length, 1, "one process while the first runs");
  assert.equal(spawned[0].opts.detached, true);
  assert.deepEqual(spawned[0].opts.stdio, ["pipe", "ignore", "ignore"]);
  spawned[0].exit();
  assert.equal(spawned.length, 2);
  assert.deepEqual(spawned[1].b.trim().split("\n").map((l) => JSON.parse(l).n), [1, 2, 3, 4]);
});

test("cost to OpenCode of one event", async () => {
  const { AgPlugin } = await load(file);
  const h = await AgPlugin();
  const ask = (i) => h.event(ev("permission.asked", { id: "p" + i, sessionID: "ses_cost", permission: "bash", metadata: { command: "ls" } }));
  const us = (t0) => Number(process.hrtime.bigint() - t0) / 1000;
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) await h.event(ev("message.part.updated", { sessionID: "ses_cost", part: { type: "text", text: "x" } }));
  const ignored = us(t0) / 2000;
  // Each event alone: it starts an ag-hook.
  let start = spool().length, spawn = [];
  for (let i = 0; i < 20; i++) {
    t0 = process.hrtime.bigint();
    await ask(i);
    spawn.push(us(t0));
    await waitSpool((s) => s.length - start >= i + 1);
  }
  // A burst: one ag-hook runs, the rest queue for the next.
  start = spool().length;
  t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) await ask(100 + i);
  const burst = us(t0) / 200;
  await waitSpool((s) => s.length - start >= 200);
  spawn.sort((a, b) => a - b);
  console.log(`# opencode plugin (node ${process.version}): an ignored event ${ignored.toFixed(1)} µs; an event that starts ag-hook ${spawn[10].toFixed(0)} µs (median of 20); in a burst of 200, ${burst.toFixed(1)} µs an event`);
});
