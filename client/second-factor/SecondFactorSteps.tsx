import { LazyPart } from '../components/LazyPart.js'
import { lazyChunk } from '../page/load-chunk.js'
import { Spinner } from '../components/Spinner.js'
import type { PageState } from '../page/usePageState.js'
import type { SecondFactorFlow } from './useSecondFactor.js'
import { useMessages } from '../languages/messages.js'
import { CodeStep } from './CodeStep.js'
import { Offer } from './Offer.js'

/** What the steps use of the page. */
type SecondFactorStepsPage = Pick<PageState, 'params' | 'fail' | 'leaveToRedirect'>

// A chunk of its own, loaded when an enrolment starts: the enrolment steps with the QR encoder.
const Enrolment = lazyChunk(async () => ({ default: (await import('./Enrolment.js')).Enrolment }))

/**
 * The second-factor chunk's entry (loaded by SignInPage when a step first
 * shows): the step that takes the card (useSecondFactor): the code
 * step or the enrolment of a login, the offer after one, or the offered
 * enrolment. Each ends by storing the login's tokens and leaving, or by
 * going back to the login form.
 */
export default function SecondFactorSteps ({ flow, page, rememberOffered, productName }: {
  flow: SecondFactorFlow, page: SecondFactorStepsPage, rememberOffered: boolean, productName: string
}) {
  const { text } = useMessages()
  const { step } = flow
  if (step === null) return null
  const back = (): void => flow.setStep(null)
  // A local-network login's challenge is its listener's: the steps call it there, where no cookie travels, so no browser is remembered.
  const { localAccounts } = page.params
  const localOrigin = localAccounts.kind === 'allowed' ? localAccounts.origin : null
  const rememberOfferedHere = rememberOffered && localOrigin === null
  // From "Confirm it's you": the login view, whose sign-in is a fresh proof; with the text of a session that ended.
  const signInAgain = (refusal: string | null): void => {
    back()
    if (refusal !== null) page.fail(refusal)
  }
  return (
    <LazyPart fallback={<Spinner />}>
      {step.kind === 'code' && (
        <CodeStep challenge={step.challenge} refusal={step.refusal ?? null} rememberOffered={rememberOfferedHere} localOrigin={localOrigin}
          onTokens={flow.finish} onBack={back} />
      )}
      {step.kind === 'enrol' && (
        <Enrolment authority={{ kind: 'challenge', challenge: step.challenge, localOrigin }} rememberOffered={rememberOfferedHere} productName={productName}
          onDone={(tokens) => { if (tokens !== null) flow.finish(tokens) }} onCancel={back} cancelLabel={text('secondFactor.backToLogin')}
          onSignInAgain={signInAgain} />
      )}
      {step.kind === 'offer' && (
        <Offer onAccept={() => flow.setStep({ kind: 'enrol-offered', auth: step.auth })}
          onNotNow={flow.declineOffer} />
      )}
      {step.kind === 'enrol-offered' && (
        <Enrolment authority={{ kind: 'bearer', auth: step.auth }} rememberOffered={false} productName={productName}
          onDone={page.leaveToRedirect} onCancel={page.leaveToRedirect} cancelLabel={text('secondFactor.notNow')}
          onSignInAgain={signInAgain} />
      )}
    </LazyPart>
  )
}
