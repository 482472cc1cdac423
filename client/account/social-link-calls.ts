import type { LinkedSocialProvider } from '../../common/social/social-providers.js'
import type { JsonAnswer } from '../../common/http/accounts-answers.js'
import { LAST_WAY_IN_REASON, parseSocialStartAnswer } from '../../common/social/social-answers.js'
import { isProviderUrl } from '../../common/http/provider-url.js'
import { parseChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import { postJson } from '../http/post-json.js'
import type { AccountAnswer } from './account-calls.js'
import { parseSuccessAnswer } from '../../common/http/accounts-answers.js'
import { parseLinkedProviders } from '../../common/social/linked-social-providers.js'

/*
 * The account view's calls for its sign-in methods (docs/social-sign-in.md):
 * connect a provider (its leg, then the return's completion) and disconnect
 * one, with the account's auth token as the bearer; the `social_state`
 * cookie binds the provider's round trip to this browser.
 */

/** A connection's start: where to go, or why not. */
export type LinkStartAnswer = { readonly kind: 'redirect', readonly url: string } | Exclude<AccountAnswer, { kind: 'success' }>

function changeAnswer (answer: JsonAnswer): AccountAnswer {
  return parseChangeRefusal(answer) ?? parseSuccessAnswer(answer)
}

/** `account/social/link/start` (proof): the provider's authorization address, followed only where isProviderUrl allows. */
export async function startLink (auth: string, provider: string): Promise<LinkStartAnswer> {
  const answer = await postJson('/accounts/account/social/link/start', { provider }, { bearer: auth, credentials: 'include' })
  const refusal = parseChangeRefusal(answer)
  if (refusal !== null) return refusal
  const parsed = parseSocialStartAnswer(answer)
  return parsed.kind === 'redirect' && !isProviderUrl(parsed.url) ? { kind: 'failed' } : parsed
}

/** `account/social/link`: completes a connection with the single-use id of its return. */
export async function completeLink (auth: string, id: string): Promise<AccountAnswer> {
  return changeAnswer(await postJson('/accounts/account/social/link', { id }, { bearer: auth, credentials: 'include' }))
}

/** `account/social/unlink` (proof); a 409 with LAST_WAY_IN_REASON is `last-way-in`: nothing else would sign in. */
export async function unlink (auth: string, provider: string): Promise<AccountAnswer | { readonly kind: 'last-way-in' }> {
  const answer = await postJson('/accounts/account/social/unlink', { provider }, { bearer: auth })
  if (answer.kind === 'json' && answer.status === 409 && answer.body.reason === LAST_WAY_IN_REASON) return { kind: 'last-way-in' }
  return changeAnswer(answer)
}

/** `account/overview`'s `social`, as it is now (after a connection), or null when the answer names none. */
export async function linkedProviders (auth: string): Promise<readonly LinkedSocialProvider[] | null> {
  const answer = await postJson('/accounts/account/overview', {}, { bearer: auth })
  return answer.kind === 'json' && answer.status === 200 ? parseLinkedProviders(answer.body.social) : null
}
