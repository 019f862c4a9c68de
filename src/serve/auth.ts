import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";

/**
 * Whether the Authorization header carries `token`. Both sides are hashed first, so the comparison
 * takes the same time whatever the header holds (timingSafeEqual needs equal lengths; hashing gives
 * them and hides the token's length).
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? "")?.[1]?.trim() ?? "";
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b) && given.length > 0;
}

/** Whether `host` is only reachable from this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || /^::ffff:127\./i.test(bare);
  return false;
}

/** The server would listen beyond this machine without a token. */
export class ServerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServerConfigError";
  }
}
