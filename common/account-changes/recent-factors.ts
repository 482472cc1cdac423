/**
 * What a completed password reset lists for its owner to review
 * (docs/account-changes.md, "The owner hears about every change"): the
 * passkeys and the authenticator app added to the account in the last
 * RECENT_FACTORS_DAYS days, and the token that removes one of them
 * (`POST /accounts/recentFactors/remove`). The reference service writes it,
 * the page and the edge's no-script form read it.
 */

/** How far back a reset's list reaches. */
export const RECENT_FACTORS_DAYS = 30

interface RecentPasskey {
  readonly id: string
  /** The browser it was made in ("Chrome on Windows"), its name everywhere the owner sees it. */
  readonly name: string
  /** ISO 8601. */
  readonly createdAt: string
}

export interface RecentFactorsReview {
  readonly reviewToken: string
  readonly passkeys: readonly RecentPasskey[]
  /** When the authenticator app was set up (ISO 8601); null when it was not within the days. */
  readonly secondFactorEnrolledAt: string | null
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length <= 2000

/** The review a reset's answer body carries, or null when it carries none (or a malformed one, which the page cannot offer). */
export function parseRecentFactorsReview (body: Readonly<Record<string, unknown>>): RecentFactorsReview | null {
  const { review_token: reviewToken, recent_factors: factors } = body
  if (!isText(reviewToken) || typeof factors !== 'object' || factors === null) return null
  const { passkeys, second_factor: secondFactor } = factors as Record<string, unknown>
  if (!Array.isArray(passkeys) || (secondFactor !== null && typeof secondFactor !== 'object')) return null
  const listed: RecentPasskey[] = []
  for (const passkey of passkeys as unknown[]) {
    const { id, name, created_at: createdAt } = (passkey ?? {}) as Record<string, unknown>
    if (!isText(id) || !isText(name) || !isText(createdAt)) return null
    listed.push({ id, name, createdAt })
  }
  const enrolledAt = secondFactor === null ? null : (secondFactor as Record<string, unknown>).enrolled_at
  if (enrolledAt !== null && !isText(enrolledAt)) return null
  return listed.length === 0 && enrolledAt === null ? null : { reviewToken, passkeys: listed, secondFactorEnrolledAt: enrolledAt }
}
