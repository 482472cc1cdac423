import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react'
import { createPortal } from 'react-dom'

// Not a form's hidden fields (FormName): they take no focus.
const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])'

export interface ModalProps {
  readonly title: string
  readonly onClose: () => void
  /** medium 450 px, large 850 px, xlarge 1000 px, or as wide as its content. */
  readonly size?: 'medium' | 'large' | 'xlarge' | 'fit-content'
  readonly children: ReactNode
}

/**
 * A modal dialog over an overlay (layer 999). Focus moves into it and cannot
 * leave it with Tab; Escape closes it; focus returns to where it was.
 * Rendering it opens it; unmounting it closes it.
 */
export function Modal ({ title, onClose, size = 'medium', children }: ModalProps) {
  const titleId = useId()
  const dialogRef = useRef<HTMLDivElement>(null)

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const first = dialogRef.current?.querySelector<HTMLElement>('[autofocus], input:not([type="hidden"]), ' + FOCUSABLE)
    ;(first ?? dialogRef.current)?.focus()
    return () => opener?.focus()
  }, [])

  function keyDown (event: KeyboardEvent<HTMLDivElement>): void {
    if (event.key === 'Escape') {
      event.stopPropagation()
      onClose()
      return
    }
    if (event.key !== 'Tab' || dialogRef.current === null) return
    const focusable = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)]
    const first = focusable[0]
    const last = focusable[focusable.length - 1]
    if (first === undefined || last === undefined) return
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }

  return createPortal(
    <div className='overlay' onMouseDown={(event) => { if (event.target === event.currentTarget) onClose() }}>
      <div
        ref={dialogRef}
        className={`modal modal--${size}`}
        role='dialog'
        aria-modal='true'
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={keyDown}
      >
        <h2 id={titleId} className='modal__title'>{title}</h2>
        {children}
      </div>
    </div>,
    document.body
  )
}
