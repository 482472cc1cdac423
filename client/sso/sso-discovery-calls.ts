import type { JsonAnswer } from '../../common/http/accounts-answers.js'
import { postJson } from '../http/post-json.js'

/*
 * SSO_DISCOVERY's call (docs/sso.md, "Found by the address"): whether the
 * address's domain signs in with single sign-on. The answer depends on the
 * domain alone, never on whether the address has an account.
 */

/** The answer: single sign-on for this domain (and whether it is the only way in), none, or nothing usable. */
export type SsoDiscoveryAnswer =
  | { readonly kind: 'sso', readonly required: boolean }
  | { readonly kind: 'none' }
  | { readonly kind: 'failed' }

function parseSsoDiscoveryAnswer (answer: JsonAnswer): SsoDiscoveryAnswer {
  if (answer.kind !== 'json' || answer.status !== 200) return { kind: 'failed' }
  if (answer.body.sso === true) return { kind: 'sso', required: answer.body.required === true }
  return answer.body.sso === false ? { kind: 'none' } : { kind: 'failed' }
}

/** `auth/sso/discover`. */
export async function discoverSso (email: string): Promise<SsoDiscoveryAnswer> {
  return parseSsoDiscoveryAnswer(await postJson('/accounts/auth/sso/discover', { email }))
}
