import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type Ref } from 'react'
import { TEXT_FIELD_FINISHED_TYPING_MS } from './constants.js'
import { useValueTypedBeforeHydration } from './useValueTypedBeforeHydration.js'

export interface TextFieldProps {
  readonly label: string
  readonly value: string
  readonly onChange: (value: string) => void
  readonly name?: string
  readonly type?: 'text' | 'email' | 'password'
  readonly autoComplete?: string
  readonly required?: boolean
  /** Width: 200 px, the long variant's 500 px, or the full width of its container. */
  readonly width?: 'default' | 'long' | 'full'
  readonly multiline?: boolean
  /** Called once typing has paused for a second. */
  readonly onFinishedTyping?: (value: string) => void
  /** Called on Enter (single line) or Ctrl/Cmd+Enter (multi-line); inside a form, the form submits. */
  readonly onSubmit?: () => void
  readonly invalid?: boolean
  /** Ids of elements describing the field (hints, the form's error). */
  readonly describedBy?: string
  readonly hint?: ReactNode
  readonly trailing?: ReactNode
  readonly inputRef?: Ref<HTMLInputElement & HTMLTextAreaElement>
  readonly onKeyEvent?: (event: KeyboardEvent<HTMLElement>) => void
  readonly autoFocus?: boolean
  readonly spellCheck?: boolean
  /**
   * Writing direction of the value: `ltr` keeps an address, a password or a
   * code left to right on a right-to-left page. Email fields are `ltr` unless told.
   */
  readonly dir?: 'ltr' | 'auto'
}

/**
 * A labelled text field. Enter submits a single-line field (its form, or
 * `onSubmit`), Ctrl/Cmd+Enter a multi-line one, and Escape leaves the field.
 */
export function TextField (props: TextFieldProps) {
  const id = useId()
  const hintId = `${id}-hint`
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  function change (value: string): void {
    props.onChange(value)
    if (props.onFinishedTyping !== undefined) {
      clearTimeout(timer.current)
      const finished = props.onFinishedTyping
      timer.current = setTimeout(() => finished(value), TEXT_FIELD_FINISHED_TYPING_MS)
    }
  }
  useValueTypedBeforeHydration(id, props.value, change)

  function keyDown (event: KeyboardEvent<HTMLInputElement | HTMLTextAreaElement>): void {
    props.onKeyEvent?.(event)
    if (event.key === 'Escape') {
      event.currentTarget.blur()
      return
    }
    if (event.key !== 'Enter') return
    const submitsHere = props.multiline === true ? event.ctrlKey || event.metaKey : !event.shiftKey
    if (!submitsHere) return
    if (props.onSubmit !== undefined) {
      event.preventDefault()
      props.onSubmit()
    } else if (props.multiline === true) {
      event.preventDefault()
      event.currentTarget.form?.requestSubmit()
    }
  }

  const describedBy = [props.hint === undefined ? null : hintId, props.describedBy].filter(Boolean).join(' ') || undefined
  const shared = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    autoComplete: props.autoComplete,
    autoFocus: props.autoFocus,
    spellCheck: props.spellCheck,
    dir: props.dir ?? (props.type === 'email' ? 'ltr' : undefined),
    'aria-invalid': props.invalid === true ? true : undefined,
    'aria-describedby': describedBy,
    onKeyDown: keyDown,
    onKeyUp: props.onKeyEvent,
    ref: props.inputRef
  }
  return (
    <div className={`field field--${props.width ?? 'default'}`}>
      <label htmlFor={id}>{props.label}</label>
      <div className='field__control'>
        {props.multiline === true
          ? <textarea {...shared} onChange={(event) => change(event.target.value)} />
          : <input {...shared} type={props.type ?? 'text'} onChange={(event) => change(event.target.value)} />}
        {props.trailing}
      </div>
      {props.hint !== undefined && <div id={hintId} className='field__hint'>{props.hint}</div>}
    </div>
  )
}
