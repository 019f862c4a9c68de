// Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self and inclusive time by function, and self
// time by package (node_modules/<pkg>) or source file. Used for the Findings of bench/RESULTS.md.
//   npx tsx bench/tools/cpuprofileSummary.ts <file.cpuprofile> [top=25] [filter-substring]
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, filter] = process.argv.slice(2);
if (!file) {
  console.error("usage: tsx bench/tools/cpuprofileSummary.ts <file.cpuprofile> [top] [filter]");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string): string => {
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = url.indexOf("/src/");
  if (src >= 0) return url.slice(src + 1);
  const bench = url.indexOf("/bench/");
  if (bench >= 0) return url.slice(bench + 1);
  if (url.startsWith("node:")) return url;
  return url === "" ? "(native/VM)" : url.replace(/^file:\/\//, "");
};
const fnKey = (cf: CallFrame) => `${cf.functionName || "(anonymous)"} ${shortUrl(cf.url)}:${cf.lineNumber + 1}`;

// Inclusive time per node, then per function counted at its outermost frame only (recursion-safe).
const inclusive = new Map<number, number>();
const incl = (id: number): number => {
  const cached = inclusive.get(id);
  if (cached !== undefined) return cached;
  const node = byId.get(id)!;
  let sum = self.get(id) ?? 0;
  for (const c of node.children ?? []) sum += incl(c);
  inclusive.set(id, sum);
  return sum;
};
// Iterative post-order so deep recursion in the profile does not overflow our stack.
{
  const order: number[] = [];
  const stack = [profile.nodes[0]!.id];
  while (stack.length) {
    const id = stack.pop()!;
    order.push(id);
    for (const c of byId.get(id)!.children ?? []) stack.push(c);
  }
  for (let i = order.length - 1; i >= 0; i--) incl(order[i]!);
}
const inclusiveByFn = new Map<string, number>();
const active = new Map<string, number>();
const walk: { id: number; exit: boolean }[] = [{ id: profile.nodes[0]!.id, exit: false }];
while (walk.length) {
  const { id, exit } = walk.pop()!;
  const key = fnKey(byId.get(id)!.callFrame);
  if (exit) {
    active.set(key, active.get(key)! - 1);
    continue;
  }
  if (!active.get(key)) inclusiveByFn.set(key, (inclusiveByFn.get(key) ?? 0) + inclusive.get(id)!);
  active.set(key, (active.get(key) ?? 0) + 1);
  walk.push({ id, exit: true });
  for (const c of byId.get(id)!.children ?? []) walk.push({ id: c, exit: false });
}

const selfByFn = new Map<string, number>();
const selfByPkg = new Map<string, number>();
for (const [id, ms] of self) {
  const cf = byId.get(id)!.callFrame;
  selfByFn.set(fnKey(cf), (selfByFn.get(fnKey(cf)) ?? 0) + ms);
  const pkg = cf.url ? shortUrl(cf.url) : cf.functionName.startsWith("(") ? cf.functionName : "(native/VM)";
  selfByPkg.set(pkg, (selfByPkg.get(pkg) ?? 0) + ms);
}

const pct = (ms: number) => `${((ms / total) * 100).toFixed(1)}%`;
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n## ${title}`);
  [...map]
    .filter(([k]) => !filter || k.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, ms]) => console.log(`${pct(ms).padStart(6)} ${ms.toFixed(1).padStart(9)} ms  ${k}`));
};
console.log(`total sampled: ${total.toFixed(1)} ms`);
print("self time by package / file", selfByPkg);
print("self time by function", selfByFn);
print("inclusive time by function", inclusiveByFn);
