import type { PageContext } from '../page/page-params.js'
import { MAX_TARGET_LENGTH } from '../../common/page/redirect-target.js'

/**
 * What the page had when single sign-on started (`redirect` and the context
 * fields), kept in this tab for the return: the return URL is the backend's
 * to build, and one that carries only the documented parameters would
 * otherwise land the visitor on the site origin with no context.
 *
 * sessionStorage, not localStorage: it belongs to this tab and this origin,
 * outlives the trip through the identity provider, and ends with the tab.
 */

/** The sessionStorage key of the context kept at SSO start. */
export const SSO_START_CONTEXT_KEY = 'threshold.ssoStart'

/**
 * How long a kept context may steer a return. The reference service gives a
 * sign-on 10 minutes; other backends and a first sign-in at the identity
 * provider (enrolling a second factor there) may take longer. Past this, an
 * abandoned start no longer decides where a later return goes.
 */
export const SSO_START_CONTEXT_MAX_AGE_MS = 30 * 60 * 1000

/** The edge refuses a completion body over 16 KB anyway: a larger entry is no page's. */
const MAX_ENTRY_LENGTH = 16 * 1024

type Intent = 'login' | 'register'

/** Keeps `context` for the return of a sign-on started for `intent`; storage that refuses (private mode, quota) just forgets. */
export function keepSsoStartContext (intent: Intent, context: PageContext, now = Date.now()): void {
  const { redirect, allowedOrgs, resourceType, clusterName } = context
  try {
    sessionStorage.setItem(SSO_START_CONTEXT_KEY, JSON.stringify({ intent, savedAt: now, redirect, allowedOrgs, resourceType, clusterName }))
  } catch {
    // Nothing to keep it in: the return URL's own values are used, as before.
  }
}

/**
 * The context kept for a return of `intent`, read once: the entry is deleted
 * whatever it holds. Null when there is none, or it is stale, for another
 * intent, or not what {@link keepSsoStartContext} writes (values checked as
 * the page parses its address); never throws.
 */
export function takeSsoStartContext (intent: Intent, now = Date.now()): PageContext | null {
  let entry: unknown
  try {
    const raw = sessionStorage.getItem(SSO_START_CONTEXT_KEY)
    sessionStorage.removeItem(SSO_START_CONTEXT_KEY)
    entry = raw !== null && raw.length <= MAX_ENTRY_LENGTH ? JSON.parse(raw) : null
  } catch {
    return null
  }
  if (typeof entry !== 'object' || entry === null) return null
  const { intent: keptIntent, savedAt, redirect, allowedOrgs, resourceType, clusterName } = entry as Record<string, unknown>
  const age = now - (savedAt as number)
  const fresh = typeof savedAt === 'number' && age >= 0 && age <= SSO_START_CONTEXT_MAX_AGE_MS
  const orgs = Array.isArray(allowedOrgs) && allowedOrgs.every(isOrganization)
  if (keptIntent !== intent || !fresh || !orgs || !isValue(redirect, MAX_TARGET_LENGTH) || !isValue(resourceType) || !isValue(clusterName)) return null
  return { redirect, allowedOrgs, resourceType, clusterName }
}

/** A parameter's value as the page reads it: absent, or not blank. */
function isValue (value: unknown, maxLength = MAX_ENTRY_LENGTH): value is string | null {
  return value === null || (typeof value === 'string' && value.trim() !== '' && value.length <= maxLength)
}

/** One `allowed_org` item as the page splits the list: trimmed, not empty, no comma. */
function isOrganization (value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value.trim() === value && !value.includes(',')
}
