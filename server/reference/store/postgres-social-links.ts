import type { SocialLinkStore } from './account-store.js'
import type { PostgresAccess } from './postgres-oidc.js'
import { socialLinkValues, toSocialLink, type SocialLinkRow } from './social-link-rows.js'

/** The twin of SQLITE_SOCIAL_LINK_MIGRATION (server/reference/store/sqlite-social-links.ts). */
export const POSTGRES_SOCIAL_LINK_MIGRATION = `CREATE TABLE social_links (
     provider TEXT NOT NULL,
     subject TEXT NOT NULL,
     account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
     email TEXT NOT NULL,
     linked_at BIGINT NOT NULL,
     CONSTRAINT social_links_identity PRIMARY KEY (provider, subject),
     CONSTRAINT social_links_account_provider UNIQUE (account_id, provider)
   );`

function isUniqueViolation (error: unknown): error is { constraint?: string } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505'
}

export function postgresSocialLinks (db: PostgresAccess): SocialLinkStore {
  return {
    async link (link) {
      try {
        await db.pool().query('INSERT INTO social_links (provider, subject, account_id, email, linked_at) VALUES ($1, $2, $3, $4, $5)', socialLinkValues(link))
        return 'linked'
      } catch (error) {
        // The constraint names which pair was taken, also between two racing links.
        if (isUniqueViolation(error)) return error.constraint === 'social_links_account_provider' ? 'provider-taken' : 'identity-taken'
        throw error
      }
    },
    async find (provider, subject) {
      const { rows } = await db.pool().query<SocialLinkRow>('SELECT * FROM social_links WHERE provider = $1 AND subject = $2', [provider, subject])
      return toSocialLink(rows[0])
    },
    async list (accountId) {
      const { rows } = await db.pool().query<SocialLinkRow>('SELECT * FROM social_links WHERE account_id = $1 ORDER BY linked_at, provider', [accountId])
      return rows.map((row) => toSocialLink(row)!)
    },
    async unlink (accountId, provider) {
      const { rowCount } = await db.pool().query('DELETE FROM social_links WHERE account_id = $1 AND provider = $2', [accountId, provider])
      return rowCount === 1
    }
  }
}
