import { RECENT_FACTORS_DAYS } from '../../../common/account-changes/recent-factors.js'
import { errorAnswer as error, successAnswer, type Answer, type RequestFacts } from '../http/answers.js'
import { say } from '../languages/answer-texts.js'
import { logAuthEvent } from '../audit/audit.js'
import { describeBrowser } from '../known-browsers/browser-names.js'
import { LINK_TOKEN_FORMAT } from '../emails/email-links.js'
import { removePasskeyAndItsSessions } from '../passkeys/passkey-removal.js'
import type { AccountStore } from '../store/account-store.js'
import { hashToken, newOpaqueToken } from '../sessions/tokens.js'

/** How far back a completed reset lists what was added. */
const RECENT_FACTORS_WINDOW_MS = RECENT_FACTORS_DAYS * 24 * 60 * 60 * 1000
/** How long the page may remove what it lists: as long as the reset link it followed lived. */
export const REVIEW_TOKEN_TTL_MS = 30 * 60 * 1000

/** What a review token's row holds as its subject: the list as it was shown, which is all the token may remove. */
interface Listed {
  readonly passkeys: readonly string[]
  readonly secondFactorEnrolledAt: number | null
}

/** What a removal names: one passkey, or the authenticator app. */
type Removal = { readonly passkeyId: string } | { readonly secondFactor: true }

function parseRemoval (body: unknown): { readonly reviewToken: string, readonly removal: Removal } | null {
  if (typeof body !== 'object' || body === null) return null
  const { review_token: reviewToken, passkey_id: passkeyId, second_factor: secondFactor } = body as Record<string, unknown>
  if (typeof reviewToken !== 'string' || !LINK_TOKEN_FORMAT.test(reviewToken)) return null
  if (passkeyId !== undefined && secondFactor === undefined && typeof passkeyId === 'string' && /^[\w-]{1,1366}$/.test(passkeyId)) {
    return { reviewToken, removal: { passkeyId } }
  }
  return passkeyId === undefined && secondFactor === true ? { reviewToken, removal: { secondFactor } } : null
}

/**
 * After a completed password reset (which follows "was this you?" and
 * "this wasn't me" too), the passkeys and the authenticator app added in
 * the last 30 days, listed for the owner, each removable in one step with
 * the answer's review token (docs/account-changes.md). The token is kept
 * hashed as an email_links row whose subject is the list: it removes
 * nothing else, and nothing older than the window by the time it is used.
 */
export class RecentFactors {
  constructor (private readonly options: { readonly store: AccountStore, readonly now: () => number }) {}

  /** The fields a completed reset's answer adds: `recent_factors` and `review_token`, or none when nothing is recent. */
  async review (accountId: string): Promise<Record<string, unknown>> {
    const { store, now } = this.options
    const at = now()
    const since = at - RECENT_FACTORS_WINDOW_MS
    const passkeys = (await store.listPasskeys(accountId)).filter((passkey) => passkey.createdAt > since)
    const enrolledAt = (await store.findSecondFactor(accountId))?.enrolledAt ?? null
    const secondFactorEnrolledAt = enrolledAt !== null && enrolledAt > since ? enrolledAt : null
    if (passkeys.length === 0 && secondFactorEnrolledAt === null) return {}
    const token = newOpaqueToken()
    const listed: Listed = { passkeys: passkeys.map((passkey) => passkey.id), secondFactorEnrolledAt }
    await store.insertEmailLink({
      tokenHash: hashToken(token), accountId, purpose: 'review-factors', expiresAt: at + REVIEW_TOKEN_TTL_MS, subject: JSON.stringify(listed)
    }, at)
    return {
      recent_factors: {
        passkeys: passkeys.map((passkey) => ({
          id: passkey.id, name: passkey.name ?? describeBrowser(undefined), created_at: new Date(passkey.createdAt).toISOString()
        })),
        second_factor: secondFactorEnrolledAt === null ? null : { enrolled_at: new Date(secondFactorEnrolledAt).toISOString() }
      },
      review_token: token
    }
  }

  /**
   * `recentFactors/remove`: removes one listed passkey, or the listed
   * authenticator app with its recovery codes. The organisation's
   * requirement does not keep the app: the owner enrols again at her next
   * sign-in, with an app of her own.
   */
  async remove (body: unknown, facts: RequestFacts): Promise<Answer> {
    const { store, now } = this.options
    const parsed = parseRemoval(body)
    if (parsed === null) return error(400, say(facts, 'recentFactors.requestInvalid'))
    const at = now()
    const review = await store.findEmailLink('review-factors', hashToken(parsed.reviewToken), at)
    if (review === null) {
      logAuthEvent(facts, 'recent-factors.refused', { clientAddress: facts.clientAddress, reason: 'review-token' })
      return error(401, say(facts, 'recentFactors.reviewRefused'))
    }
    const { accountId } = review
    const listed = JSON.parse(review.subject ?? '{}') as Listed
    const since = at - RECENT_FACTORS_WINDOW_MS
    const notListed = (): Answer => {
      logAuthEvent(facts, 'recent-factors.refused', { accountId, clientAddress: facts.clientAddress, reason: 'not-listed' })
      return error(404, say(facts, 'recentFactors.notListed'))
    }
    if ('passkeyId' in parsed.removal) {
      const passkey = listed.passkeys.includes(parsed.removal.passkeyId) ? await store.findPasskey(parsed.removal.passkeyId) : null
      if (passkey === null || passkey.accountId !== accountId || passkey.createdAt <= since) return notListed()
      // A session it started since the reset (the passkey still signed in until now) ends with it.
      const sessionsEnded = await removePasskeyAndItsSessions(store, accountId, passkey.id, at)
      if (sessionsEnded === null) return notListed()
      logAuthEvent(facts, 'passkey.removed', { accountId, clientAddress: facts.clientAddress, via: 'recent-factors', sessionsEnded })
      return successAnswer(say(facts, 'passkey.removed'))
    }
    const factor = await store.findSecondFactor(accountId)
    if (listed.secondFactorEnrolledAt === null || factor?.enrolledAt !== listed.secondFactorEnrolledAt || factor.enrolledAt <= since ||
      !await store.removeSecondFactor(accountId)) return notListed()
    // A browser that skipped codes would otherwise skip them again once an app is enrolled anew.
    await store.forgetRememberedBrowsers(accountId, at)
    logAuthEvent(facts, 'second-factor.removed', { accountId, clientAddress: facts.clientAddress, via: 'recent-factors' })
    return successAnswer(say(facts, 'secondFactor.removed'))
  }
}
