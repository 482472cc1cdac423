import { createHmac } from 'node:crypto'
import { isIP } from 'node:net'
import { ipv6SiteRange } from '../../shared/address-range.js'
import { emailKey } from '../../shared/email-key.js'
import { BUCKET_MS, type WindowCounts } from './window-counts.js'

/**
 * The edge's judgement of risk for a login, registration or reset call,
 * from counts over sliding windows (window-counts.ts):
 * - failed logins per address range, plus registration and reset requests
 *   from it: a range is an IPv4 /24 or an IPv6 /48. Wider than the /32 and
 *   /64 by which the rate limits and the accounts service's lockouts count
 *   (server/shared/address-range.ts): those stop one client; stuffing is
 *   spread over many addresses, and hosting providers and botnets hand them
 *   out in neighbouring blocks. A wider range only decides whether a small
 *   proof of work is asked for, never whether a login is refused, so
 *   neighbours caught with an attacker lose a fraction of a second, not access;
 * - failed logins per account (the email a login names, in the form the
 *   accounts service finds it by), by a keyed hash, never the address itself;
 * - failed logins across all accounts per minute (a burst), and calls the
 *   backend shed because it was overloaded (its 503: the reference service's
 *   hash gate, server/reference/passwords/hash-gate.ts), which a flood from fresh
 *   ranges causes before any password is checked or any range counts much.
 * A successful login clears its account's count. Ranges, too, are counted by
 * a keyed hash: nothing in the counts (in Redis) names a client.
 */

/** How long a range's failures and requests count, in minutes. */
export const RANGE_WINDOW_MINUTES = 10
/** How long an account's failures count, in minutes. */
export const ACCOUNT_WINDOW_MINUTES = 15
/** The burst is a sliding minute: this minute's count plus the share of the last one the minute still covers. */
const BURST_WINDOW_MINUTES = 2
/** The highest level: 2^(6 - 1) = 32 times the work of level 1. */
export const MAX_LEVEL = 6
/**
 * The highest level the account signal gives: 4 times the work of level 1.
 * Anyone can fail logins for someone else's address, so an attacker could
 * otherwise hold a victim's account at level 6, where a slow phone nears
 * the page's 30 s limit; a range (the attacker's own) still climbs to
 * {@link MAX_LEVEL}.
 */
export const ACCOUNT_MAX_LEVEL = 3

export interface RiskThresholds {
  readonly rangeFailures: number
  readonly accountFailures: number
  readonly burstFailures: number
}

/**
 * The level a count gives against its threshold: 0 below it, 1 at it, one
 * more each time the count doubles, at most {@link MAX_LEVEL}. A threshold
 * of 0 means "always challenge": level 1 whatever the count.
 */
export function levelOf (count: number, threshold: number): number {
  if (threshold === 0) return 1
  if (count < threshold) return 0
  return Math.min(MAX_LEVEL, 1 + Math.floor(Math.log2(count / threshold)))
}

/** The address range a normalised client address is judged by: `198.51.100.0/24`, `2001:db8:1::/48`; `unknown` without one. */
export function riskRangeOf (address: string | null): string {
  if (address === null) return 'unknown'
  if (isIP(address) === 4) return `${address.slice(0, address.lastIndexOf('.'))}.0/24`
  if (isIP(address) === 6) return ipv6SiteRange(address)
  return 'unknown'
}

const keyedHash = (pseudonymKey: Buffer, text: string): string => createHmac('sha256', pseudonymKey).update(text).digest('base64url').slice(0, 22)

/**
 * An account as the counts name it: the email in the form the accounts
 * service finds accounts by (server/shared/email-key.ts: NFKC, case, the
 * domain's IDNA form), then an HMAC under the edge's key. A look-alike
 * spelling that reaches the same account is the same account here.
 */
export function accountKeyFor (pseudonymKey: Buffer, email: string): string {
  return keyedHash(pseudonymKey, emailKey(email))
}

/** A range (riskRangeOf) as the counts and a challenge's binding name it: an HMAC under the edge's key, never the addresses. */
export function rangeKeyFor (pseudonymKey: Buffer, range: string): string {
  return keyedHash(pseudonymKey, `range:${range}`)
}

export interface Risk {
  /**
   * The level a guarded call from `range` naming `accounts` (both keyed) gets
   * now: 0 = no challenge. With `accountSignal` false the accounts' counts
   * are not read (a browser their owner signed in with, a reset or the like
   * posted without scripts: challenge-gate.ts): range and burst alone decide.
   */
  levelFor (range: string, accounts: readonly string[], accountSignal?: boolean): Promise<number>
  /** A login the backend refused (401, or its own 429). */
  noteFailedLogin (range: string, accounts: readonly string[]): Promise<void>
  /** A guarded call the backend shed, overloaded (its 503): counted as a failure of its range and of the burst, of no account (no password was checked). */
  noteShedCall (range: string): Promise<void>
  /** A login that succeeded: its accounts' counts are cleared. */
  noteSuccessfulLogin (accounts: readonly string[]): Promise<void>
  /** A registration or reset request passed on. */
  noteRequest (range: string): Promise<void>
  /**
   * An emailed code asked for (docs/email-codes.md), passed on: counted
   * toward its range and its account, as a failure is, until a sign-in
   * clears the account; not toward the burst, which counts refusals.
   */
  noteCodeRequest (range: string, accounts: readonly string[]): Promise<void>
}

const BURST_KEY = 'burst'
const rangeKey = (range: string): string => `range:${range}`
const accountKey = (account: string): string => `account:${account}`

/** The judgement over `counts` (shared or local); `now` is the clock the counts keep (tests pass their own). */
export function createRisk (counts: WindowCounts, thresholds: RiskThresholds, now: () => number = Date.now): Risk {
  return {
    async levelFor (range, accounts, accountSignal = true) {
      const judged = accountSignal ? accounts : []
      const sums = await counts.sums([
        { key: rangeKey(range), windowMinutes: RANGE_WINDOW_MINUTES },
        { key: BURST_KEY, windowMinutes: 1 },
        { key: BURST_KEY, windowMinutes: BURST_WINDOW_MINUTES },
        ...judged.map((account) => ({ key: accountKey(account), windowMinutes: ACCOUNT_WINDOW_MINUTES }))
      ])
      const [rangeCount = 0, thisMinute = 0, twoMinutes = 0, ...accountCounts] = sums
      const lastMinuteShare = 1 - (now() % BUCKET_MS) / BUCKET_MS
      const burstCount = thisMinute + (twoMinutes - thisMinute) * lastMinuteShare
      // A burst is aimed at no one in particular: it asks everyone for the lightest work only.
      const burst = Math.min(1, levelOf(burstCount, thresholds.burstFailures))
      const account = Math.min(ACCOUNT_MAX_LEVEL, accountCounts.reduce((highest, count) => Math.max(highest, levelOf(count, thresholds.accountFailures)), 0))
      // With no account named (a malformed body), the account's threshold still applies when it is 0.
      const accountFloor = accountSignal && accounts.length === 0 && thresholds.accountFailures === 0 ? 1 : 0
      return Math.max(levelOf(rangeCount, thresholds.rangeFailures), burst, account, accountFloor)
    },
    async noteFailedLogin (range, accounts) {
      await counts.add([rangeKey(range), BURST_KEY], RANGE_WINDOW_MINUTES)
      if (accounts.length > 0) await counts.add(accounts.map(accountKey), ACCOUNT_WINDOW_MINUTES)
    },
    async noteShedCall (range) {
      await counts.add([rangeKey(range), BURST_KEY], RANGE_WINDOW_MINUTES)
    },
    async noteSuccessfulLogin (accounts) {
      for (const account of accounts) await counts.clear(accountKey(account), ACCOUNT_WINDOW_MINUTES)
    },
    async noteRequest (range) {
      await counts.add([rangeKey(range)], RANGE_WINDOW_MINUTES)
    },
    async noteCodeRequest (range, accounts) {
      await counts.add([rangeKey(range)], RANGE_WINDOW_MINUTES)
      if (accounts.length > 0) await counts.add(accounts.map(accountKey), ACCOUNT_WINDOW_MINUTES)
    }
  }
}
