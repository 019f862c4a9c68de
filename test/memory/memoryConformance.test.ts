import { afterAll, beforeAll } from "vitest";
import { resolveEmbedder } from "../../src/knowledge/embedders/resolveEmbedder.js";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { ExternalMemory } from "../../src/memory/ExternalMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { Mem0Provider } from "../../src/memory/Mem0Provider.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../../src/testing/index.js";
import { storageFile, unwritablePath } from "./helpers.js";
import { startFakeMem0, type FakeMem0Server } from "./mem0Server.js";
import { describeMemory } from "./memoryConformance.js";

let embeddings: MockOpenAIServer;
let mem0: FakeMem0Server;
beforeAll(async () => {
  embeddings = await startMockOpenAIServer();
  mem0 = await startFakeMem0();
});
afterAll(async () => {
  await embeddings.close();
  await mem0.close();
});

describeMemory("ShortTermMemory (keyword)", {
  open: async (name) => new ShortTermMemory({ path: storageFile(`${name}-short.db`) }),
  failing: async () => new ShortTermMemory({ path: unwritablePath() }),
});

describeMemory("ShortTermMemory (hybrid, embeddings over HTTP)", {
  open: async (name) =>
    new ShortTermMemory({
      path: storageFile(`${name}-short-hybrid.db`),
      embedder: resolveEmbedder({ provider: "openai", model: "text-embedding-3-small", baseURL: embeddings.url, apiKey: "test", dimensions: 64 }),
    }),
  failing: async () => new ShortTermMemory({ path: unwritablePath(), embedder: { provider: "openai", model: "text-embedding-3-small", baseURL: embeddings.url, apiKey: "test", dimensions: 64 } }),
});

describeMemory("EntityMemory", {
  open: async (name) => new EntityMemory({ path: storageFile(`${name}-entity.db`) }),
  failing: async () => new EntityMemory({ path: unwritablePath() }),
  toValue: (text, index) => ({ name: `Topic${index}`, type: "note", description: text }),
});

describeMemory("LongTermMemory", {
  open: async (name) => new LongTermMemory({ path: storageFile(`${name}-long.db`) }),
  failing: async () => new LongTermMemory({ path: unwritablePath() }),
});

describeMemory("ExternalMemory over Mem0Provider", {
  open: async (name) => new ExternalMemory({ provider: new Mem0Provider({ apiKey: mem0.apiKey, baseURL: mem0.url, userId: name }) }),
  failing: async () => {
    mem0.failAdds.push(503);
    return new ExternalMemory({ provider: new Mem0Provider({ apiKey: mem0.apiKey, baseURL: mem0.url, userId: "failing" }) });
  },
});
