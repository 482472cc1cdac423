import { emailKey } from '../../shared/email-key.js'

/**
 * Re-keying stored accounts when emailKey (server/shared/email-key.ts), the
 * form of an address used to find accounts, changes.
 */

export interface KeyedAccount {
  readonly id: string
  readonly email: string
  readonly emailKey: string
}

/**
 * An account whose address now reads as another account's: it keeps its old
 * key, which no sign-in reaches any more, and an operator decides.
 */
export interface EmailKeyConflict {
  readonly id: string
  /** The account that keeps the address. */
  readonly keptBy: string
}

export interface Rekeying {
  /** Accounts whose key changes, with the new key. */
  readonly changes: ReadonlyArray<{ readonly id: string, readonly emailKey: string }>
  readonly conflicts: readonly EmailKeyConflict[]
}

/**
 * The key changes that bring stored accounts to the current emailKey, given
 * the accounts oldest first. On a clash, an account whose key does not change
 * keeps the address (its address was already written as the key reads it; the
 * other is the look-alike, whatever its age); between accounts whose keys
 * change, the oldest.
 */
export function rekeyAccounts (accountsOldestFirst: readonly KeyedAccount[]): Rekeying {
  const owner = new Map<string, string>()
  for (const account of accountsOldestFirst) {
    if (account.emailKey === emailKey(account.email)) owner.set(account.emailKey, account.id)
  }
  const changes: Array<{ id: string, emailKey: string }> = []
  const conflicts: EmailKeyConflict[] = []
  for (const account of accountsOldestFirst) {
    const key = emailKey(account.email)
    if (key === account.emailKey) continue
    const keptBy = owner.get(key)
    if (keptBy !== undefined) {
      conflicts.push({ id: account.id, keptBy })
      continue
    }
    owner.set(key, account.id)
    changes.push({ id: account.id, emailKey: key })
  }
  return { changes, conflicts }
}
