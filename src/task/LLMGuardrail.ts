// The LLM guardrail is shared with the agent's own guardrail; it lives in src/agent/LLMGuardrail.ts.
export { llmGuardrail, llmGuardrailVerdictSchema, type LLMGuardrailFunction, type LLMGuardrailOptions } from "../agent/LLMGuardrail.js";
