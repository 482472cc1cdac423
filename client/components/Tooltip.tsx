import { cloneElement, useEffect, useId, useRef, useState, type ReactElement } from 'react'
import { TOOLTIP_LINGER_MS } from './constants.js'

export interface TooltipProps {
  readonly content: string
  /** The element the tooltip describes; it gets aria-describedby. */
  readonly children: ReactElement<Record<string, unknown>>
  /** An interactive tooltip stays 400 ms after the pointer leaves, so it can be reached. */
  readonly interactive?: boolean
  /** Shown from outside (copy feedback) rather than on hover and focus. */
  readonly open?: boolean
}

/**
 * A tooltip (at most 300 px wide, layer 1001) shown on hover and on keyboard
 * focus, and dismissed with Escape (WCAG 1.4.13).
 */
export function Tooltip ({ content, children, interactive = false, open }: TooltipProps) {
  const id = useId()
  const [shown, setShown] = useState(false)
  const hideTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(hideTimer.current), [])

  const show = (): void => {
    clearTimeout(hideTimer.current)
    setShown(true)
  }
  const hide = (): void => {
    clearTimeout(hideTimer.current)
    if (interactive) hideTimer.current = setTimeout(() => setShown(false), TOOLTIP_LINGER_MS)
    else setShown(false)
  }
  const visible = open ?? shown

  return (
    <span className='tooltip-anchor' onMouseEnter={show} onMouseLeave={hide} onFocus={show} onBlur={hide}
      onKeyDown={(event) => { if (event.key === 'Escape') setShown(false) }}>
      {cloneElement(children, { 'aria-describedby': visible ? id : undefined })}
      {visible && <span id={id} role='tooltip' className='tooltip' onMouseEnter={interactive ? show : undefined} onMouseLeave={interactive ? hide : undefined}>{content}</span>}
    </span>
  )
}
