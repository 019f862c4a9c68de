#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command } from "commander";

// Only commander is loaded at start-up so `crewts --help` stays fast; commands import what they need.
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

const program = new Command()
  .name("crewts")
  .description("crewts: CrewAI for TypeScript. Build and run crews of AI agents and event-driven flows.")
  .version(pkg.version, "-v, --version", "print the crewts version")
  .showHelpAfterError("(run crewts --help for usage)");

program
  .command("version")
  .description("print the crewts version")
  .action(() => {
    console.log(`crewts ${pkg.version}`);
  });

await program.parseAsync(process.argv);
