import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CREWTS_DEPENDENCY_ENV, crewtsDependency, installedFromRegistry } from "../../src/cli/templates/crewtsDependency.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.unstubAllEnvs();
});

/** A node_modules folder holding crewts, with npm's hidden lockfile saying where it came from. */
function installedCrewts(resolved: string): string {
  const dir = mkdtempSync(join(tmpdir(), "crewts-dep-"));
  dirs.push(dir);
  const root = join(dir, "node_modules", "crewts");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(dir, "node_modules", ".package-lock.json"), JSON.stringify({ packages: { "node_modules/crewts": { version: "0.3.0", resolved } } }));
  return root;
}

describe("the crewts dependency of a new project", () => {
  it("is the registry range when this crewts came from a registry", async () => {
    const root = installedCrewts("https://registry.npmjs.org/crewts/-/crewts-0.3.0.tgz");
    expect(installedFromRegistry(root)).toBe(true);
    await expect(crewtsDependency(root, "0.3.0", join(root, "..", ".."))).resolves.toEqual({ spec: "^0.3.0", source: "registry" });
  });

  it("is not the registry when this crewts is a checkout, a tarball or a linked folder", () => {
    expect(installedFromRegistry(installedCrewts("file:../crewts-0.3.0.tgz"))).toBe(false);
    expect(installedFromRegistry(installedCrewts("../crewts"))).toBe(false);
    expect(installedFromRegistry(process.cwd())).toBe(false);
  });

  it("is what --crewts or CREWTS_DEPENDENCY says, when given", async () => {
    const root = installedCrewts("file:../crewts-0.3.0.tgz");
    await expect(crewtsDependency(root, "0.3.0", root, "^1.2.0")).resolves.toEqual({ spec: "^1.2.0", source: "given" });
    vi.stubEnv(CREWTS_DEPENDENCY_ENV, "file:../../crewts");
    await expect(crewtsDependency(root, "0.3.0", root)).resolves.toEqual({ spec: "file:../../crewts", source: "given" });
  });
});
