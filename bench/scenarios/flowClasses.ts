// crewts flow classes for the flow scenarios. A chain of 1000 methods cannot be written by hand, so
// the classes are built by applying the public decorators (start, listen, router, persist) to generated
// methods, exactly as the TC39 decorator runtime applies them to written ones.
import { and, Flow, listen, persist, router, start, type FlowMethodDecorator } from "../../src/index.js";

/** The state of every bench flow: a step counter and a fan-in counter. */
export interface BenchFlowState {
  n: number;
  count: number;
}

type Method = (this: BenchFlow) => unknown;

/** The base of the generated flows. */
export abstract class BenchFlow extends Flow<BenchFlowState> {
  override initialState = { n: 0, count: 0 };
}

type BenchFlowClass = new (...args: ConstructorParameters<typeof Flow>) => BenchFlow;

function methodContext(name: string): ClassMethodDecoratorContext {
  return {
    kind: "method",
    name,
    static: false,
    private: false,
    access: { has: () => true, get: () => undefined },
    addInitializer: () => undefined,
    metadata: {},
  } as unknown as ClassMethodDecoratorContext;
}

function defineMethod(cls: BenchFlowClass, name: string, fn: Method, ...decorators: FlowMethodDecorator[]): void {
  Object.defineProperty(fn, "name", { value: name });
  // Decorators apply bottom-up, as when stacked in source.
  for (const decorate of [...decorators].reverse()) decorate(fn as (this: unknown) => unknown, methodContext(name) as never);
  Object.defineProperty(cls.prototype, name, { value: fn, writable: true, configurable: true });
}

/** A class-level `@persist()`: every method saves the state, to the backend given to the instance. */
function persisted(cls: BenchFlowClass, name: string): BenchFlowClass {
  const sub = { [name]: class extends cls {} }[name]!;
  persist()(sub, { kind: "class", name, addInitializer: () => undefined, metadata: {} } as unknown as ClassDecoratorContext);
  return sub;
}

/** m0 (start) -> m1 -> ... -> m(N-1); each increments `n`. */
export function chainFlow(steps: number, withPersistence: boolean): BenchFlowClass {
  const cls = { ChainFlow: class extends BenchFlow { override maxMethodCalls = 10; } }.ChainFlow;
  for (let i = 0; i < steps; i++) {
    defineMethod(cls, `m${i}`, function () { this.state.n++; }, i === 0 ? start() : listen(`m${i - 1}`));
  }
  return withPersistence ? persisted(cls, "PersistedChainFlow") : cls;
}

/** fan (start) -> b0..b(W-1) concurrently (each adds 1 after an await) -> join on and(b0..b(W-1)). */
export function fanOutFlow(width: number, withPersistence: boolean): BenchFlowClass {
  const cls = { FanOutFlow: class extends BenchFlow {} }.FanOutFlow;
  const branches = Array.from({ length: width }, (_, i) => `b${i}`);
  defineMethod(cls, "fan", function () { return undefined; }, start());
  for (const b of branches) {
    defineMethod(cls, b, async function () { await Promise.resolve(); this.state.count++; }, listen("fan"));
  }
  defineMethod(cls, "join", function () { this.state.n = this.state.count; }, listen(and(...branches)));
  return withPersistence ? persisted(cls, "PersistedFanOutFlow") : cls;
}

/** step (conditional start on "loop") <-> router decide, which emits "loop" until `n` reaches `iterations`, then "done". */
export function loopFlow(iterations: number, withPersistence: boolean): BenchFlowClass {
  const cls = { LoopFlow: class extends BenchFlow { override maxMethodCalls = iterations + 1; } }.LoopFlow;
  defineMethod(cls, "step", function () { this.state.n++; }, start("loop"));
  defineMethod(cls, "decide", function () { return this.state.n < iterations ? "loop" : "done"; }, router("step", { emit: ["loop", "done"] }));
  return withPersistence ? persisted(cls, "PersistedLoopFlow") : cls;
}
