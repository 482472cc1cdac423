import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { BROWSER_MEMORY_MS } from '../store/account-store.js'
import { cookieValue } from '../http/cookie-header.js'
import { ACCOUNTS_PATH } from '../http/exposed-routes.js'

/**
 * The cookie by which the service knows a browser it has seen sign in: a
 * random id and its HMAC, nothing personal. It is not a session: holding it
 * proves nothing, it only spares a known browser the "was this you?" email.
 * The signature keeps ids the service never issued out of its records.
 */

export const BROWSER_COOKIE = 'threshold_browser'

const ID_FORMAT = /^[\w-]{22}$/
const MAC_LENGTH = 22

export class BrowserCookies {
  constructor (private readonly key: Buffer) {}

  newId (): string {
    return randomBytes(16).toString('base64url')
  }

  private mac (id: string): string {
    return createHmac('sha256', this.key).update(id).digest('base64url').slice(0, MAC_LENGTH)
  }

  /** The id in a Cookie header when its signature holds; null when absent, malformed or forged. */
  read (cookieHeader: string | undefined): string | null {
    const value = cookieValue(cookieHeader, BROWSER_COOKIE)
    if (value === undefined) return null
    const [id, mac, ...rest] = value.split('.')
    if (id === undefined || mac === undefined || rest.length > 0 || !ID_FORMAT.test(id)) return null
    const expected = Buffer.from(this.mac(id))
    const actual = Buffer.from(mac)
    return actual.length === expected.length && timingSafeEqual(actual, expected) ? id : null
  }

  /**
   * The Set-Cookie value that keeps `id` for as long as the service remembers
   * browsers. Scoped to the accounts calls: the page's scripts never see it.
   */
  setCookie (id: string): string {
    return `${BROWSER_COOKIE}=${id}.${this.mac(id)}; Max-Age=${BROWSER_MEMORY_MS / 1000}; Path=${ACCOUNTS_PATH}; HttpOnly; Secure; SameSite=Lax`
  }
}
