import { createHmac, timingSafeEqual } from 'node:crypto'
import { cookieValue } from '../http/cookie-header.js'

/** The cookie's name: the page's sign-in calls under /accounts read it. */
const STEP_UP_COOKIE = 'oidc_step_up'

/** The derived secret's purpose (server/reference/keys/derived-secrets.ts). */
export const STEP_UP_PURPOSE = 'oidc-step-up-cookie'

/** As long as an interaction lives: the sign-in it asks for happens within it. */
const STEP_UP_TTL_SECONDS = 10 * 60

/** Where the sign-in calls are, as the browser sees them. */
const STEP_UP_COOKIE_PATH = '/accounts'

/**
 * The signed mark a client's `acr_values` leaves for the page's next sign-in:
 * a password or Google sign-in that carries it asks for the second factor
 * even in a browser remembered for it (server/reference/second-factor/second-factor-gate.ts).
 * HttpOnly, short-lived, and read only under /accounts.
 */
export class StepUpCookies {
  constructor (private readonly key: Buffer, private readonly secure: boolean) {}

  private sign (expiresAt: number): string {
    return createHmac('sha256', this.key).update(`step-up.${expiresAt}`).digest('base64url')
  }

  /** The Set-Cookie header asking for the second factor until STEP_UP_TTL_SECONDS from `now` (epoch ms). */
  set (now: number): string {
    const expiresAt = Math.floor(now / 1000) + STEP_UP_TTL_SECONDS
    return `${STEP_UP_COOKIE}=${expiresAt}.${this.sign(expiresAt)}; Path=${STEP_UP_COOKIE_PATH}; Max-Age=${STEP_UP_TTL_SECONDS}; HttpOnly; SameSite=Lax${this.secure ? '; Secure' : ''}`
  }

  /** The Set-Cookie header that removes it, once the interaction is done. */
  clear (): string {
    return `${STEP_UP_COOKIE}=; Path=${STEP_UP_COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${this.secure ? '; Secure' : ''}`
  }

  /** Whether the request's cookies carry a mark of ours that has not expired at `now` (epoch ms). */
  asked (cookieHeader: string | undefined, now: number): boolean {
    const value = cookieValue(cookieHeader, STEP_UP_COOKIE)
    const match = /^(\d{1,12})\.([\w-]{43})$/.exec(value ?? '')
    if (match === null) return false
    const expiresAt = Number(match[1])
    const expected = Buffer.from(this.sign(expiresAt))
    const presented = Buffer.from(match[2]!)
    return expected.length === presented.length && timingSafeEqual(expected, presented) && expiresAt * 1000 > now
  }
}
