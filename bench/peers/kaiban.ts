// KaibanJS, the CrewAI-style teams of JavaScript, driven by a fake LangChain chat model. KaibanJS
// bundles its own copy of LangChain and accepts any LangChain chat model as an agent's
// `llmInstance`; the fake extends BaseChatModel from the @langchain/core version KaibanJS depends
// on (0.3.x; the top-level one is LangGraph's 1.x), and answers every call with a final answer
// in KaibanJS's JSON protocol, after an optional timer-based latency.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type * as ChatModels from "@langchain/core/language_models/chat_models";
import type * as Messages from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type * as KaibanJS from "kaibanjs";

// KaibanJS sends usage telemetry unless opted out; the variable is read when the module loads.
process.env.KAIBAN_TELEMETRY_OPT_OUT ??= "true";

const require = createRequire(import.meta.url);
const kaibanEntry = require.resolve("kaibanjs");
const coreDir = dirname(createRequire(kaibanEntry).resolve("@langchain/core/package.json"));
const importCore = async <T>(subpath: string): Promise<T> => (await import(pathToFileURL(join(coreDir, `${subpath}.js`)).href)) as T;

/** The chat model type KaibanJS accepts (from its own @langchain/core), with the fake's call counter. */
export type FakeChatModel = NonNullable<KaibanJS.IAgentParams["llmInstance"]> & { calls: number };

/** The KaibanJS module and a factory of fake chat models, loaded on first use. */
export interface KaibanKit {
  kaiban: typeof KaibanJS;
  /** A chat model answering `{"finalAnswer": answer}`; `calls` counts its invocations. */
  fakeModel: (options?: { latencyMs?: number; answer?: string }) => FakeChatModel;
}

let kit: Promise<KaibanKit> | undefined;

/** Loads KaibanJS and the matching @langchain/core once. */
export function loadKaiban(): Promise<KaibanKit> {
  return (kit ??= (async () => {
    const kaiban = await import("kaibanjs");
    const { BaseChatModel } = await importCore<typeof ChatModels>("language_models/chat_models");
    const { AIMessage } = await importCore<typeof Messages>("messages");

    // Typed with the top-level @langchain/core (1.x); at run time it extends KaibanJS's 0.3.x copy, whose API is the same here.
    class BenchFakeChatModel extends BaseChatModel {
      calls = 0;
      constructor(
        private readonly latencyMs: number,
        private readonly answer: string,
      ) {
        super({});
      }
      _llmType(): string {
        return "bench-fake";
      }
      async _generate(): Promise<ChatResult> {
        this.calls++;
        if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
        const text = JSON.stringify({ finalAnswer: this.answer });
        const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
        return { generations: [{ text, message: new AIMessage({ content: text, usage_metadata: usage }) }], llmOutput: {} };
      }
    }

    return {
      kaiban,
      fakeModel: (options = {}) => new BenchFakeChatModel(options.latencyMs ?? 0, options.answer ?? "done") as unknown as FakeChatModel,
    };
  })());
}
