/**
 * The wire contract of the challenge the edge may ask for before it passes a
 * login, a registration, a reset or verification-link request on
 * (docs/challenge.md). Risk is judged by the edge, so the challenge guards
 * any accounts service behind it, the embedded one or an operator's own:
 *
 * 1. The page posts as usual. While risk is low nothing changes.
 * 2. When risk has risen, the edge answers {@link CHALLENGE_REQUIRED_STATUS}
 *    with a {@link ChallengeRequired} body instead of calling the backend.
 * 3. The page solves it (a proof of work in a Web Worker; or the widget of
 *    the operator's chosen provider) and posts the same call again with the
 *    solution in the {@link CHALLENGE_HEADER} header. The edge checks it (its
 *    signature, expiry, binding to this call, single use), removes the header
 *    and passes the call on.
 *
 * A form posted without scripts cannot solve one: the edge answers it with a
 * page that says the check needs scripts.
 */

/** 428 Precondition Required: the call may be made again once the challenge is solved. */
export const CHALLENGE_REQUIRED_STATUS = 428

/** The `reason` of a {@link ChallengeRequired} answer. */
export const CHALLENGE_REQUIRED_REASON = 'challenge_required'

/** The request header carrying a solution; never passed on to a backend. */
export const CHALLENGE_HEADER = 'x-threshold-challenge'

/** The longest header value the edge reads; a longer one is refused as malformed. */
export const CHALLENGE_HEADER_MAX_LENGTH = 4096

/**
 * The accounts calls (relative to `/accounts/`) a challenge may guard: the
 * logins (a password's, an emailed code's), and the calls that create an
 * account or send an email (a reset link, a new verification link, a
 * sign-in code), which a bot could otherwise use to send mail to anyone's
 * address.
 */
export const CHALLENGED_PATHS = ['v2/login', 'register', 'resetPasswordRequest', 'verifyEmailRequest', 'email-code/send', 'email-code/login'] as const
export type ChallengedPath = typeof CHALLENGED_PATHS[number]

/**
 * What the page is asked to solve.
 * - `pow`: an ALTCHA v2 challenge (altcha-lib's `Challenge` object, passed
 *   through as JSON); the header then carries base64url(JSON
 *   `{ challenge, solution }`), solution as altcha-lib's `Solution`.
 * - `turnstile` / `hcaptcha`: the provider's widget with this site key; the
 *   header then carries the provider's token.
 */
export type ChallengeSpec =
  | { readonly kind: 'pow', readonly challenge: Readonly<Record<string, unknown>> }
  | { readonly kind: 'turnstile' | 'hcaptcha', readonly siteKey: string }

/** The body of a 428 answer: the edge's usual `{ error }` (in the visitor's language) with the reason and the challenge. */
export interface ChallengeRequired {
  readonly error: string
  readonly reason: typeof CHALLENGE_REQUIRED_REASON
  readonly challenge: ChallengeSpec
}
