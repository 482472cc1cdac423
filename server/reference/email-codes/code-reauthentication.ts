import type { RequestFacts, Answer } from '../http/answers.js'
import { parseEmailCode, type Parsed } from '../http/validation.js'
import type { Account } from '../store/account-store.js'
import { readBinding } from './browser-binding-cookie.js'
import { refusedTryAnswer, type CodeTries } from './code-bounds.js'

/**
 * `reauthenticate` with `{ email_code }` (server/reference/account-changes/reauthentication.ts):
 * a code sent with `email-code/send` `{ purpose: "reauthenticate" }` to the
 * signed-in owner's address, tried in the browser that asked for it and for
 * that account only. It proves what a password proves: the account's
 * mailbox, as a reset link does.
 */
export class CodeReauthentication {
  constructor (private readonly options: { readonly tries: CodeTries, readonly now: () => number }) {}

  /** The typed code made comparable, or the refusal of one that cannot be a code (nothing counted). */
  parse (typed: unknown): Parsed<string> {
    return parseEmailCode(typed)
  }

  /** Null when the code proves the account in this browser; else the answer that refuses it (401 with its reason, or 429). */
  async prove (account: Account, code: string, facts: RequestFacts): Promise<Answer | null> {
    const tried = await this.options.tries.attempt({
      email: account.email, code, purpose: 'reauthenticate', binding: readBinding(facts.browser?.cookieHeader), accountId: account.id
    }, facts)
    return 'proven' in tried ? null : refusedTryAnswer(tried, this.options.now(), facts)
  }
}
