import type { RequestFacts } from '../http/answers.js'
import { bindingHash, newBinding } from '../http/binding-cookie.js'
import type { AccountStore, FreshProof, ProofMethod } from '../store/account-store.js'
import type { AuthenticationMethod } from '../sessions/tokens.js'
import { FRESH_PROOF_WINDOW_MS, proofCookie } from './proof-cookie.js'

/** The proof a sign-in made: its second factor when it had one (the stronger of the two); an emailed code's is `email`. */
export function proofOfSignIn (method: AuthenticationMethod): ProofMethod {
  if (method.endsWith('+otp')) return 'otp'
  return method as Exclude<AuthenticationMethod, `${string}+otp`>
}

/**
 * Proofs of an account made in a browser, within FRESH_PROOF_WINDOW_MS:
 * a sign-in, or a password, passkey or code given again for a change
 * (reauthentication.ts). Kept in the store under the hash of the binding
 * the browser's HttpOnly cookie holds.
 */
export class FreshProofs {
  constructor (private readonly store: AccountStore, private readonly now: () => number) {}

  /**
   * Records a proof for the request's browser; answers the Set-Cookie value
   * that keeps it there, or null where browsers are not recognised (the
   * local-network listener: its sign-ins change nothing).
   */
  async record (
    session: { readonly accountId: string, readonly sessionId: string }, method: ProofMethod, facts: RequestFacts,
    { atSignIn }: { readonly atSignIn: boolean }
  ): Promise<string | null> {
    if (facts.browser === null) return null
    const binding = newBinding()
    const now = this.now()
    await this.store.insertFreshProof({
      bindingHash: bindingHash(binding), ...session, method, atSignIn, provenAt: now, expiresAt: now + FRESH_PROOF_WINDOW_MS
    })
    return proofCookie.set(binding)
  }

  /**
   * The browser's live proof made in `sessionId`, or null (none, another
   * session's or account's, or expired): a proof cookie tossed in from a
   * sibling subdomain, or kept from an ended session, proves nothing.
   */
  async current (session: { readonly accountId: string, readonly sessionId: string }, facts: RequestFacts): Promise<FreshProof | null> {
    const binding = proofCookie.read(facts.browser?.cookieHeader)
    if (binding === null) return null
    const proof = await this.store.findFreshProof(bindingHash(binding), this.now())
    return proof?.accountId === session.accountId && proof.sessionId === session.sessionId ? proof : null
  }

  /** Spends the browser's sign-in proof on the one prompt-less passkey registration it allows (atomic). */
  async spendOnUpgrade (sessionId: string, facts: RequestFacts): Promise<boolean> {
    const binding = proofCookie.read(facts.browser?.cookieHeader)
    return binding !== null && await this.store.spendFreshProofOnUpgrade(bindingHash(binding), sessionId, this.now())
  }

  /** Forgets every proof of the account: its sessions have been ended. */
  async voidAll (accountId: string): Promise<void> {
    await this.store.voidFreshProofs(accountId)
  }
}
