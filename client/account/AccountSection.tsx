import { useContext, useEffect, useId, useRef, type ReactNode } from 'react'
import { ConfirmStep } from '../account-changes/ConfirmStep.js'
import type { FreshProof } from '../account-changes/useFreshProof.js'
import { NoScriptContext } from '../no-script/NeedsScript.js'

/** One section of the account view: a `<section>` named by its heading, which a screen reader's list of landmarks and headings finds. */
export function AccountSection ({ id, title, children }: { id: string, title: string, children: ReactNode }) {
  return (
    <section className='form' aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className='card__title'>{title}</h2>
      {children}
    </section>
  )
}

/**
 * What a change said: done, politely (role=status), with the focus, which
 * the proof step or the form's button held; refused, at once (role=alert).
 * Both regions stay in the page so that screen readers notice new text.
 */
export function ChangeResult ({ done, error }: { done: string | null, error: string | null }) {
  const status = useRef<HTMLDivElement>(null)
  useEffect(() => { if (done !== null) status.current?.focus() }, [done])
  return (
    <>
      <div ref={status} tabIndex={-1} className={`notice${done === null ? '' : ' notice--success'}`} role='status'>{done}</div>
      <div className={`notice${error === null ? '' : ' notice--error'}`} role='alert'>{error}</div>
    </>
  )
}

/**
 * The fresh proof a change asked for, in place of the section's form
 * (ConfirmStep, whose heading takes the focus); once proven, the change runs
 * again by itself and the form is back.
 */
export function ProofInPlace ({ proof, children }: { proof: FreshProof | undefined, children: ReactNode }) {
  return proof === undefined || proof.ways === null ? children : <ConfirmStep proof={proof} explanation='account.proofExplanation' />
}

/**
 * Fields only a form posted without scripts sends (the current password,
 * the fresh proof the edge asks for first: server/edge/no-script/): in a
 * `<noscript>`, which only the server renderer fills (NoScriptContext). With
 * scripts, the change asks for its proof in place instead (ProofInPlace).
 */
function WithoutScripts ({ children }: { children: ReactNode }) {
  return <noscript>{useContext(NoScriptContext) === null ? null : children}</noscript>
}

/** The current password, sent only by a form posted without scripts (WithoutScripts): a plain field, since its reveal button would need scripts. */
export function CurrentPasswordField ({ label }: { label: string }) {
  const id = useId()
  return (
    <WithoutScripts>
      <div className='field field--full'>
        <label htmlFor={id}>{label}</label>
        <div className='field__control'>
          <input id={id} type='password' name='currentPassword' autoComplete='current-password' dir='ltr' required />
        </div>
      </div>
    </WithoutScripts>
  )
}
