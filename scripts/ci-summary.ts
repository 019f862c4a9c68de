// Prints CI's closing line "N passed, N failed" from vitest's JSON report and exits non-zero when
// anything failed: a test, a suite that could not load, or a CI stage (lint, typecheck, build).
import { existsSync, readFileSync } from "node:fs";

interface VitestReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: { status: string; assertionResults?: unknown[] }[];
}

const [reportPath, failedStageCount = "0", failedStages = ""] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
if (reportPath && existsSync(reportPath)) {
  const report = JSON.parse(readFileSync(reportPath, "utf8")) as VitestReport;
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A test file that fails to load has no tests but is a failure all the same.
  const brokenSuites = (report.testResults ?? []).filter((r) => r.status === "failed" && (r.assertionResults ?? []).length === 0).length;
  failed += brokenSuites;
} else {
  console.log("no vitest report was written: the test run did not complete");
  failed += 1;
}
const stageFailures = Number(failedStageCount);
if (stageFailures > 0) console.log(`failed CI stages: ${failedStages}`);
const total = passed + failed;
if (total === 0) {
  console.log("no test ran");
  failed = 1;
}
console.log(`${passed} passed, ${failed + stageFailures} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed + stageFailures > 0 ? 1 : 0);
