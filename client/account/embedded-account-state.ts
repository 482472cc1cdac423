import {
  ACCOUNT_EVENT_KINDS, ACCOUNT_FEATURES, ACCOUNT_STATE_ELEMENT_ID,
  type AccountEvent, type AccountEventKind, type AccountFeature, type AccountPasskey, type AccountSession, type AccountState
} from '../../common/account/account-state.js'
import { parseLinkedProviders } from '../../common/social/linked-social-providers.js'

/*
 * The AccountState the edge embeds in the page (ACCOUNT_STATE_ELEMENT_ID),
 * read at the boundary: what is not of its shape is left out (a list entry)
 * or taken as absent (a list, the whole state), never shown half-read.
 */

type Raw = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Raw => value !== null && typeof value === 'object' && !Array.isArray(value)
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const textOrNull = (value: unknown): string | null => typeof value === 'string' ? value : null
const count = (value: unknown): number => typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0

/** Each entry `read` can read, or null when `value` is no list. */
function listOf<T> (value: unknown, read: (entry: Raw) => T | null): readonly T[] | null {
  if (!Array.isArray(value)) return null
  return value.flatMap((entry) => {
    const item = isObject(entry) ? read(entry) : null
    return item === null ? [] : [item]
  })
}

function session (raw: Raw): AccountSession | null {
  const { id, browser, signedInAt, lastUsedAt, addressRange, method } = raw
  if (typeof id !== 'string' || !isTime(signedInAt) || !isTime(lastUsedAt)) return null
  return {
    id,
    current: raw.current === true,
    browser: textOrNull(browser) ?? '',
    signedInAt,
    lastUsedAt,
    addressRange: textOrNull(addressRange) ?? '',
    method: textOrNull(method) ?? ''
  }
}

function passkey (raw: Raw): AccountPasskey | null {
  const { id, name, createdAt, lastUsedAt } = raw
  if (typeof id !== 'string' || !isTime(createdAt)) return null
  return { id, name: textOrNull(name), createdAt, lastUsedAt: isTime(lastUsedAt) ? lastUsedAt : null, backedUp: raw.backedUp === true }
}

function event (raw: Raw): AccountEvent | null {
  const { at, kind, method, browser, addressRange } = raw
  if (!isTime(at) || !(ACCOUNT_EVENT_KINDS as readonly unknown[]).includes(kind)) return null
  return { at, kind: kind as AccountEventKind, method: textOrNull(method), browser: textOrNull(browser) ?? '', addressRange: textOrNull(addressRange) ?? '' }
}

/** `passkeys/list`'s `passkeys`, or null when it is no list. */
export const parsePasskeys = (value: unknown): readonly AccountPasskey[] | null => listOf(value, passkey)

/** An AccountState from its JSON, or null when it is not one (no overview, no address). */
function parseAccountState (text: string | null | undefined): AccountState | null {
  let raw: unknown
  try {
    raw = JSON.parse(text ?? '')
  } catch {
    return null
  }
  if (!isObject(raw) || !isObject(raw.overview)) return null
  const { account, secondFactor, features } = raw.overview
  if (!isObject(account) || typeof account.email !== 'string') return null
  const factor = isObject(secondFactor) ? secondFactor : {}
  return {
    overview: {
      account: {
        email: account.email,
        firstName: textOrNull(account.firstName),
        lastName: textOrNull(account.lastName),
        emailVerified: account.emailVerified === true,
        hasPassword: account.hasPassword === true,
        google: account.google === true
      },
      secondFactor: { enrolled: factor.enrolled === true, recoveryCodesLeft: count(factor.recoveryCodesLeft), rememberedBrowsers: count(factor.rememberedBrowsers) },
      features: Array.isArray(features) ? ACCOUNT_FEATURES.filter((feature: AccountFeature) => features.includes(feature)) : [],
      social: parseLinkedProviders(raw.overview.social) ?? []
    },
    sessions: listOf(raw.sessions, session),
    passkeys: parsePasskeys(raw.passkeys),
    activity: listOf(raw.activity, event)
  }
}

/** The state the edge embedded in this document, or null. */
export const embeddedAccountState = (): AccountState | null => parseAccountState(document.getElementById(ACCOUNT_STATE_ELEMENT_ID)?.textContent)
