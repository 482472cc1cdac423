import type { Locale } from '../../../common/languages/message-catalogue.js'
import { ownerShownRange } from '../../shared/address-range.js'
import type { RequestFacts } from '../http/answers.js'
import { identifyBrowser, nameBrowser } from '../known-browsers/browser-names.js'
import { say } from '../languages/answer-texts.js'

/** The most of a User-Agent kept: browser-names.ts reads far less, and a header made long fills no store. */
const USER_AGENT_MAX_LENGTH = 512

/**
 * Where a request came from, as the account's owner is shown it later (the
 * account view's sessions and activity, docs/account-changes.md): the browser's
 * User-Agent and the address's range, never the address.
 */
export interface RequestOrigin {
  /** Null where the request named no browser. */
  readonly userAgent: string | null
  /** The /24 or /48 (server/shared/address-range.ts ownerShownRange); empty where unknown. */
  readonly addressRange: string
}

export function requestOrigin (facts: Pick<RequestFacts, 'clientAddress' | 'browser'>): RequestOrigin {
  const userAgent = facts.browser?.userAgent
  return {
    userAgent: userAgent === undefined || userAgent === '' ? null : userAgent.slice(0, USER_AGENT_MAX_LENGTH),
    addressRange: ownerShownRange(facts.clientAddress)
  }
}

/** A kept User-Agent's browser in the request's language ("Firefox on Linux"): the names stay, the words around them are translated. */
export function browserNameIn (facts: { readonly locale: Locale }, userAgent: string | null): string {
  return nameBrowser(identifyBrowser(userAgent ?? undefined), {
    onSystem: (browser, system) => say(facts, { key: 'browser.onSystem', params: { browser, system } }),
    anyOnSystem: (system) => say(facts, { key: 'browser.anyOnSystem', params: { system } }),
    unknown: say(facts, 'browser.unknown')
  })
}
