import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStreamDemo, type StreamDemo } from "../../examples/stream-sse.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
});

describe("examples/stream-sse.ts", () => {
  it("shows the crew's text in the browser before the crew has finished", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The mock model sends its first words, then holds the rest of the reply until the test has
    // seen text on the page: the crew cannot finish before the page shows its first chunk.
    const demo: StreamDemo = await startStreamDemo({ beforeStreamEvent: ({ index }) => (index >= 3 ? released : undefined) });
    const page = await browser.newPage();
    try {
      await page.goto(`${demo.url}?topic=rivers`);
      await page.waitForFunction('document.getElementById("output").textContent.length > 0');
      expect(await page.textContent("#output")).toBe("Server-sent events ");
      expect(await page.textContent("#status")).toBe("running");
      release();
      await page.waitForFunction('document.getElementById("status").textContent.startsWith("done")');
      const sentence = "Server-sent events about rivers arrive one word at a time, so readers see progress at once.";
      expect(await page.textContent("#output")).toBe(sentence);
      expect(await page.textContent("#status")).toBe(`done: ${sentence}`);
    } finally {
      release();
      await page.close();
      await demo.close();
    }
  });
});
