import type { AccountOverview, AccountState } from '../../../common/account/account-state.js'
import type { JsonAnswer } from '../../../common/http/accounts-answers.js'
import { parseAccountOverview, parseActivityList, parsePasskeyList, parseSessionList } from './account-answers.js'
import { sessionGone, type SignedInCalls } from './signed-in-calls.js'

/** What the account view can show: its state; that there is no session (sign in first); or the service's failure. */
export type AccountStateFetch =
  | { readonly kind: 'state', readonly account: AccountState }
  | { readonly kind: 'signed-out' }
  | { readonly kind: 'failed', readonly answer: JsonAnswer }

/**
 * An overview for a backend that does not answer `account/overview` (404:
 * one from before accounts API 1.3.0): no feature, so the view offers what
 * needs none, signing out. The address is the auth token's, as the signed-in
 * state shows it (client/sessions/signed-in-session.ts), or ''.
 */
function featurelessOverview (email: string): AccountOverview {
  return {
    account: { email, firstName: null, lastName: null, emailVerified: false, hasPassword: false, google: false },
    secondFactor: { enrolled: false, recoveryCodesLeft: 0, rememberedBrowsers: 0 },
    features: []
  }
}

/**
 * The `email` claim of a JWT, read without checking its signature: only to
 * show the visitor the address of the token their own browser holds.
 */
function tokenEmail (token: string | undefined): string {
  const payload = token?.split('.')[1]
  if (payload === undefined) return ''
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown
    const email = claims !== null && typeof claims === 'object' ? (claims as Record<string, unknown>).email : undefined
    return typeof email === 'string' ? email : ''
  } catch {
    return ''
  }
}

/** A list the overview's features name, when the service answers it; null otherwise (the view shows its section without it). */
async function listIf<T> (served: boolean, calls: SignedInCalls, path: string, parse: (body: Readonly<Record<string, unknown>>) => T | null): Promise<T | null> {
  if (!served) return null
  const answer = await calls.call(path)
  return answer.kind === 'json' && answer.status === 200 ? parse(answer.body) : null
}

/** Which optional calls this edge forwards (PASSKEYS, SECOND_FACTOR): a backend's feature beyond them is not shown. */
export interface ForwardedFeatures {
  readonly passkeys: boolean
  readonly secondFactor: boolean
  /** SOCIAL_CONNECTIONS names a connection: the edge forwards SOCIAL_ROUTES, and knows the providers' names. */
  readonly social: boolean
}

/**
 * The account view's state (common/account/account-state.ts), as the edge
 * embeds it: `account/overview` first (refreshing the token if it has
 * expired), then, at once, the lists its `features` name. A session gone
 * (signed-in-calls.ts sessionGone) asks for a sign-in; a 404 a backend without the call (no feature); another
 * refusal or failure, or an overview that is not one, is the service's failure.
 */
export async function fetchAccountState (calls: SignedInCalls, forwarded: ForwardedFeatures): Promise<AccountStateFetch> {
  if (!calls.signedIn) return { kind: 'signed-out' }
  const answer = await calls.call('account/overview')
  if (sessionGone(answer)) return { kind: 'signed-out' }
  if (answer.kind === 'json' && answer.status === 404) {
    return { kind: 'state', account: { overview: featurelessOverview(tokenEmail(calls.token())), sessions: null, passkeys: null, activity: null } }
  }
  const parsed = answer.kind === 'json' && answer.status === 200 ? parseAccountOverview(answer.body) : null
  if (parsed === null) return { kind: 'failed', answer: answer.kind === 'json' && answer.status === 200 ? { kind: 'unreadable' } : answer }
  // A section whose calls this edge does not forward could neither load nor change anything: the view leaves it out.
  const overview = {
    ...parsed,
    features: parsed.features.filter((feature) => (feature !== 'passkeys' || forwarded.passkeys) && (feature !== 'second-factor' || forwarded.secondFactor) && (feature !== 'social' || forwarded.social))
  }
  const serves = new Set(overview.features)
  const [sessions, passkeys, activity] = await Promise.all([
    listIf(serves.has('sessions'), calls, 'sessions/list', parseSessionList),
    listIf(serves.has('passkeys'), calls, 'passkeys/list', parsePasskeyList),
    listIf(serves.has('activity'), calls, 'activity/list', parseActivityList)
  ])
  return { kind: 'state', account: { overview, sessions, passkeys, activity } }
}
