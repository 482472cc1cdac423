import { useState } from 'react'
import type { NoticeContent } from '../components/Notice.js'
import type { PageFormState } from '../../common/page/page-render.js'

/** Which of the emailed code's steps has the card; null: the view's form. */
export type EmailCodeStep =
  /** The address to send to; `signUp`: from the register view; `passkey`: the passkey sign-up, which creates a passkey once the code signs in. */
  | { readonly kind: 'request', readonly signUp: boolean, readonly passkey: boolean }
  /** The code sent to `email`; `notice`: what the send (or a form post) said, shown above the field. */
  | { readonly kind: 'code', readonly email: string, readonly passkey: boolean, readonly notice: NoticeContent | null }
  /** Signed in by the code, the tokens stored: the passkey sign-up's passkey. */
  | { readonly kind: 'passkey', readonly auth: string }

/**
 * The emailed code on the page (docs/email-codes.md): this hook holds only
 * the step, and is the first load's; the steps, their calls and texts are a
 * chunk of their own (client/email-codes/EmailCodeSteps.tsx). A form post
 * that sent a code (PageFormState.emailCodeSent) starts at the code step for
 * its address, with what the post said.
 */
export function useEmailCode (formState: PageFormState | null) {
  const [step, setStep] = useState<EmailCodeStep | null>(() =>
    formState?.emailCodeSent === true ? { kind: 'code', email: formState.email, passkey: false, notice: formState.notice } : null)
  return {
    step,
    setStep,
    start: (signUp: boolean, passkey: boolean): void => setStep({ kind: 'request', signUp, passkey }),
    close: (): void => setStep(null)
  }
}

export type EmailCodeFlow = ReturnType<typeof useEmailCode>
