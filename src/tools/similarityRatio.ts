// CrewAI picks the tool a model misspelled with Python's difflib.SequenceMatcher(...).ratio().
// This reproduces that ratio (Ratcliff/Obershelp: 2 * matched characters / total length) so the
// same misspellings resolve to the same tools. difflib's "autojunk" heuristic only applies to
// sequences of 200+ characters; tool names are capped at 64, so it is left out.

/** Similarity of two strings between 0 and 1, equal to Python's `SequenceMatcher(None, a, b).ratio()`. */
export function similarityRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  return (2 * countMatchingCharacters(a, b)) / total;
}

function countMatchingCharacters(a: string, b: string): number {
  const positionsInB = new Map<string, number[]>();
  for (let j = 0; j < b.length; j++) {
    const ch = b.charAt(j);
    const list = positionsInB.get(ch);
    if (list) list.push(j);
    else positionsInB.set(ch, [j]);
  }
  let matched = 0;
  // Find the longest common block, then recurse into the parts left and right of it.
  const pending: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  for (let range = pending.pop(); range !== undefined; range = pending.pop()) {
    const [alo, ahi, blo, bhi] = range;
    const [i, j, size] = longestMatch(a, positionsInB, alo, ahi, blo, bhi);
    if (size === 0) continue;
    matched += size;
    if (alo < i && blo < j) pending.push([alo, i, blo, j]);
    if (i + size < ahi && j + size < bhi) pending.push([i + size, ahi, j + size, bhi]);
  }
  return matched;
}

// Same tie-breaking as difflib: the earliest block in `a`, then the earliest in `b`.
function longestMatch(
  a: string,
  positionsInB: Map<string, number[]>,
  alo: number,
  ahi: number,
  blo: number,
  bhi: number,
): [number, number, number] {
  let bestI = alo;
  let bestJ = blo;
  let bestSize = 0;
  // lengthEndingAt.get(j) = length of the common run ending at a[i - 1] and b[j].
  let lengthEndingAt = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of positionsInB.get(a.charAt(i)) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const size = (lengthEndingAt.get(j - 1) ?? 0) + 1;
      next.set(j, size);
      if (size > bestSize) {
        bestI = i - size + 1;
        bestJ = j - size + 1;
        bestSize = size;
      }
    }
    lengthEndingAt = next;
  }
  return [bestI, bestJ, bestSize];
}
