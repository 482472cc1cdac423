import type { AccountStore } from '../store/account-store.js'
import type { AuthenticationMethod } from '../sessions/tokens.js'

/**
 * An organisation's second-factor requirement (docs/second-factor.md#sessions-from-before-a-requirement)
 * applies to sessions already running, not only to the next sign-in: a
 * refresh is refused when a sign-in today would have to prove more than the
 * session's login did.
 */

/** The `reason` of the 401 that refuses such a refresh: the visitor signs in again, with a second factor. */
export const SECOND_FACTOR_REQUIRED_REASON = 'second_factor_required'

/**
 * How a session's login met the second factor, as its refresh tokens keep it:
 * its method and, for a password or Google sign-in whose code a remembered
 * browser skipped, that mark.
 */
export interface SecondFactorSession {
  readonly method: AuthenticationMethod
  readonly secondFactor?: 'remembered-browser'
}

/** The mark a login adds to its session's context when a remembered browser skipped its code. */
export const REMEMBERED_BROWSER_SESSION = Object.freeze({ secondFactor: 'remembered-browser' } as const)

/** The mark of a saved session, to carry into its next refresh token; empty when it has none. */
export function rememberedBrowserMark (session: SecondFactorSession): Partial<typeof REMEMBERED_BROWSER_SESSION> {
  return session.secondFactor === 'remembered-browser' ? REMEMBERED_BROWSER_SESSION : {}
}

/**
 * Whether a sign-in by each method satisfies a requirement, as a sign-in
 * today would be asked (docs/second-factor.md#when-a-second-factor-is-due):
 * a code after the password or Google (`+otp`) does. A passkey (user
 * verification required: two factors in one) and single sign-on (the
 * identity provider's own rules) are never asked for a code at sign-in, so
 * they are not at refresh either. A method added later must choose here.
 */
const METHOD_MEETS_SECOND_FACTOR: Readonly<Record<AuthenticationMethod, boolean>> = Object.freeze({
  pwd: false,
  google: false,
  email: false,
  'pwd+otp': true,
  'google+otp': true,
  'email+otp': true,
  social: false,
  'social+otp': true,
  hwk: true,
  sso: true
})

/**
 * Whether the login would satisfy a requirement today: by its method, or
 * from a remembered browser, which a sign-in today would not be asked a code
 * in either (and which earned its cookie with one).
 */
function metSecondFactor (session: SecondFactorSession): boolean {
  return METHOD_MEETS_SECOND_FACTOR[session.method] || session.secondFactor === 'remembered-browser'
}

/** Whether the session's refresh is refused: its login met no second factor, and an organisation of the account now requires one. */
export async function missesRequiredSecondFactor (store: Pick<AccountStore, 'secondFactorRequiredFor'>, accountId: string, session: SecondFactorSession): Promise<boolean> {
  return !metSecondFactor(session) && await store.secondFactorRequiredFor(accountId)
}
