// Approximate dot products of many vectors, quantized to int8, in WebAssembly SIMD: 100,000 vectors
// of 384 dims are 38 MB to stream per query (float32 would be 154 MB, which memory bandwidth alone
// makes 15-30 ms on a shared machine), scored in a few milliseconds. Callers re-rank the best
// candidates with the exact float vectors.
//
// The module, as WebAssembly text (encoded by hand below; test/knowledge/vectorScan.test.ts checks it
// against a JavaScript loop):
//   (func (export "scores") (param $q i32) (param $v i32) (param $count i32) (param $bytes i32) (param $out i32)
//     (local $end i32) (local $vend i32) (local $qp i32) (local $a v128) (local $b v128)
//     $end = $v + $count * $bytes
//     loop: $a = $b = 0; $vend = $v + $bytes; $qp = $q
//       loop: $x = load($v)  (16 x i8); $qp holds the query as i16
//             $a += i32x4.dot_i16x8_s(extend_low($x), load($qp)); $b += i32x4.dot_i16x8_s(extend_high($x), load($qp + 16))
//             $v += 16; $qp += 32; while $v < $vend
//       i32.store($out, sum of the lanes of $a + $b); $out += 4
//     while $v < $end)
//   (memory (export "memory") 1)
// $bytes (the stride) is a multiple of 16 (dimensions padded with zeros) and $count at least 1.

const ZERO_V128 = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
const BODY = [
  0x02, 0x03, 0x7f, 0x02, 0x7b, // locals: 3 x i32, 2 x v128
  0x20, 0x01, 0x20, 0x02, 0x20, 0x03, 0x6c, 0x6a, 0x21, 0x05, // end = v + count * bytes
  0x03, 0x40, // loop (vectors)
  ...ZERO_V128, 0x21, 0x08,
  ...ZERO_V128, 0x21, 0x09,
  0x20, 0x01, 0x20, 0x03, 0x6a, 0x21, 0x06, // vend = v + bytes
  0x20, 0x00, 0x21, 0x07, // qp = q
  0x03, 0x40, // loop (dimensions, 16 at a time)
  0x20, 0x08, 0x20, 0x01, 0xfd, 0x00, 0x04, 0x00, 0xfd, 0x87, 0x01, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x00, 0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01, 0x21, 0x08,
  0x20, 0x09, 0x20, 0x01, 0xfd, 0x00, 0x04, 0x00, 0xfd, 0x88, 0x01, 0x20, 0x07, 0xfd, 0x00, 0x04, 0x10, 0xfd, 0xba, 0x01, 0xfd, 0xae, 0x01, 0x21, 0x09,
  0x20, 0x01, 0x41, 0x10, 0x6a, 0x21, 0x01, // v += 16
  0x20, 0x07, 0x41, 0x20, 0x6a, 0x21, 0x07, // qp += 32
  0x20, 0x01, 0x20, 0x06, 0x49, 0x0d, 0x00, // while v < vend
  0x0b,
  0x20, 0x08, 0x20, 0x09, 0xfd, 0xae, 0x01, 0x21, 0x08, // a += b
  0x20, 0x04,
  0x20, 0x08, 0xfd, 0x1b, 0x00, 0x20, 0x08, 0xfd, 0x1b, 0x01, 0x6a, 0x20, 0x08, 0xfd, 0x1b, 0x02, 0x6a, 0x20, 0x08, 0xfd, 0x1b, 0x03, 0x6a,
  0x36, 0x02, 0x00, // i32.store out
  0x20, 0x04, 0x41, 0x04, 0x6a, 0x21, 0x04, // out += 4
  0x20, 0x01, 0x20, 0x05, 0x49, 0x0d, 0x00, // while v < end
  0x0b,
  0x0b,
];

const section = (id: number, content: number[]): number[] => [id, ...leb128(content.length), ...content];
const name = (text: string): number[] => [text.length, ...Array.from(text, (c) => c.charCodeAt(0))];

function leb128(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]),
  ...section(3, [0x01, 0x00]),
  ...section(5, [0x01, 0x00, 0x01]),
  ...section(7, [0x02, ...name("scores"), 0x00, 0x00, ...name("memory"), 0x02, 0x00]),
  ...section(10, [0x01, ...leb128(BODY.length), ...BODY]),
]);

/** Dimensions are padded to a multiple of this (one 16-byte SIMD load). */
export const VECTOR_LANES = 16;
const PAGE = 65_536;
const QUANT = 127;

// The part of the WebAssembly API used here (the project's TypeScript lib has no DOM types).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}
type ScoresFn = (q: number, v: number, count: number, bytes: number, out: number) => void;

let compiled: object | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is missing (then scans run in JavaScript). */
function wasmModule(): object | null {
  if (compiled === undefined) {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    compiled = wasm?.validate(MODULE) ? new wasm.Module(MODULE) : null;
  }
  return compiled;
}

/**
 * Vectors of one width quantized to int8 (each by its own scale) and kept side by side, scored
 * against a query by approximate dot product. Slots are dense: removing a vector moves the last into its slot.
 */
export class VectorScanner {
  /** Bytes per stored vector (the dimensions rounded up to VECTOR_LANES). */
  readonly stride: number;
  private count = 0;
  private capacity = 0;
  private scales = new Float32Array(0);
  private readonly memory: WasmMemory | undefined;
  private readonly scoresFn: ScoresFn | undefined;
  private js = new ArrayBuffer(0);

  constructor(readonly dimensions: number) {
    this.stride = Math.ceil(dimensions / VECTOR_LANES) * VECTOR_LANES;
    const module = wasmModule();
    if (module) {
      const instance = new (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly.Instance(module);
      this.memory = instance.exports.memory as WasmMemory;
      this.scoresFn = instance.exports.scores as ScoresFn;
    }
    this.reserve(0);
  }

  /** Vectors held. */
  get size(): number {
    return this.count;
  }

  /** Puts `vector` (`dimensions` long) in `slot` (at most size: size appends). */
  set(slot: number, vector: ArrayLike<number>): void {
    if (slot === this.count) this.reserve(++this.count);
    const bytes = new Int8Array(this.buffer());
    const at = this.vectorsOffset() + slot * this.stride;
    bytes.fill(0, at, at + this.stride);
    const scale = maxAbs(vector, this.dimensions) / QUANT;
    this.scales[slot] = scale;
    if (scale === 0) return;
    for (let d = 0; d < this.dimensions; d++) bytes[at + d] = Math.round((vector[d] ?? 0) / scale);
  }

  /** Moves the last vector into `slot` and drops the last. */
  removeMovingLast(slot: number): void {
    const last = this.count - 1;
    if (slot !== last) {
      const base = this.vectorsOffset();
      new Int8Array(this.buffer()).copyWithin(base + slot * this.stride, base + last * this.stride, base + (last + 1) * this.stride);
      this.scales[slot] = this.scales[last] as number;
    }
    this.count = last;
  }

  /** Drops every vector. */
  clear(): void {
    this.count = 0;
  }

  /**
   * Approximate dot product of `query` with every vector, by slot, in `into` (reallocated when short);
   * returns the array holding them (only the first `size` entries are meaningful).
   */
  scores(query: ArrayLike<number>, into?: Float32Array): Float32Array {
    const out = into && into.length >= this.count ? into : new Float32Array(Math.max(this.count, 1));
    if (this.count === 0) return out;
    const buffer = this.buffer();
    const q = new Int16Array(buffer, 0, this.stride);
    q.fill(0);
    const qScale = maxAbs(query, this.dimensions) / QUANT;
    if (qScale === 0) return out.fill(0, 0, this.count);
    for (let d = 0; d < this.dimensions; d++) q[d] = Math.round((query[d] ?? 0) / qScale);
    const vectors = this.vectorsOffset();
    const outAt = vectors + this.capacity * this.stride;
    if (this.scoresFn) this.scoresFn(0, vectors, this.count, this.stride, outAt);
    else scanInJs(new Int8Array(buffer), q, this.stride, vectors, this.count, new Int32Array(buffer, outAt, this.count));
    const raw = new Int32Array(buffer, outAt, this.count);
    const scales = this.scales;
    for (let i = 0; i < this.count; i++) out[i] = (raw[i] as number) * (scales[i] as number) * qScale;
    return out;
  }

  private vectorsOffset(): number {
    return this.stride * 2;
  }

  private buffer(): ArrayBuffer {
    return this.memory ? this.memory.buffer : this.js;
  }

  /** Room for `count` vectors (and their scores), growing by half again when short. */
  private reserve(count: number): void {
    if (count <= this.capacity && this.capacity > 0) return;
    const capacity = Math.max(count, Math.ceil(this.capacity * 1.5), 256);
    // Query (int16), vectors (int8), scores (int32, 4-byte aligned since the stride is a multiple of 16).
    const bytes = this.vectorsOffset() + capacity * this.stride + capacity * 4;
    if (this.memory) {
      if (bytes > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((bytes - this.memory.buffer.byteLength) / PAGE));
    } else {
      const grown = new ArrayBuffer(bytes);
      new Int8Array(grown).set(new Int8Array(this.js, 0, Math.min(this.js.byteLength, this.vectorsOffset() + this.capacity * this.stride)));
      this.js = grown;
    }
    const scales = new Float32Array(capacity);
    scales.set(this.scales.subarray(0, Math.min(this.scales.length, capacity)));
    this.scales = scales;
    this.capacity = capacity;
  }
}

function maxAbs(vector: ArrayLike<number>, dimensions: number): number {
  let max = 0;
  for (let d = 0; d < dimensions; d++) {
    const x = Math.abs(vector[d] ?? 0);
    if (x > max) max = x;
  }
  return Number.isFinite(max) ? max : 0;
}

function scanInJs(bytes: Int8Array, q: Int16Array, stride: number, vectors: number, count: number, out: Int32Array): void {
  for (let i = 0, at = vectors; i < count; i++, at += stride) {
    let sum = 0;
    for (let d = 0; d < stride; d++) sum += (bytes[at + d] as number) * (q[d] as number);
    out[i] = sum;
  }
}
