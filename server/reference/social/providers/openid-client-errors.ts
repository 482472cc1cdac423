import * as oidc from 'openid-client'
import { quotedErrorCode } from './provider-answer.js'

/**
 * openid-client's error as a message that says what failed: the provider's own code from its token
 * endpoint, or the check the answer failed (which claim of the ID token, which parameter). The library's
 * fixed texts and names only: never a value of the answer (a claim may be the visitor's address).
 */
export function explainedOpenidError (provider: string, error: unknown): unknown {
  if (error instanceof oidc.ResponseBodyError) return new Error(`${provider}'s token endpoint answered ${quotedErrorCode(error.error)}`, { cause: error })
  if (!(error instanceof oidc.ClientError)) return error
  const detail = error.cause instanceof Error ? error.cause : error
  const { claim, parameter } = (detail.cause ?? {}) as { claim?: unknown, parameter?: unknown }
  const named = typeof claim === 'string' ? ` (claim ${claim})` : typeof parameter === 'string' ? ` (parameter ${parameter})` : ''
  return new Error(`${provider}'s answer did not verify: ${detail.message}${named}`, { cause: error })
}
