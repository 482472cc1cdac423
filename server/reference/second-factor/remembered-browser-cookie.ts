import { createHmac, timingSafeEqual } from 'node:crypto'
import { cookieValue } from '../http/cookie-header.js'
import { ACCOUNTS_PATH } from '../http/exposed-routes.js'

/**
 * The `second_factor_browser` cookie (docs/second-factor.md): "don't ask
 * for a code again on this browser for 30 days". It holds when it was
 * issued and an HMAC of that time with the account's id, under a derived
 * key: it proves nothing for another account, cannot be made without the
 * key, and the store's per-account "forgotten at" time (a password reset,
 * the admin command) voids every one issued before, with no list to keep.
 */

export const REMEMBERED_BROWSER_COOKIE = 'second_factor_browser'
export const REMEMBERED_BROWSER_PURPOSE = 'second-factor-remembered-browser'
/** How long a remembered browser is spared the code step. */
export const REMEMBER_BROWSER_MS = 30 * 24 * 3600_000

const VALUE_FORMAT = /^(\d{1,15})\.([\w-]{43})$/

export class RememberedBrowserCookies {
  constructor (private readonly key: Buffer) {}

  private mac (accountId: string, issuedAt: number): string {
    return createHmac('sha256', this.key).update(`${accountId}.${issuedAt}`).digest('base64url')
  }

  /** The Set-Cookie value that remembers the browser for `accountId` from `now`. */
  setCookie (accountId: string, now: number): string {
    return `${REMEMBERED_BROWSER_COOKIE}=${now}.${this.mac(accountId, now)}; Max-Age=${REMEMBER_BROWSER_MS / 1000}; Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=Lax`
  }

  /**
   * Whether the Cookie header holds a cookie issued for `accountId` after
   * `forgottenAt` and less than 30 days before `now`.
   */
  remembers (cookieHeader: string | undefined, accountId: string, forgottenAt: number, now: number): boolean {
    const value = cookieValue(cookieHeader, REMEMBERED_BROWSER_COOKIE)
    const match = value === undefined ? null : VALUE_FORMAT.exec(value)
    if (match === null) return false
    const issuedAt = Number(match[1])
    const expected = Buffer.from(this.mac(accountId, issuedAt))
    if (!timingSafeEqual(Buffer.from(match[2]!), expected)) return false
    return issuedAt > forgottenAt && issuedAt <= now && now - issuedAt < REMEMBER_BROWSER_MS
  }
}
