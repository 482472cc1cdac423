import { domainToASCII } from 'node:url'

/**
 * The form of an email address used to find accounts. Two addresses that a
 * person cannot tell apart must find one account, or a stranger could register
 * a look-alike beside the real one (`n3x@ｂ.co` beside `n3x@b.co`):
 * - Unicode compatibility normalisation (NFKC) folds full-width and other
 *   compatibility characters, and composes accents (é and e + ◌́);
 * - the domain is compared in its IDNA (punycode) form, so `bücher.example`
 *   and `xn--bcher-kva.example` are one domain;
 * - case does not count, in the local part either (every provider people use
 *   treats it so).
 * Changing this changes stored keys: the stores re-key their accounts in a
 * migration (rekeyAccounts below).
 */
export function emailKey (email: string): string {
  const folded = email.trim().normalize('NFKC').toLowerCase()
  const at = folded.lastIndexOf('@')
  if (at === -1) return folded
  const domain = folded.slice(at + 1)
  // Not a domain IDNA accepts (the service validates addresses before this): compare it as it is.
  const asciiDomain = domainToASCII(domain) || domain
  return `${folded.slice(0, at)}@${asciiDomain}`
}

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
