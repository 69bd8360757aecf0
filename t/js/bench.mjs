// What one event costs the agent, plugin side, under the runtime that runs
// this (node for Pi, bun for OpenCode and omp): `node|bun bench.mjs
// opencode|pi FILE SPOOL` prints one JSON object of microseconds. FILE is
// an installed plugin or extension (it runs the real ag-hook it names).
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [kind, file, spoolPath] = process.argv.slice(2);
const copy = join(tmpdir(), `ag-bench-${process.pid}.mjs`);
copyFileSync(file, copy);
const mod = await import(pathToFileURL(copy).href);
const lines = () => (existsSync(spoolPath) ? readFileSync(spoolPath, "utf8").split("\n").length - 1 : 0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(n) {
  for (let i = 0; i < 2000 && lines() < n; i++) await sleep(5);
}
const us = (t0) => Number(process.hrtime.bigint() - t0) / 1000;
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];

let fire, ignored;
if (kind === "opencode") {
  const h = await mod.AgPlugin();
  fire = (i) => h.event({ event: { type: "permission.asked", properties: { id: "p" + i, sessionID: "ses_bench", permission: "bash", metadata: { command: "ls" } } } });
  ignored = () => h.event({ event: { type: "message.part.updated", properties: { sessionID: "ses_bench", part: { type: "text", text: "x" } } } });
} else {
  const handlers = {};
  mod.default({ on: (n, f) => { handlers[n] = f; } });
  const ctx = { cwd: "/w", sessionManager: { getSessionId: () => "s-bench", getSessionFile: () => "/x.jsonl" } };
  fire = (i) => handlers.tool_execution_start({ type: "tool_execution_start", toolCallId: "c" + i, toolName: "bash", args: { command: "ls" } }, ctx);
  ignored = () => {};
}
const keep = setInterval(() => {}, 1000);
let t0 = process.hrtime.bigint();
for (let i = 0; i < 5000; i++) await ignored();
const ign = us(t0) / 5000;
const alone = [];
for (let i = 0; i < 40; i++) {
  const n = lines();
  t0 = process.hrtime.bigint();
  await fire(i);
  alone.push(us(t0));
  await until(n + 1);
}
const n = lines();
t0 = process.hrtime.bigint();
for (let i = 0; i < 500; i++) await fire(1000 + i);
const burst = us(t0) / 500;
await until(n + 500);
clearInterval(keep);
const runtime = process.versions.bun ? "bun " + process.versions.bun : "node " + process.version;
console.log(JSON.stringify({ kind, runtime, ignored_us: +ign.toFixed(2), spawning_us: +median(alone).toFixed(0), burst_us: +burst.toFixed(1), written: lines() - n }));
