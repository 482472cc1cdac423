import type { SocialLink } from './account-store.js'

/** A social_links row, as both stores read it. */
export interface SocialLinkRow {
  provider: string
  subject: string
  account_id: string
  email: string
  linked_at: number | string
}

export function toSocialLink (row: SocialLinkRow | undefined): SocialLink | null {
  if (row === undefined) return null
  return { provider: row.provider, subject: row.subject, accountId: row.account_id, email: row.email, linkedAt: Number(row.linked_at) }
}

/** The values of a new row, in the column order of the stores' INSERT. */
export function socialLinkValues (link: SocialLink): Array<string | number> {
  return [link.provider, link.subject, link.accountId, link.email, link.linkedAt]
}
