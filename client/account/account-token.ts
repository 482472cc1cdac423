import Cookies from 'js-cookie'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { AUTH_COOKIE } from '../../common/sessions/session-cookies.js'
import { storeSessionTokens } from '../sessions/session-cookies.js'
import { shownClaims } from '../sessions/signed-in-session.js'
import { refreshThisSession } from '../sessions/this-session-calls.js'

/** A token this close to its expiry is refreshed first: the call would outlive it. */
const EXPIRY_MARGIN_MS = 30_000

/**
 * The account's auth token for the view's calls: the `auth` cookie's while
 * it lives; else (expired, or HttpOnly: AUTH_COOKIE_HTTPONLY) a refreshed
 * one, whose cookie the page stores where it may, as a sign-in's. Null when
 * no session lives.
 */
export async function accountToken (config: Pick<RuntimeConfig, 'cookieDomain' | 'authCookieHttpOnly'>): Promise<string | null> {
  const token = Cookies.get(AUTH_COOKIE)
  const claims = token === undefined ? null : shownClaims(token)
  if (token !== undefined && claims !== null && claims.exp * 1000 > Date.now() + EXPIRY_MARGIN_MS) return token
  const auth = await refreshThisSession()
  if (auth !== null && !config.authCookieHttpOnly) storeSessionTokens({ auth }, config.cookieDomain)
  return auth
}
