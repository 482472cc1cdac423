import { useRef } from 'react'
import useSWRMutation from 'swr/mutation'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { useFreshProof } from '../account-changes/useFreshProof.js'
import { refusalText, useMessages } from '../languages/messages.js'
import type { NoticeContent } from '../components/Notice.js'
import type { ChangeRefusal } from '../account-changes/fresh-proof-answers.js'
import type { Refusal } from '../../common/http/accounts-answers.js'

/** What a change's call answers, as the account view reads it (client/account/account-calls.ts). */
type ChangeAnswer<Done> = Done | ChangeRefusal | Refusal | { readonly kind: 'failed' }

/** What every change of the account view needs of the view. */
export interface AccountSession {
  /** The auth token, refreshed where it has expired; null when no session lives. */
  readonly token: () => Promise<string | null>
  /** The last token `token` gave, for the fresh proof's calls. */
  readonly auth: string | null
  /** The view is left for the login view with this notice: signed out, deleted, or the session ended. */
  readonly leave: (notice: NoticeContent) => void
}

/**
 * One change of the account view (a mutation hook, as every flow of the
 * page has one): the call, whether it runs, its refusal's text, and the
 * fresh proof it may ask for first, asked in place (ConfirmStep), after which
 * the same change runs again by itself. `onDone` gets the answer and what was
 * sent. A session that ended leaves for the login view.
 */
export function useAccountChange<Arg, Done extends { readonly kind: string }> (
  key: string,
  session: AccountSession,
  call: (auth: string, arg: Arg) => Promise<ChangeAnswer<Done>>,
  onDone: (answer: Done, arg: Arg) => void
) {
  const messages = useMessages()
  /** What the last change sent: the proof runs it again. */
  const last = useRef<{ arg: Arg } | null>(null)
  const mutation = useSWRMutation(['threshold/account', key],
    async (_key: unknown, { arg }: { arg: Arg }): Promise<ChangeAnswer<Done>> => {
      const auth = await session.token()
      return auth === null ? { kind: 'signed-out', message: '' } : await call(auth, arg)
    })
  const { isMutating, data, reset } = mutation
  // SWR types `trigger` by whether its argument may be undefined, which a generic `Arg` leaves open.
  const trigger = mutation.trigger as (arg: Arg) => Promise<ChangeAnswer<Done>>
  const proof = useFreshProof(session.auth, {
    retry: () => { if (last.current !== null) void run(last.current.arg) },
    signInAgain: (refusal) => session.leave({ kind: 'error', text: refusal ?? messages.text('freshProof.signedOut') })
  })

  async function run (arg: Arg): Promise<void> {
    last.current = { arg }
    const answer = await trigger(arg)
    if (answer.kind === 'proof-needed' || answer.kind === 'signed-out') proof.refused(answer as ChangeRefusal)
    else if (answer.kind !== 'error' && answer.kind !== 'failed') {
      reset()
      onDone(answer as Done, arg)
    }
  }

  const answer = data
  return {
    run: (arg: Arg): void => { void run(arg) },
    running: isMutating,
    /** Why the last change was refused, in the page's language where the service sent no text; else null. */
    error: answer?.kind === 'error'
      ? refusalText(answer as Refusal, messages)
      : answer?.kind === 'failed' ? messages.text(ERROR_MESSAGE_KEYS.GENERIC) : null,
    proof
  }
}
