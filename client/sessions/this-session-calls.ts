import { postJson } from '../http/post-json.js'

/*
 * This browser's own session, as the signed-in state (SignedIn.tsx) uses
 * it: one plain async function per call. Both name no token: the edge fills
 * in the `refresh` cookie's, which no script can read (docs/security.md,
 * "The token cookies"). Loaded with that state's chunk only.
 */

/**
 * `token/refresh`: a new auth token where the refresh token still lives (the
 * edge sets the cookies with the answer), else null: no live session.
 */
export async function refreshThisSession (): Promise<string | null> {
  const answer = await postJson('/accounts/token/refresh', {})
  return answer.kind === 'json' && answer.status === 200 && typeof answer.body.auth === 'string' ? answer.body.auth : null
}

/**
 * `token/revoke`: the session ends at the accounts service, and the edge
 * removes both token cookies. True when nothing is left to end: revoked, or
 * refused for a token the service does not take (none, or one it no longer
 * knows); false when the call failed (no answer, a server error, 429), and
 * the session may live on.
 */
export async function endThisSession (): Promise<boolean> {
  const answer = await postJson('/accounts/token/revoke', {})
  return answer.kind === 'json' && answer.status < 500 && answer.status !== 429
}
