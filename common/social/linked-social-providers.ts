import type { LinkedSocialProvider } from './social-providers.js'

/**
 * `account/overview`'s `social` (every configured connection, linked or not), read at each boundary it
 * crosses: the edge's, which embeds the account view's state in the page (server/edge/account/account-answers.ts),
 * and the page's (client/account/embedded-account-state.ts, client/account/social-link-calls.ts). Entries not
 * of its shape are left out; null when it is not a list.
 */
export function parseLinkedProviders (value: unknown): readonly LinkedSocialProvider[] | null {
  if (!Array.isArray(value)) return null
  return value.flatMap((entry: unknown) => {
    if (entry === null || typeof entry !== 'object') return []
    const { provider, email, linkedAt } = entry as Record<string, unknown>
    if (typeof provider !== 'string') return []
    const linked = typeof linkedAt === 'number' && Number.isFinite(linkedAt)
    return [{ provider, email: linked && typeof email === 'string' ? email : null, linkedAt: linked ? linkedAt : null }]
  })
}
