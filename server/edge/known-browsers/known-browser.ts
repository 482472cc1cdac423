import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The edge's own note that a browser has signed in to an account: a cookie
 * the edge sets on a login the backend accepted, and reads on the next one
 * to leave the per-account challenge signal out (docs/challenge.md, "The
 * owner's way in"). Strangers' failed guesses raise an account's count; the
 * owner's browser, which proved the password before, is not asked to pay
 * for them. The accounts service's own known-browser cookie
 * (`threshold_browser`) cannot serve: its signature is the service's, and
 * an operator's own backend may have none.
 *
 * The value holds, per account (at most {@link KNOWN_BROWSER_MAX_ACCOUNTS},
 * newest first), an expiry and an HMAC of the account's keyed hash
 * (server/edge/challenge/risk.ts accountKeyFor) with that expiry: `<expiry>:<tag>.<expiry>:<tag>`.
 * Nothing in it names the account to anyone without EDGE_SECRET, a tag
 * cannot be made without it, and one account's tag is worth nothing for
 * another. Holding it exempts from one signal only: the range and burst
 * signals, and the backend's own lockouts, apply as to anyone.
 *
 * Its path is `/` ({@link KNOWN_BROWSER_PATH}): the login is sent to
 * `/accounts/v2/login` by the page's scripts and to `/` as a form without
 * them, and the owner's browser must be known on both. Every same-origin
 * request then carries it (at most about 200 bytes, host-only: no Domain);
 * it stays the edge's own, since the proxies pass on only the cookies they
 * name (server/edge/upstream/accounts-proxy.ts ACCOUNTS_REQUEST_HEADERS, server/edge/upstream/grpc-web-proxy.ts), and
 * HttpOnly keeps it from the page's scripts.
 */

export const KNOWN_BROWSER_COOKIE = 'threshold_edge_browser'
/** How long a sign-in keeps a browser known to its account; each later sign-in starts it again. */
export const KNOWN_BROWSER_DAYS = 90
/** Accounts one browser is known to at most (a family's shared computer); the oldest is forgotten first. */
export const KNOWN_BROWSER_MAX_ACCOUNTS = 5
/** Where the browser sends it: to the page's login call and to its forms posted without scripts (`POST /`). */
const KNOWN_BROWSER_PATH = '/'

const DAY_SECONDS = 24 * 60 * 60
const TAG_LENGTH = 22
const ENTRY = /^(\d{1,12}):([\w-]{22})$/
/** Longer than any value the edge writes: read no further. */
const MAX_VALUE_LENGTH = KNOWN_BROWSER_MAX_ACCOUNTS * 40

interface Entry {
  readonly expires: number
  readonly tag: string
}

function cookieNamed (header: string | undefined, name: string): string | null {
  if (header === undefined) return null
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=')
    if (separator !== -1 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim()
  }
  return null
}

function entriesOf (value: string | null, nowSeconds: number): Entry[] {
  if (value === null || value.length > MAX_VALUE_LENGTH) return []
  const entries: Entry[] = []
  for (const piece of value.split('.')) {
    const match = ENTRY.exec(piece)
    if (match === null) continue
    const expires = Number(match[1])
    if (expires > nowSeconds) entries.push({ expires, tag: match[2]! })
  }
  return entries
}

export interface KnownBrowsers {
  /** Whether the Cookie header names a browser that signed in to `account` (keyed) and has not expired. */
  knows (cookieHeader: string | undefined, account: string): boolean
  /** The Set-Cookie value after a sign-in to `account` from a browser sending `cookieHeader`: the account first, its old entry and expired ones dropped. */
  remember (cookieHeader: string | undefined, account: string): string
}

/** Known browsers under `key` (server/edge/keys/edge-secrets.ts knownBrowserSignature). */
export function knownBrowsers (key: Buffer, now: () => number = Date.now): KnownBrowsers {
  const tagOf = (account: string, expires: number): string =>
    createHmac('sha256', key).update(`${account}:${expires}`).digest('base64url').slice(0, TAG_LENGTH)
  const isFor = (entry: Entry, account: string): boolean =>
    timingSafeEqual(Buffer.from(entry.tag), Buffer.from(tagOf(account, entry.expires)))
  const nowSeconds = (): number => Math.floor(now() / 1000)
  return {
    knows (cookieHeader, account) {
      return entriesOf(cookieNamed(cookieHeader, KNOWN_BROWSER_COOKIE), nowSeconds()).some((entry) => isFor(entry, account))
    },
    remember (cookieHeader, account) {
      const expires = nowSeconds() + KNOWN_BROWSER_DAYS * DAY_SECONDS
      const others = entriesOf(cookieNamed(cookieHeader, KNOWN_BROWSER_COOKIE), nowSeconds()).filter((entry) => !isFor(entry, account))
      const kept = [{ expires, tag: tagOf(account, expires) }, ...others].slice(0, KNOWN_BROWSER_MAX_ACCOUNTS)
      const value = kept.map((entry) => `${entry.expires}:${entry.tag}`).join('.')
      return `${KNOWN_BROWSER_COOKIE}=${value}; Max-Age=${KNOWN_BROWSER_DAYS * DAY_SECONDS}; Path=${KNOWN_BROWSER_PATH}; HttpOnly; Secure; SameSite=Strict`
    }
  }
}
