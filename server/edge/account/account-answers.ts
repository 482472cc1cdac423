import {
  ACCOUNT_EVENT_KINDS, ACCOUNT_FEATURES,
  type AccountEvent, type AccountEventKind, type AccountFeature, type AccountOverview, type AccountPasskey, type AccountSession
} from '../../../common/account/account-state.js'
import { parseLinkedProviders } from '../../../common/social/linked-social-providers.js'

/*
 * The account view's answers (docs/accounts-api.openapi.yaml: `account/overview`,
 * `sessions/list`, `passkeys/list`, `activity/list`), parsed at the boundary
 * into the shapes of common/account/account-state.ts: an answer that is not
 * one is null, and the view shows what it has. A backend's extra fields are
 * dropped, never embedded in the page; unknown features and event kinds too.
 */

type Fields = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Fields => value !== null && typeof value === 'object' && !Array.isArray(value)
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0
const nameOrNull = (value: unknown): string | null => typeof value === 'string' ? value : null

const FEATURES: ReadonlySet<string> = new Set(ACCOUNT_FEATURES)
const EVENT_KINDS: ReadonlySet<string> = new Set(ACCOUNT_EVENT_KINDS)

/** `account/overview`'s 200 answer, or null. */
export function parseAccountOverview (body: Fields): AccountOverview | null {
  const { account, secondFactor, features } = body
  if (!isObject(account) || !isObject(secondFactor) || !Array.isArray(features)) return null
  if (typeof account.email !== 'string' || account.email === '') return null
  const count = (value: unknown): number => typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0
  return {
    account: {
      email: account.email,
      firstName: nameOrNull(account.firstName),
      lastName: nameOrNull(account.lastName),
      emailVerified: account.emailVerified === true,
      hasPassword: account.hasPassword === true,
      google: account.google === true
    },
    secondFactor: {
      enrolled: secondFactor.enrolled === true,
      recoveryCodesLeft: count(secondFactor.recoveryCodesLeft),
      rememberedBrowsers: count(secondFactor.rememberedBrowsers)
    },
    features: [...new Set(features.filter((feature): feature is AccountFeature => typeof feature === 'string' && FEATURES.has(feature)))],
    // The view's "Sign-in methods" (the `social` feature): without it the section would list no provider.
    ...(Array.isArray(body.social) ? { social: parseLinkedProviders(body.social) ?? [] } : {})
  }
}

/** The entries of a list answer's `field` that `entry` reads, or null when the field is not a list. */
function listOf<T> (body: Fields, field: string, entry: (fields: Fields) => T | null): T[] | null {
  const items = body[field]
  if (!Array.isArray(items)) return null
  return items.flatMap((item) => {
    const parsed = isObject(item) ? entry(item) : null
    return parsed === null ? [] : [parsed]
  })
}

/** `sessions/list`'s 200 answer, or null. */
export function parseSessionList (body: Fields): AccountSession[] | null {
  return listOf(body, 'sessions', (session) => {
    const { id, current, browser, signedInAt, lastUsedAt, addressRange, method } = session
    if (typeof id !== 'string' || id === '' || !isTime(signedInAt) || !isTime(lastUsedAt)) return null
    return {
      id,
      current: current === true,
      browser: typeof browser === 'string' ? browser : '',
      signedInAt,
      lastUsedAt,
      addressRange: typeof addressRange === 'string' ? addressRange : '',
      method: typeof method === 'string' ? method : ''
    }
  })
}

/** `passkeys/list`'s 200 answer, or null. */
export function parsePasskeyList (body: Fields): AccountPasskey[] | null {
  return listOf(body, 'passkeys', (passkey) => {
    const { id, name, createdAt, lastUsedAt, backedUp } = passkey
    if (typeof id !== 'string' || id === '' || !isTime(createdAt)) return null
    return { id, name: nameOrNull(name), createdAt, lastUsedAt: isTime(lastUsedAt) ? lastUsedAt : null, backedUp: backedUp === true }
  })
}

/** `activity/list`'s 200 answer, or null. */
export function parseActivityList (body: Fields): AccountEvent[] | null {
  return listOf(body, 'events', (event) => {
    const { at, kind, method, browser, addressRange } = event
    if (!isTime(at) || typeof kind !== 'string' || !EVENT_KINDS.has(kind)) return null
    return {
      at,
      kind: kind as AccountEventKind,
      method: nameOrNull(method),
      browser: typeof browser === 'string' ? browser : '',
      addressRange: typeof addressRange === 'string' ? addressRange : ''
    }
  })
}
