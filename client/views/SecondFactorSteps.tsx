import { lazy, Suspense } from 'react'
import type { SecondFactorFlow } from '../hooks/useSecondFactor.js'
import type { PageState } from '../hooks/usePageState.js'
import { SECOND_FACTOR_MESSAGES as TEXT } from '../lib/messages.js'
import { rememberSecondFactorNotNow } from '../second-factor/not-now.js'
import { SecondFactorOffer } from './SecondFactorOffer.js'

// Two chunks, each loaded when its step first shows: the code step, and the enrolment with the QR encoder.
const CodeStep = lazy(() => import('../second-factor/CodeStep.js').then((loaded) => ({ default: loaded.CodeStep })))
const Enrolment = lazy(() => import('../second-factor/Enrolment.js').then((loaded) => ({ default: loaded.Enrolment })))

/**
 * The second-factor step that takes the card (useSecondFactor): the code
 * step or the enrolment of a login, the offer after one, or the offered
 * enrolment. Each ends by storing the login's tokens and leaving, or by
 * going back to the login form.
 */
export function SecondFactorSteps ({ flow, page, rememberOffered, productName }: {
  flow: SecondFactorFlow, page: PageState, rememberOffered: boolean, productName: string
}) {
  const { step } = flow
  if (step === null) return null
  const back = (): void => flow.setStep(null)
  return (
    <Suspense fallback={<p role='status'>{TEXT.LOADING}</p>}>
      {step.kind === 'code' && <CodeStep challenge={step.challenge} rememberOffered={rememberOffered} onTokens={flow.finish} onBack={back} />}
      {step.kind === 'enrol' && (
        <Enrolment authority={{ kind: 'challenge', challenge: step.challenge }} rememberOffered={rememberOffered} productName={productName}
          onDone={(tokens) => { if (tokens !== null) flow.finish(tokens) }} onCancel={back} cancelLabel={TEXT.BACK} />
      )}
      {step.kind === 'offer' && (
        <SecondFactorOffer onAccept={() => flow.setStep({ kind: 'enrol-offered', auth: step.auth })}
          onNotNow={() => { rememberSecondFactorNotNow(); page.leaveToRedirect() }} />
      )}
      {step.kind === 'enrol-offered' && (
        <Enrolment authority={{ kind: 'bearer', auth: step.auth }} rememberOffered={false} productName={productName}
          onDone={page.leaveToRedirect} onCancel={page.leaveToRedirect} cancelLabel={TEXT.NOT_NOW} />
      )}
    </Suspense>
  )
}
