import { defineConfig } from "tsdown";

export default defineConfig({
  entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts", "cli/main": "src/cli/main.ts" },
  format: "esm",
  platform: "node",
  target: "node20",
  dts: true,
  sourcemap: true,
  clean: true,
  fixedExtension: false,
});
