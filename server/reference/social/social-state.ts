import { bindingCookie } from '../http/binding-cookie.js'

/**
 * The `social_state` cookie ties one social sign-in (or link) to the browser
 * that started it, as SSO's state cookie does (server/reference/sso/state-cookie.ts):
 * a random binding, whose hash the store keeps with each step. Lax rides
 * along on the provider's redirect back (a top-level GET) and stays off
 * Apple's cross-site form POST, which therefore hands over to a GET step.
 */

const SOCIAL_STATE_COOKIE = 'social_state'
/** How long a started sign-in may take, the cookie's lifetime, and the page's single-use id's. */
export const SOCIAL_STATE_TTL_MS = 10 * 60 * 1000

const cookie = bindingCookie(SOCIAL_STATE_COOKIE, SOCIAL_STATE_TTL_MS, 'Lax')

export const socialStateCookie = cookie.set
export const clearedSocialStateCookie = cookie.cleared
export const readSocialBinding = cookie.read
