import { afterEach, vi } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { startMockOpenAIServer, type MockOpenAIServer, type MockServerOptions } from "../../src/testing/index.js";

/**
 * Registers an afterEach that closes every server started in the test, unstubs env vars and removes
 * event listeners; returns the function that starts a server.
 */
export function mockServerPerTest(): (options?: MockServerOptions) => Promise<MockOpenAIServer> {
  const servers: MockOpenAIServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    vi.unstubAllEnvs();
    eventBus.clear();
  });
  return async (options) => {
    const server = await startMockOpenAIServer(options);
    servers.push(server);
    return server;
  };
}
