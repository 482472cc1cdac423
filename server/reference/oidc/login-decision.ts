import type { AuthTokenClaims } from '../sessions/tokens.js'
import { ACR, ACR_VALUES, acrOf, meets, type AcrValue } from './acr.js'

/** What an authorization request asks of the sign-in, from its parameters. */
export interface LoginRequest {
  /** `prompt` included `login`. */
  readonly promptLogin: boolean
  /** `max_age` in seconds, if given. */
  readonly maxAge: number | null
  /** Acceptable classes, from `acr_values` or the `claims` parameter's `acr`. */
  readonly acrs: readonly string[]
  /** The `claims` parameter marked the acr essential: unmet, the request ends rather than goes on. */
  readonly acrEssential: boolean
  /** Epoch seconds at which the request began (its interaction's start). */
  readonly startedAt: number
  /**
   * The page session the visitor had when this request last sent them to
   * the page (`sessionId` null: none); absent until it has. A sign-in counts
   * as made for the request only after such a trip, and only as another
   * session than that one: seconds alone cannot tell a sign-in made just
   * before the request from one made just after.
   */
  readonly sentToPageFrom?: { readonly sessionId: string | null }
}

/** The provider's login result for a session (oidc-provider's InteractionResults.login). */
interface LoginResult {
  readonly accountId: string
  readonly acr: AcrValue
  readonly amr: string[]
  readonly ts: number
  readonly remember: true
}

export type LoginDecision =
  | { readonly kind: 'finish', readonly login: LoginResult }
  /** To the page to sign in; `stepUp`: with the mark that asks for the second factor. */
  | { readonly kind: 'page', readonly stepUp: boolean }
  | { readonly kind: 'unmet' }

/**
 * Whether the page's session, if any, finishes the login now, or the visitor
 * goes to the page (docs/oidc-provider.md#the-page-is-the-sign-in-screen). A
 * new sign-in on the page the request sent the visitor to satisfies
 * `prompt=login` and `max_age`, and ends the trips for a stronger class:
 * one trip to the page, never a loop; what it reached is what the login
 * states, unless the class was essential.
 */
export function decideLogin (session: AuthTokenClaims | null, request: LoginRequest, nowSeconds: number): LoginDecision {
  const wantsStepUp = request.acrs.length > 0 && !request.acrs.some((asked) => meets(ACR.oneFactor, asked))
  if (session === null) return { kind: 'page', stepUp: wantsStepUp }
  const fresh = request.sentToPageFrom !== undefined && session.sessionId !== request.sentToPageFrom.sessionId &&
    session.authTime >= request.startedAt
  if (!fresh && request.promptLogin) return { kind: 'page', stepUp: wantsStepUp }
  if (!fresh && request.maxAge !== null && nowSeconds - session.authTime > request.maxAge) return { kind: 'page', stepUp: wantsStepUp }
  const reached = acrOf(session.amr)
  const met = request.acrs.length === 0 || request.acrs.some((asked) => meets(reached, asked))
  if (!met && !fresh) return { kind: 'page', stepUp: true }
  if (!met && request.acrEssential) return { kind: 'unmet' }
  return { kind: 'finish', login: { accountId: session.accountId, acr: statedAcr(reached, request.acrs), amr: [...session.amr], ts: session.authTime, remember: true } }
}

/**
 * The class the login states: the one reached, or, where the request listed
 * weaker ones only, the strongest of those it meets (a passkey meets a request
 * for `mfa`), so that the ID token's `acr` is one the client asked for.
 */
function statedAcr (reached: AcrValue, asked: readonly string[]): AcrValue {
  if (asked.length === 0 || asked.includes(reached)) return reached
  const met = ACR_VALUES.filter((value) => asked.includes(value) && meets(reached, value))
  return met.at(-1) ?? reached
}

/** The request's acr wishes, from `acr_values` and the `claims` parameter's `id_token.acr`. */
export function requestedAcrs (acrValues: unknown, claims: unknown): { acrs: string[], essential: boolean } {
  const fromValues = typeof acrValues === 'string' ? acrValues.split(' ').filter(Boolean) : []
  const acr = (claims as { id_token?: { acr?: { essential?: unknown, value?: unknown, values?: unknown } } } | undefined)?.id_token?.acr
  if (acr === undefined || acr === null) return { acrs: fromValues, essential: false }
  const fromClaims = typeof acr.value === 'string' ? [acr.value] : Array.isArray(acr.values) ? acr.values.filter((value): value is string => typeof value === 'string') : []
  return { acrs: [...fromValues, ...fromClaims], essential: acr.essential === true && fromClaims.length > 0 }
}
