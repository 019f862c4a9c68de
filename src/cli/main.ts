#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CrewtsPackageJson } from "./CliContext.js";
import { runCli } from "./program.js";

// Kept to commander and one small JSON read so that `crewts --help` starts fast; commands load the rest.
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as CrewtsPackageJson;
process.exitCode = await runCli({ cliEntry: fileURLToPath(import.meta.url), pkg }, process.argv.slice(2));
