import type { ComponentType } from 'react'
import type { PasswordLoginAnswer, SecondFactorDue } from '../../common/http/accounts-answers.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import { withLaterPageTexts } from '../languages/later-page-texts.js'
import type { PageState } from '../page/usePageState.js'
import { CodeStep } from './CodeStep.js'
import { PasskeyStep } from './PasskeyStep.js'
import { RequestStep } from './RequestStep.js'
import type { EmailCodeFlow } from './useEmailCode.js'

/** What the steps use of the page. */
export type EmailCodeStepsPage = Pick<PageState, 'email' | 'setEmail' | 'context' | 'noteMethod' | 'storeLogin' | 'finishLogin' | 'leaveToRedirect'>

export interface EmailCodeStepsProps {
  readonly flow: EmailCodeFlow
  readonly page: EmailCodeStepsPage
  /** The domain check, before a code is sent (`supports_domain_auth_check`). */
  readonly gate: DomainGate
  /** A second factor is due: its steps take the card (useSecondFactor). */
  readonly onSecondFactor: (due: SecondFactorDue) => void
}

/**
 * The emailed code's chunk (loaded by SignInPage when a step first shows, or
 * at once where the page opens on the code step): the step that takes the
 * card (useEmailCode). A code's sign-in ends as every sign-in does
 * (useSignInEnding): tokens stored and the page leaves; a second factor's
 * challenge hands over to its steps; the passkey sign-up first creates the
 * passkey.
 */
function EmailCodeSteps ({ flow, page, gate, onSecondFactor }: EmailCodeStepsProps) {
  const { step } = flow
  if (step === null) return null

  function signedIn (answer: PasswordLoginAnswer, passkey: boolean): boolean {
    if (answer.kind === 'second-factor') {
      flow.close()
      onSecondFactor(answer)
      return true
    }
    if (answer.kind !== 'tokens') return false
    if (!passkey) page.finishLogin(answer)
    else if (page.storeLogin(answer)) flow.setStep({ kind: 'passkey', auth: answer.auth })
    return true
  }

  if (step.kind === 'request') {
    return (
      <RequestStep signUp={step.signUp} email={page.email} onEmail={page.setEmail} gate={gate} onBack={flow.close}
        onSent={(email, notice) => flow.setStep({ kind: 'code', email, passkey: step.passkey, notice })} />
    )
  }
  if (step.kind === 'code') {
    return (
      <CodeStep key={step.email} email={step.email} notice={step.notice} context={page.context}
        onSubmitting={() => page.noteMethod('email-code')}
        onAnswer={(answer) => signedIn(answer, step.passkey)}
        onOtherAddress={() => flow.setStep({ kind: 'request', signUp: step.passkey, passkey: step.passkey })} />
    )
  }
  return <PasskeyStep auth={step.auth} onDone={page.leaveToRedirect} />
}

/** The steps as SignInPage loads them (React.lazy), with their texts (later texts: common/languages/message-catalogue.ts). */
export const withItsTexts = async (): Promise<{ default: ComponentType<EmailCodeStepsProps> }> => withLaterPageTexts(EmailCodeSteps)

/** The steps as they are, for the server renderer (client/server-render.tsx), which has their texts at hand. */
export default EmailCodeSteps
