import { existsSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// bench/ imports the frameworks it compares with, which npm run bench installs into bench/node_modules
// on first use: until then its files cannot be type-checked, so they are linted once that is done.
const benchInstalled = existsSync(`${import.meta.dirname}/bench/node_modules`);

export default tseslint.config(
  { ignores: ["dist/**", "**/node_modules/**", "coverage/**", ".tmp/**", ...(benchInstalled ? [] : ["bench/**"])] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ["eslint.config.js", "bin/*.js"] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-explicit-any": "error",
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  {
    files: ["test/**", "bench/**", "examples/**", "scripts/**", "src/cli/**"],
    rules: { "no-console": "off", "@typescript-eslint/no-non-null-assertion": "off" },
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { console: "readonly", process: "readonly", URL: "readonly" } },
    rules: { ...tseslint.configs.disableTypeChecked.rules, "no-console": "off" },
  },
  {
    files: ["test/**"],
    rules: { "@typescript-eslint/no-unsafe-member-access": "off", "@typescript-eslint/no-unsafe-assignment": "off" },
  },
);
