import type { PageContext } from '../page/page-params.js'

/**
 * What the page had when single sign-on started (`redirect` and the context
 * fields), kept in this tab for the return: the return URL is the backend's
 * to build, and one that carries only the documented parameters would
 * otherwise land the visitor on the site origin with no context.
 *
 * sessionStorage, not localStorage: it belongs to this tab and this origin,
 * outlives the trip through the identity provider, and ends with the tab.
 * The return reads it with takeSsoStartContext (client/sso/take-sso-start-context.ts),
 * in the returns' chunk.
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

export type Intent = 'login' | 'register'

/** Keeps `context` for the return of a sign-on started for `intent`; storage that refuses (private mode, quota) just forgets. */
export function keepSsoStartContext (intent: Intent, context: PageContext, now = Date.now()): void {
  const { redirect, allowedOrgs, resourceType, clusterName } = context
  try {
    sessionStorage.setItem(SSO_START_CONTEXT_KEY, JSON.stringify({ intent, savedAt: now, redirect, allowedOrgs, resourceType, clusterName }))
  } catch {
    // Nothing to keep it in: the return URL's own values are used, as before.
  }
}
