#!/usr/bin/env node
// The crewts binary. A package runs the built CLI (dist/); a git checkout that has not been built yet
// runs the TypeScript sources through its tsx, so `npx crewts` works right after `npm ci`.
import { existsSync } from "node:fs";

const built = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(new URL("../src/cli/main.ts", import.meta.url).href);
}
