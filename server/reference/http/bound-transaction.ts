import type { AccountStore, SsoTransaction } from '../store/account-store.js'
import { bindingMatches } from './binding-cookie.js'

/** A transaction taken for this browser, or why it was not (for the log only). */
export type BoundTransaction = { readonly transaction: SsoTransaction } | { readonly refused: string }

/**
 * Takes a single sign-on or social transaction out of the store if this
 * browser's cookie is the one it is bound to and `check` (its protocol, its
 * stage, its connection) finds nothing wrong. It is read first and taken
 * only once all of that holds: a request that merely knows the state (or the
 * hand-over code), without the cookie, spends nobody's transaction. The take
 * is still the single use: of two requests with the cookie, one gets it.
 */
export async function takeBoundTransaction (
  store: Pick<AccountStore, 'findSsoTransaction' | 'takeSsoTransaction'>,
  id: string,
  binding: string | null,
  now: number,
  check: (transaction: SsoTransaction) => string | null
): Promise<BoundTransaction> {
  if (binding === null) return { refused: 'no state cookie' }
  const found = await store.findSsoTransaction(id, now)
  if (found === null) return { refused: 'unknown, used or expired transaction' }
  if (!bindingMatches(binding, found.bindingHash)) return { refused: 'state cookie of another browser' }
  const refused = check(found)
  if (refused !== null) return { refused }
  const transaction = await store.takeSsoTransaction(id, now)
  return transaction === null ? { refused: 'unknown, used or expired transaction' } : { transaction }
}
