import { SESSION_ENDED_REASON, SIGNED_OUT_REASON } from '../../../common/account-changes/account-changes.js'
import type { JsonAnswer } from '../../../common/http/accounts-answers.js'
import { AUTH_COOKIE, REFRESH_COOKIE } from '../../../common/sessions/session-cookies.js'
import type { AccountsCall } from '../no-script/accounts-call.js'

/** What a call answers when no token is left to bear: as the service answers a token it does not take. */
const NO_TOKEN: JsonAnswer = { kind: 'json', status: 401, body: { reason: SIGNED_OUT_REASON } }

/** The service did not take the token (docs/account-changes.md: `signed_out`): it may only have expired. */
const tokenRefused = (answer: JsonAnswer): boolean => answer.kind === 'json' && answer.status === 401 && answer.body.reason === SIGNED_OUT_REASON

/**
 * Whether an answer says the visitor has no session to act for: a token the
 * service does not take (after a refresh, where one could be tried) or a
 * session that has ended. A 401 without either reason (a wrong current
 * password) is an ordinary refusal.
 */
export function sessionGone (answer: JsonAnswer): boolean {
  return answer.kind === 'json' && answer.status === 401 && (answer.body.reason === SIGNED_OUT_REASON || answer.body.reason === SESSION_ENDED_REASON)
}

/**
 * The account's own calls for one request of the visitor (the account view,
 * its forms): each bears the `auth` cookie's token. The auth token lives 15
 * minutes where the session lives 14 days: when the service does not take
 * it (401 `signed_out`), or there is no `auth` cookie, the token is refreshed once through
 * `token/refresh` (the edge's proxy fills the `refresh` cookie in and sets the
 * new one, server/edge/sessions/token-answers.ts) and the call made again; the new
 * auth token is handed to `onRefreshed`, which writes its cookie as the page would.
 */
export interface SignedInCalls {
  /** Whether the visitor has a token cookie at all: without one the view asks for a sign-in first. */
  readonly signedIn: boolean
  /** An accounts call bearing the account's token; {@link sessionGone} when there is no session to act for. */
  call (path: string, payload?: Readonly<Record<string, unknown>>): Promise<JsonAnswer>
  /** The auth token the calls bear now: the cookie's, or the one refreshed on the way. */
  token (): string | undefined
}

export interface SignedInCallsOptions {
  readonly callAccounts: AccountsCall
  /** The value of the visitor's cookie called `name`. */
  readonly cookie: (name: string) => string | undefined
  /** A token refreshed on the way: the caller sets the `auth` cookie the page would (server/edge/sessions/set-cookie-headers.ts pageTokenCookies). */
  readonly onRefreshed: (auth: string) => void
}

export function signedInCalls ({ callAccounts, cookie, onRefreshed }: SignedInCallsOptions): SignedInCalls {
  let auth = cookie(AUTH_COOKIE)
  const canRefresh = cookie(REFRESH_COOKIE) !== undefined
  let refreshing: Promise<string | undefined> | null = null

  // Once per request: the refresh token rotates, and a second refresh would present the spent one.
  const refreshed = async (): Promise<string | undefined> => {
    refreshing ??= (async () => {
      const answer = await callAccounts('token/refresh', {})
      const token = answer.kind === 'json' && answer.status === 200 && typeof answer.body.auth === 'string' && answer.body.auth !== '' ? answer.body.auth : undefined
      if (token !== undefined) onRefreshed(token)
      return token
    })()
    return await refreshing
  }

  return {
    signedIn: auth !== undefined || canRefresh,
    token: () => auth,
    async call (path, payload = {}) {
      if (auth !== undefined) {
        const answer = await callAccounts(path, payload, auth)
        // Refreshed once already, or nothing to refresh with: the refusal stands.
        if (!tokenRefused(answer) || !canRefresh || refreshing !== null) return answer
      } else if (!canRefresh) {
        return NO_TOKEN
      }
      const token = await refreshed()
      if (token === undefined) return NO_TOKEN
      auth = token
      return await callAccounts(path, payload, token)
    }
  }
}
