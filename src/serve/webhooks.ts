import type { KickoffWebhooks, RunEvent, RunStatus } from "./types.js";

/** How long a webhook may take before it is given up (it never holds up the run). */
const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Tells a kickoff's webhooks what happens (CrewAI's taskWebhookUrl, stepWebhookUrl, crewWebhookUrl):
 * JSON POSTs sent in the background, in order per URL; a failing webhook is reported on stderr once
 * per kickoff and never fails the run.
 */
export class WebhookNotifier {
  private chain: Promise<void> = Promise.resolve();
  private warned = false;

  constructor(
    private readonly kickoffId: string,
    private readonly webhooks: KickoffWebhooks,
  ) {}

  /** Whether any webhook is set (callers skip the work otherwise). */
  static wanted(webhooks: KickoffWebhooks | undefined): webhooks is KickoffWebhooks {
    return !!webhooks && !!(webhooks.crewWebhookUrl || webhooks.taskWebhookUrl || webhooks.stepWebhookUrl);
  }

  /** Sends task and step events to their webhooks. */
  event(event: RunEvent): void {
    if (event.type === "task_completed" && this.webhooks.taskWebhookUrl) this.post(this.webhooks.taskWebhookUrl, { kickoff_id: this.kickoffId, event });
    else if (event.type === "agent_logs_execution" && this.webhooks.stepWebhookUrl) this.post(this.webhooks.stepWebhookUrl, { kickoff_id: this.kickoffId, event });
  }

  /** Sends the final status to the crew webhook; resolves when every POST of this kickoff is done. */
  async end(status: RunStatus): Promise<void> {
    if (this.webhooks.crewWebhookUrl) this.post(this.webhooks.crewWebhookUrl, { kickoff_id: this.kickoffId, ...status });
    await this.chain;
  }

  private post(url: string, body: unknown): void {
    this.chain = this.chain.then(async () => {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        });
        await response.body?.cancel();
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
      } catch (error) {
        if (this.warned) return;
        this.warned = true;
        // The URL's origin only: a query string may hold a token.
        const origin = URL.canParse(url) ? new URL(url).origin : "(bad URL)";
        process.stderr.write(`crewts: a webhook of kickoff ${this.kickoffId} at ${origin} failed: ${(error as Error).message}\n`);
      }
    });
  }
}
