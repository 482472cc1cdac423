import { addressRange, normaliseAddress } from '../../shared/address-range.js'
import { emailKey } from '../../shared/email-key.js'
import type { AnswerText } from '../languages/answer-texts.js'

/**
 * The rules by which failed password logins slow and lock further attempts
 * (docs/reference-service.md, "Login throttles", gives them with their
 * numbers). A lock refuses even the right password, so it must never be one
 * a stranger can set on someone else's account:
 *
 * - Failures lock the pair of an account and where the attempts come from:
 *   the client's address range (an IPv4 address, an IPv6 /64), or a browser
 *   that has signed in to the account before (its known-browser cookie).
 *   A known browser has a lock of its own, so that nobody else, even behind
 *   the same address, can shut it out, and its owner still signs in with the
 *   right password while the account is under attack from elsewhere.
 * - Failures from everywhere together only slow the account down: a delay
 *   before the password is checked, a few seconds at most, never a refusal.
 *   Browsers that have signed in to the account before are not slowed.
 *
 * The counts live in the accounts store, which every instance of the service
 * shares (the SQLite file for one instance, PostgreSQL for several).
 */

/** Failed logins of one pair allowed before locks start; locks then double up to the cap. */
export const FREE_LOGIN_FAILURES = 4
export const MAX_LOGIN_LOCK_MS = 15 * 60 * 1000

/** Failed logins of one account, from everywhere, before its attempts are slowed. */
export const FREE_ACCOUNT_FAILURES = 10
/** The first delay of a slowed account; delays then double up to the cap. */
const FIRST_ACCOUNT_DELAY_MS = 250
export const MAX_ACCOUNT_DELAY_MS = 3000

/** How long a pair is locked after its n-th consecutive failed login. */
export function loginLockDuration (failures: number): number {
  if (failures <= FREE_LOGIN_FAILURES) return 0
  return Math.min(1000 * 2 ** (failures - FREE_LOGIN_FAILURES - 1), MAX_LOGIN_LOCK_MS)
}

/** How long an attempt on an account waits after the account's n failed logins from everywhere. */
export function accountDelay (failures: number): number {
  if (failures <= FREE_ACCOUNT_FAILURES) return 0
  return Math.min(FIRST_ACCOUNT_DELAY_MS * 2 ** (failures - FREE_ACCOUNT_FAILURES - 1), MAX_ACCOUNT_DELAY_MS)
}

/** The counter of an account's failed logins from everywhere (any case of the address). */
export function accountThrottleKey (email: string): string {
  return `password:${emailKey(email)}`
}

/**
 * The lock of attempts on an account from one address range. The edge states
 * addresses normalised; the local-network listener reads them off its socket,
 * where a dual-stack listener reports IPv4 clients as `::ffff:…`, which would
 * otherwise all fall in one IPv6 /64 and share one lock.
 */
export function addressThrottleKey (email: string, clientAddress: string): string {
  const normalised = normaliseAddress(clientAddress)
  return `password:${emailKey(email)} from:${normalised === null ? clientAddress : addressRange(normalised)}`
}

/** The lock of attempts on an account from a browser that signed in to it before (`browserHash`, as the store knows it). */
export function browserThrottleKey (email: string, browserHash: string): string {
  return `password:${emailKey(email)} browser:${browserHash}`
}

/**
 * The lock of passkey sign-ins from one address range. A passkey names no
 * account until it is found, so failures (an unknown credential, a bad
 * signature, a counter gone backwards) lock the range as a whole, with the
 * password locks' durations: a flood of made-up credential ids is not free,
 * and only its own range is slowed.
 */
export function passkeyThrottleKey (clientAddress: string): string {
  const normalised = normaliseAddress(clientAddress)
  return `passkey from:${normalised === null ? clientAddress : addressRange(normalised)}`
}

/**
 * The lock an attempt counts against: its known browser's, or else its
 * address range's.
 */
export function lockKey (email: string, where: { readonly clientAddress: string, readonly knownBrowserHash: string | null }): string {
  return where.knownBrowserHash === null
    ? addressThrottleKey(email, where.clientAddress)
    : browserThrottleKey(email, where.knownBrowserHash)
}

/** The text of a 429 answer for a lock until `lockedUntil`. */
export function waitMessage (lockedUntil: number, now: number): AnswerText {
  const seconds = Math.max(1, Math.ceil((lockedUntil - now) / 1000))
  // One key per form, whole sentences: each language words a count its own way.
  if (seconds === 1) return 'login.lockedOneSecond'
  return seconds < 120 ? { key: 'login.lockedSeconds', params: { seconds } } : { key: 'login.lockedMinutes', params: { minutes: Math.ceil(seconds / 60) } }
}
