import { useId, useState } from 'react'
import type { AccountOverview } from '../../common/account/account-state.js'
import { Button } from '../components/Button.js'
import { LazyPart } from '../components/LazyPart.js'
import { Spinner } from '../components/Spinner.js'
import { useMessages } from '../languages/messages.js'
import { NeedsScript } from '../no-script/NeedsScript.js'
import { lazyChunk } from '../page/load-chunk.js'
import { RecoveryCodes } from '../second-factor/RecoveryCodes.js'
import { forgetBrowsers, removeSecondFactor, renewRecoveryCodes } from './account-calls.js'
import { AccountSection, ChangeResult, ProofInPlace } from './AccountSection.js'
import { useAccountChange, type AccountSession } from './useAccountChange.js'

// The enrolment brings the QR encoder: a chunk of its own, as after a login (client/second-factor/SecondFactorSteps.tsx).
const Enrolment = lazyChunk(async () => ({ default: (await import('../second-factor/Enrolment.js')).Enrolment }))

type SecondFactor = AccountOverview['secondFactor']

interface SecondFactorSectionProps {
  readonly session: AccountSession
  readonly secondFactor: SecondFactor
  readonly productName: string
  readonly onChange: (secondFactor: SecondFactor) => void
}

/**
 * "Two-step verification": on or off, the recovery codes left and the
 * browsers that skip the code; turn it on (the enrolment steps of
 * client/second-factor/), off, new recovery codes (shown once), every
 * browser asked again. All of it needs scripts (the QR code, the proof in
 * place): without them, a note says so.
 */
export function SecondFactorSection ({ session, secondFactor, productName, onChange }: SecondFactorSectionProps) {
  const { text } = useMessages()
  const id = useId()
  const [done, setDone] = useState<string | null>(null)
  const [codes, setCodes] = useState<readonly string[] | null>(null)
  /** The auth token of an enrolment under way (its steps take the section); null: none. */
  const [enrolling, setEnrolling] = useState<string | null>(null)
  const turnOff = useAccountChange('second-factor-off', session, async (auth) => await removeSecondFactor(auth), () => {
    onChange({ enrolled: false, recoveryCodesLeft: 0, rememberedBrowsers: 0 })
    setDone(text('account.secondFactor.turnedOff'))
  })
  const renew = useAccountChange('recovery-codes', session, async (auth) => await renewRecoveryCodes(auth), (answer) => {
    onChange({ ...secondFactor, recoveryCodesLeft: answer.codes.length })
    setCodes(answer.codes)
  })
  const forget = useAccountChange('forget-browsers', session, async (auth) => await forgetBrowsers(auth), () => {
    onChange({ ...secondFactor, rememberedBrowsers: 0 })
    setDone(text('account.secondFactor.browsersForgotten'))
  })
  const busy = turnOff.running || renew.running || forget.running
  const proving = [turnOff, renew, forget].find((change) => change.proof.ways !== null)?.proof

  async function turnOn (): Promise<void> {
    setDone(null)
    const auth = await session.token()
    if (auth === null) session.leave({ kind: 'error', text: text('freshProof.signedOut') })
    else setEnrolling(auth)
  }

  if (enrolling !== null) {
    return (
      <AccountSection id={id} title={text('account.secondFactor.heading')}>
        <LazyPart fallback={<Spinner />}>
          <Enrolment authority={{ kind: 'bearer', auth: enrolling }} rememberOffered={false} productName={productName}
            onDone={() => {
              setEnrolling(null)
              onChange({ ...secondFactor, enrolled: true })
              setDone(text('account.secondFactor.turnedOn'))
            }}
            onCancel={() => setEnrolling(null)} cancelLabel={text('account.cancel')}
            onSignInAgain={(refusal) => session.leave({ kind: 'error', text: refusal ?? text('freshProof.signedOut') })} />
        </LazyPart>
      </AccountSection>
    )
  }
  if (codes !== null) {
    return (
      <AccountSection id={id} title={text('account.secondFactor.heading')}>
        <RecoveryCodes codes={codes} productName={productName} endOthersWith={null} onContinue={() => setCodes(null)} />
      </AccountSection>
    )
  }
  return (
    <AccountSection id={id} title={text('account.secondFactor.heading')}>
      <p>{text(secondFactor.enrolled ? 'account.secondFactor.on' : 'account.secondFactor.off')}</p>
      {secondFactor.enrolled && <p>{text('account.secondFactor.codesLeft', { count: secondFactor.recoveryCodesLeft })}</p>}
      {secondFactor.enrolled && <p>{text('account.secondFactor.browsers', { count: secondFactor.rememberedBrowsers })}</p>}
      <ChangeResult done={done} error={turnOff.error ?? renew.error ?? forget.error} />
      <ProofInPlace proof={proving}>
        <NeedsScript fallback={() => <p className='script-note'>{text('account.needsScript')}</p>}>
          {!secondFactor.enrolled && <Button onClick={() => { void turnOn() }}>{text('account.secondFactor.turnOn')}</Button>}
          {secondFactor.enrolled && (
            <>
              <Button variant='secondary' busy={renew.running} disabled={busy} onClick={() => { setDone(null); renew.run(undefined) }}>
                {text('account.secondFactor.newCodes')}
              </Button>
              {secondFactor.rememberedBrowsers > 0 && (
                <Button variant='secondary' busy={forget.running} disabled={busy} onClick={() => { setDone(null); forget.run(undefined) }}>
                  {text('account.secondFactor.forgetBrowsers')}
                </Button>
              )}
              <Button variant='secondary' busy={turnOff.running} disabled={busy} onClick={() => { setDone(null); turnOff.run(undefined) }}>
                {text('account.secondFactor.turnOff')}
              </Button>
            </>
          )}
        </NeedsScript>
      </ProofInPlace>
    </AccountSection>
  )
}
