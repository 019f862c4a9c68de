import { describe, expect, it } from "vitest";
import { Flow, FlowRouterError, listen, router, start } from "../../src/flow/index.js";

class Grading extends Flow<{ score: number }> {
  override initialState = { score: 0 };
  @start() draft() {
    return "draft";
  }
  @router("draft", { emit: ["approved", "rejected"] }) grade() {
    return this.state.score > 5 ? "approved" : "maybe";
  }
  @listen("approved") publish() {
    return "published";
  }
}

describe("a router that declares emit", () => {
  it("fails clearly when it returns a label outside its emit list", async () => {
    const error = await new Grading().kickoff().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(FlowRouterError);
    expect((error as Error).message).toBe(
      'Router "grade" returned "maybe", which is not in its emit list ("approved", "rejected"), so no listener would run. Return one of those labels, or add "maybe" to emit in @router(..., { emit: [...] }).',
    );
  });

  it("runs as before when the label is declared", async () => {
    await expect(new Grading().kickoff({ score: 9 })).resolves.toBe("published");
  });
});
