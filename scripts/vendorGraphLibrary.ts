// Copies the browser build of cytoscape (MIT) and its licence into dist/vendor/ at build time. The
// flow plot inlines that one 430 KB file into its HTML, so the published package ships it instead
// of depending on the whole 5.7 MB cytoscape package.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const library = require.resolve("cytoscape/dist/cytoscape.min.js");
const licence = join(dirname(library), "..", "LICENSE");
const out = join(import.meta.dirname, "..", "dist", "vendor");
mkdirSync(out, { recursive: true });
copyFileSync(library, join(out, "cytoscape.min.js"));
copyFileSync(licence, join(out, "cytoscape.LICENSE"));
console.log(`vendored cytoscape into ${out}`);
