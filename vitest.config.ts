import { transform } from "esbuild";
import { defineConfig } from "vitest/config";

// Vite 8 transforms TypeScript with oxc, which does not lower TC39 standard decorators, and Node 20
// cannot run them natively. esbuild lowers them, so TypeScript goes through esbuild instead.
export default defineConfig({
  oxc: false,
  plugins: [
    {
      name: "crewts:tc39-decorators",
      enforce: "pre",
      async transform(code, id) {
        if (!/\.[cm]?tsx?$/.test(id) || id.includes("/node_modules/")) return null;
        const out = await transform(code, {
          loader: id.endsWith("x") ? "tsx" : "ts",
          target: "es2022",
          format: "esm",
          sourcemap: true,
          sourcefile: id,
        });
        return { code: out.code, map: out.map };
      },
    },
  ],
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
