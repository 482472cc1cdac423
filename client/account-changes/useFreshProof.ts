import { useState } from 'react'
import useSWRMutation from 'swr/mutation'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import type { ChangeRefusal, ProofAnswer, ProofWay } from './fresh-proof-answers.js'
import { reauthenticate, type SecretProof } from './fresh-proof-calls.js'
import { refusalText, useMessages } from '../languages/messages.js'
import { proveWithPasskey } from '../passkeys/prove-with-passkey.js'
import { sendProofCode } from '../email-codes/email-code-calls.js'

/** A way of proving the account with what the visitor types: the password, the password and a code, or a code. */
export type SecretWay = Exclude<ProofWay, 'passkey'>

type ProofRequest =
  | { readonly way: 'passkey' }
  | { readonly way: SecretWay, readonly secret: SecretProof }

type ProofOutcome = ProofAnswer | { readonly kind: 'cancelled' }

export interface FreshProofOptions {
  /** The change again, once the account is proven: it runs by itself, with no further click. */
  readonly retry: () => void
  /** Back to the login view; `refusal`: why (a session that ended), to show there; null: the visitor chose to. */
  readonly signInAgain: (refusal: string | null) => void
}

/**
 * A change to how the account signs in that the service refused until the
 * owner proves the account again (docs/account-changes.md): the ways it
 * offers, the proof under way and what it answered. A proof runs the change
 * again; a session that ended leads back to the login view with its text.
 * `auth`: the stored login's token (null where the change has none, which
 * then never asks for a proof).
 */
export function useFreshProof (auth: string | null, { retry, signInAgain }: FreshProofOptions) {
  const messages = useMessages()
  /** The ways offered while the step shows; null: no proof asked for. */
  const [ways, setWays] = useState<readonly ProofWay[] | null>(null)
  /** The way of the last proof tried, for its busy button and its failure's text. */
  const [way, setWay] = useState<ProofWay | null>(null)
  const { trigger, isMutating, data, reset } = useSWRMutation('threshold/fresh-proof',
    async (_key: string, { arg }: { arg: ProofRequest }): Promise<ProofOutcome> => {
      if (auth === null) return { kind: 'failed' }
      return arg.way === 'passkey' ? await proveWithPasskey(auth) : await reauthenticate(auth, arg.secret)
    })

  const signedOut = (message: string): void => signInAgain(message === '' ? messages.text('freshProof.signedOut') : message)

  /** Tries a proof; true when it was refused and the step stays, with the refusal shown. */
  async function prove (request: ProofRequest): Promise<boolean> {
    setWay(request.way)
    const outcome = await trigger(request)
    if (outcome.kind === 'proven') {
      reset()
      setWays(null)
      retry()
      return false
    }
    if (outcome.kind === 'signed-out') {
      signedOut(outcome.message)
      return false
    }
    return outcome.kind !== 'cancelled'
  }

  const error = data?.kind === 'error'
    ? refusalText(data, messages)
    : data?.kind === 'failed' ? messages.text(way === 'passkey' ? 'freshProof.passkeyFailed' : ERROR_MESSAGE_KEYS.GENERIC) : null

  return {
    ways,
    /** The way whose proof is under way, or null. */
    proving: isMutating ? way : null,
    /** The last proof's refusal, in the page's language where the service sent no text of its own. */
    error,
    /** The change was refused: the step shows (a proof is needed), or the login view (the session ended). */
    refused (refusal: ChangeRefusal): void {
      if (refusal.kind === 'signed-out') {
        signedOut(refusal.message)
        return
      }
      reset()
      setWays(refusal.ways)
    },
    withSecret: (secretWay: SecretWay, secret: SecretProof) => prove({ way: secretWay, secret }),
    withPasskey: () => prove({ way: 'passkey' }),
    /** A code to the account's own address, for withEmailCode (EmailCodeProof). */
    sendEmailCode: async () => auth === null ? { kind: 'failed' } as const : await sendProofCode(auth),
    /** The emailed code as the proof; its refusal is the step's, as a typed code's is. */
    withEmailCode: (code: string) => prove({ way: 'code', secret: { email_code: code } }),
    /** The visitor switched to another way: the last one's refusal no longer applies. */
    forgetRefusal: reset,
    signInAgain: () => signInAgain(null)
  }
}

export type FreshProof = ReturnType<typeof useFreshProof>
