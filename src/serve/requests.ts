import { z } from "zod";

const httpUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), { message: "must be an http(s) URL" });

// Input values a crew can interpolate: null and undefined fail in tasks, so they are refused up front.
const inputValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** The body of POST /kickoff. */
export const kickoffBodySchema = z
  .object({
    inputs: z.record(z.string(), inputValue).default({}),
    webhooks: z
      .object({ crewWebhookUrl: httpUrl.optional(), taskWebhookUrl: httpUrl.optional(), stepWebhookUrl: httpUrl.optional() })
      .strict()
      .optional(),
  })
  .strict();

/** The body of POST /resume. */
export const resumeBodySchema = z.object({ kickoff_id: z.string().min(1).max(200), feedback: z.string().max(100_000) }).strict();

/** A zod error as one line naming each bad field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message)).join("; ");
}
