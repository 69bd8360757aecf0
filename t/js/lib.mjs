// Shared by the t/js tests: load an installed plugin or extension (what
// `ag-hook install` wrote, run by the real ag-hook it names), and read
// the spool it appends to.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// load imports the installed file as the module it is (OpenCode and Pi
// load it as ESM; node wants .mjs for that outside a "type":"module" dir).
export async function load(path) {
  const copy = join(tmpdir(), `ag-js-${process.pid}-${Math.random().toString(36).slice(2)}.mjs`);
  copyFileSync(path, copy);
  return import(pathToFileURL(copy).href);
}

export const spoolPath = () => join(process.env.AG_DIR, "spool.ndjson");

export function spool() {
  const p = spoolPath();
  if (!existsSync(p)) return [];
  return readFileSync(p, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

// waitSpool polls until pred(spool()) holds, or fails after ms.
export async function waitSpool(pred, ms = 20000) {
  const until = Date.now() + ms;
  for (;;) {
    const s = spool();
    if (pred(s)) return s;
    if (Date.now() > until) throw new Error("spool never got there; it holds:\n" + s.map((e) => JSON.stringify(e)).join("\n"));
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const since = (start) => spool().slice(start);
