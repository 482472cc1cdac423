import type { PageContext } from '../page/page-params.js'
import { MAX_TARGET_LENGTH } from '../../common/page/redirect-target.js'
import { SSO_START_CONTEXT_KEY, SSO_START_CONTEXT_MAX_AGE_MS, type Intent } from './sso-start-context.js'

/*
 * The return's side of the context kept at a start (client/sso/sso-start-context.ts):
 * a module of its own, so that the first load, which only keeps it, does not carry the reading.
 */

/** The edge refuses a completion body over 16 KB anyway: a larger entry is no page's. */
const MAX_ENTRY_LENGTH = 16 * 1024

/**
 * The context kept for a return of `intent`, read once: the entry is deleted
 * whatever it holds. Null when there is none, or it is stale, for another
 * intent, or not what keepSsoStartContext writes (values checked as
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
